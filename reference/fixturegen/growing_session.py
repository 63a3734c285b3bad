"""A session as it is written: its line sink, its damaged lines, its clock, ids and leaf, and the
message entries appended under that leaf.

Why: every entry is appended under the current leaf the way ``SessionManager._appendEntry`` does it
(pi-session-model.md §2), with Pi's key orders, and each message payload has its provider's shape
(response ids, signatures, call ids; §4).  Lines go to disk as they are made, so a 200 MB benchmark
file never sits in memory, and size targets (``target_bytes``) read the running byte count.  Readers
must survive lines ``JSON.parse`` rejects and blank lines anywhere (§3.1): ``malformed`` and
``blank`` of them go after seeded entry counts, and nothing else in the file refers to them.
"""

from __future__ import annotations

import base64
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Final

from reference.fixturegen.options import GenOptions, ProgressCallback
from reference.fixturegen.vocabulary import B62, MODELS, TERM_WORDS, Model, pick
from reference.primitives.jsonbytes import JsonObject, js_stringify
from reference.primitives.jsvalues import to_iso_string

PROGRESS_EVERY: Final = 8 * 1024 * 1024


class LineWriter:
    """Line sink: JSON.stringify + LF (or CRLF when asked), counting bytes for target sizes."""

    def __init__(self, fh: BinaryIO, crlf: bool, path: Path, on_progress: ProgressCallback | None) -> None:
        self.fh = fh
        self.eol = b"\r\n" if crlf else b"\n"
        self.bytes = 0
        self.path = path
        self.on_progress = on_progress
        self._next_report = PROGRESS_EVERY

    def raw(self, text: str, *, eol: bool = True) -> None:
        data = text.encode("utf-8") + (self.eol if eol else b"")
        self.fh.write(data)
        self.bytes += len(data)
        if self.on_progress is not None and self.bytes >= self._next_report:
            self._next_report += PROGRESS_EVERY
            self.on_progress(self.path, self.bytes)


class LineDamage:
    """Where the damaged lines go (after which entry count) and what they say."""

    def __init__(self, rng: random.Random, malformed: int, blank: int, entries: int) -> None:
        self.rng = rng
        hi = max(1, entries)
        self.malformed_at = Counter(rng.randrange(hi) for _ in range(malformed))
        self.blank_at = Counter(rng.randrange(hi) for _ in range(blank))

    def lines_after(self, after: int, clock: int) -> Iterator[str]:
        """The lines that follow the ``after``-th entry (0: the header): malformed ones, then blank ones."""
        for _ in range(self.malformed_at.get(after, 0)):
            yield self._malformed_line(clock)
        for _ in range(self.blank_at.get(after, 0)):
            yield self.rng.choice(("", "", "   ", "\t"))

    def _malformed_line(self, clock: int) -> str:
        """A line JSON.parse rejects; nothing else in the file refers to it."""
        ghost = f"{self.rng.getrandbits(32):08x}"
        ts = to_iso_string(clock)
        kinds = (
            f'{{"type":"message","id":"{ghost}","parentId":',
            f'{{"type":"custom","customType":"glued","id":"{ghost}"{{"type":"label","id":"{ghost}","timestamp":"{ts}"}}',
            "[pi] warning: extension rebase-state took 2.3s to load",
            f"{{'type': 'custom', 'customType': 'py-repr', 'id': '{ghost}'}}",
            f'{{"type":"session_info","id":"{ghost}","name":"trailing comma",}}',
        )
        return self.rng.choice(kinds)


class GrowingSession:
    """One session's state, and the header and entries appended under the current leaf."""

    def __init__(
        self, rng: random.Random, opts: GenOptions, out: LineWriter, start_ms: int, session_id: str
    ) -> None:
        self.rng = rng
        self.opts = opts
        self.out = out
        self.legacy = opts.legacy
        self.session_id = session_id
        self.header_ts = to_iso_string(start_ms)
        # the tree: clock, ids, leaf, and the path of the final leaf
        self.clock = start_ms
        self.ids: set[str] = set()
        self.leaf: str | None = None
        self.count = 0
        self.on_main = True
        self.main: list[tuple[str, str]] = []  # (id, kind) along the path of the final leaf
        self.main_users: list[int] = []  # indexes into self.main, kept so big files stay linear
        self.main_stops: list[int] = []
        # what the builders record as they go (messages, turns, compactions, branches)
        self.model = MODELS[0]
        self.notable: dict[str, str] = {}
        self.files_read: set[str] = set()
        self.files_changed: set[str] = set()
        self.labels: dict[str, str] = {}
        self.first_kept_index = -1
        self.compactions: list[int] = []  # indexes into self.main
        self.incomplete: list[tuple[int, str]] = []  # (main index of the assistant, kind)
        self.sibling_parent: str | None = None
        self.call_seq = 0
        # the session's first two draws, in this order: the planted term, then the damaged lines
        self.term = f"{rng.choice(TERM_WORDS)}-{rng.getrandbits(16):04x}"
        self.damage = LineDamage(rng, opts.malformed, opts.blank, opts.entries)

    def _tick(self, lo: int = 300, hi: int = 4000) -> int:
        self.clock += self.rng.randint(lo, hi)
        return self.clock

    def _new_id(self) -> str:
        while True:
            candidate = f"{self.rng.getrandbits(32):08x}"
            if candidate not in self.ids:
                self.ids.add(candidate)
                return candidate

    def _damage(self, after: int) -> None:
        for line in self.damage.lines_after(after, self.clock):
            self.out.raw(line)

    def header(self) -> None:
        if self.legacy == 1:
            head: dict[str, Any] = {"type": "session", "id": self.session_id, "timestamp": self.header_ts,
                                    "cwd": self.opts.cwd, "provider": self.model.provider,
                                    "modelId": self.model.model, "thinkingLevel": "off"}  # fmt: skip
        else:
            version = 2 if self.legacy == 2 else 3
            head = {"type": "session", "version": version, "id": self.session_id,
                    "timestamp": self.header_ts, "cwd": self.opts.cwd}  # fmt: skip
        self.out.raw(js_stringify(head))
        self._damage(0)

    def emit(
        self, entry_type: str, payload: dict[str, Any], kind: str = "other", *, ids_last: bool = False
    ) -> str:
        """Append one entry under the current leaf, like ``SessionManager._appendEntry``."""
        self._tick()
        key = self._new_id()
        ts = to_iso_string(self.clock)
        if self.legacy == 1:
            entry = {"type": entry_type, "timestamp": ts, **payload}
            key = str(self.count + 1)  # v1 has no ids: the parsed-entry index stands in
        elif ids_last:
            entry = {"type": entry_type, **payload, "id": key, "parentId": self.leaf, "timestamp": ts}
        else:
            entry = {"type": entry_type, "id": key, "parentId": self.leaf, "timestamp": ts, **payload}
        if self.leaf is None and self.count and self.legacy != 1:
            self.notable.setdefault("second_root", key)
        self.out.raw(js_stringify(entry))
        self.count += 1
        self.leaf = key
        if self.on_main:
            if kind == "user":
                self.main_users.append(len(self.main))
            elif kind == "assistant_stop":
                self.main_stops.append(len(self.main))
            self.main.append((key, kind))
        self._damage(self.count)
        return key

    def _msg_ts(self) -> int:
        return self.clock + self.rng.randint(1, 250)

    def user(self, text: str, *, blocks: bool | None = None) -> str:
        use_blocks = self.rng.random() < 0.6 if blocks is None else blocks
        content: Any = [{"type": "text", "text": text}] if use_blocks else text
        return self.emit(
            "message", {"message": {"role": "user", "content": content, "timestamp": self._msg_ts()}}, "user"
        )

    def _usage(self, model: Model, inp: int, out: int, cache_read: int, cache_write: int) -> JsonObject:
        p = model.prices
        cost = {
            "input": inp * p[0],
            "output": out * p[1],
            "cacheRead": cache_read * p[2],
            "cacheWrite": cache_write * p[3],
        }
        cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
        return {"input": inp, "output": out, "cacheRead": cache_read, "cacheWrite": cache_write,
                "totalTokens": inp + out + cache_read + cache_write, "cost": cost}  # fmt: skip

    def _random_usage(self, model: Model) -> JsonObject:
        r = self.rng
        return self._usage(
            model,
            r.randint(200, 4000),
            r.randint(20, 900),
            r.randint(0, 60000),
            r.choice((0, 0, r.randint(100, 3000))),
        )

    def assistant(self, content: list[JsonObject], stop: str, *, error: str | None = None) -> str:
        m = self.model
        message: JsonObject = {"role": "assistant", "content": content, "api": m.api, "provider": m.provider,
                                   "model": m.model, "usage": self._random_usage(m), "stopReason": stop,
                                   "timestamp": self.clock + self.rng.randint(1, 200)}  # fmt: skip
        if m.provider == "anthropic":
            message["responseId"] = "msg_01" + pick(self.rng, B62, 22)
        elif m.provider == "openai":
            message["responseId"] = f"resp_{self.rng.getrandbits(192):048x}"
        else:
            message["responseModel"] = m.model + "-0324"
            message["responseId"] = f"gen-{self.clock // 1000}-{pick(self.rng, B62, 20)}"
        if error is not None:
            message["errorMessage"] = error
        kind = "assistant_stop" if stop == "stop" else "assistant"
        self._tick(800, 9000)
        return self.emit("message", {"message": message}, kind)

    def text(self, text: str) -> JsonObject:
        block: JsonObject = {"type": "text", "text": text}
        if self.model.provider == "openai":
            block["textSignature"] = f"msg_{self.rng.getrandbits(128):032x}"
        return block

    def thinking(self, text: str) -> JsonObject:
        if self.model.provider == "openai":
            sig = js_stringify(
                {"type": "reasoning", "id": f"rs_{self.rng.getrandbits(128):032x}", "summary": []}
            )
        else:
            sig = base64.b64encode(self.rng.randbytes(48)).decode("ascii")
        return {"type": "thinking", "thinking": text, "thinkingSignature": sig}

    def tool_call(self, name: str, arguments: JsonObject) -> JsonObject:
        self.call_seq += 1
        if self.model.provider == "anthropic":
            call_id = "toolu_01" + pick(self.rng, B62, 22)
        elif self.model.provider == "openai":
            call_id = f"call_{pick(self.rng, B62, 24)}|fc_{self.rng.getrandbits(192):048x}"
        else:
            call_id = f"call_{self.call_seq:02d}_{self.rng.getrandbits(64):016x}"
        if name == "read":
            self.files_read.add(str(arguments.get("path", "")))
        elif name in ("edit", "write"):
            self.files_changed.add(str(arguments.get("path", "")))
        return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}

    def tool_result(
        self, call: JsonObject, output: str, *, error: bool = False, details: Any = None
    ) -> str:
        message: JsonObject = {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                                   "content": [{"type": "text", "text": output}]}  # fmt: skip
        if details is not None:
            message["details"] = details
        message["isError"] = error
        message["timestamp"] = self.clock + self.rng.randint(5, 3000)
        self._tick(50, 3000)
        return self.emit("message", {"message": message}, "toolResult")

    def bash_execution(
        self, command: str, output: str, *, exit_code: int | None = 0, exclude: bool = False
    ) -> str:
        message: JsonObject = {"role": "bashExecution", "command": command, "output": output}
        if exit_code is not None:
            message["exitCode"] = exit_code
        message.update({"cancelled": exit_code is None, "truncated": False, "timestamp": self._msg_ts()})
        if exclude:
            message["excludeFromContext"] = True
        return self.emit("message", {"message": message}, "bash")

    def custom_message(self, custom_type: str, content: Any, display: bool, details: Any = None) -> str:
        if self.legacy == 2:  # v2 stored these as message entries with role hookMessage
            message: JsonObject = {
                "role": "hookMessage",
                "customType": custom_type,
                "content": content,
                "display": display,
            }
            if details is not None:
                message["details"] = details
            message["timestamp"] = self._msg_ts()
            key = self.emit("message", {"message": message}, "custom")
            self.notable.setdefault("hook_message", key)
            return key
        payload: JsonObject = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            payload["details"] = details
        key = self.emit("custom_message", payload, "custom", ids_last=True)
        self.notable.setdefault("custom_message", key)
        return key

    def custom_entry(self, custom_type: str, data: Any = None) -> str:
        payload: JsonObject = {"customType": custom_type}
        if data is not None:
            payload["data"] = data
        key = self.emit("custom", payload, ids_last=True)
        self.notable.setdefault("custom_entry", key)
        return key
