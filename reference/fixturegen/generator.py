"""Seeded generator of realistic Pi 0.84.3 session files (pi-session-model.md §1-§5).

Why: conformance fixtures and benchmark inputs must be reproducible byte for byte without running
Pi. Every random choice comes from one ``random.Random(seed)``, the clock is fixed, and every line
is ``JSON.stringify(entry) + "\\n"`` with the key orders Pi's ``SessionManager`` uses. Lines go to
disk as they are made, so a 200 MB benchmark file never sits in memory.

``python -m reference.fixturegen.generator --refresh fixtures/`` regenerates the committed fixtures from
``fixtures/MANIFEST.json`` and recomputes their facts; ``--check`` only compares.
"""

from __future__ import annotations

import argparse
import base64
import bisect
import dataclasses
import json
import random
import re
import string
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO, Final

from reference.primitives.jsonbytes import JsonParseError, js_parse, js_stringify

BASE_CLOCK_MS: Final = 1_748_779_200_000  # 2025-06-01T12:00:00.000Z, the clock gen.mjs uses
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_B62: Final = string.ascii_letters + string.digits
_UPPER_ALNUM: Final = string.ascii_uppercase + string.digits
_PROGRESS_EVERY: Final = 8 * 1024 * 1024

ProgressCallback = Callable[[Path, int], None]


@dataclass(frozen=True)
class GenOptions:
    """What to generate; see ``fixtures/README.md`` for how each knob shows up in the file."""

    seed: int
    sessions: int = 1
    entries: int = 60
    siblings: int = 0
    compactions: int = 1
    branches: int = 2
    crlf: bool = False
    torn_tail: bool = False
    malformed: int = 0
    blank: int = 0
    legacy: int | None = None
    secrets: bool = True
    cwd: str = "/home/user/projects/demo"
    target_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.legacy not in (None, 1, 2):
            raise ValueError("legacy must be None, 1 or 2")
        counts = (
            self.sessions,
            self.entries,
            self.siblings,
            self.compactions,
            self.branches,
            self.malformed,
            self.blank,
        )
        if min(counts) < 0 or self.sessions < 1:
            raise ValueError("counts must be >= 0 and sessions >= 1")
        if self.target_bytes is not None and self.target_bytes < 1:
            raise ValueError("target_bytes must be positive")


@dataclass(frozen=True)
class GeneratedSession:
    """One written file, with the facts a test needs without re-reading it."""

    path: Path
    session_id: str
    entry_count: int
    leaf_id: str | None
    notable: dict[str, str] = field(default_factory=dict)


# ----------------------------------------------------------------------------------------------
# small helpers


def iso(ms: int) -> str:
    """``new Date(ms).toISOString()``."""
    moment = _EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def session_file_name(timestamp: str, session_id: str) -> str:
    """Pi's file name: the header timestamp with ``:`` and ``.`` turned into ``-``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def _uuid7(rng: random.Random, ms: int) -> str:
    """A UUIDv7 shape: 48-bit time, version 7, variant 10, the rest from the PRNG."""
    value = (
        (ms & (2**48 - 1)) << 80 | 0x7 << 76 | rng.getrandbits(12) << 64 | 0b10 << 62 | rng.getrandbits(62)
    )
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


@dataclass(frozen=True)
class _Model:
    api: str
    provider: str
    model: str
    prices: tuple[float, float, float, float]  # per token: input, output, cacheRead, cacheWrite


_MODELS: Final = (
    _Model("anthropic-messages", "anthropic", "claude-sonnet-4-5", (3e-6, 1.5e-5, 3e-7, 3.75e-6)),
    _Model("openai-responses", "openai", "gpt-5", (1.25e-6, 1e-5, 1.25e-7, 0.0)),
    _Model("openai-completions", "openrouter", "deepseek/deepseek-chat-v3.1", (2.7e-7, 1.1e-6, 7e-8, 0.0)),
)
_THINKING_LEVELS: Final = ("off", "minimal", "low", "medium", "high", "xhigh")
_FILES: Final = (
    "src/index.ts", "src/cache.ts", "src/server.ts", "src/util/retry.ts", "scripts/build.mjs",
    "package.json", "README.md", "test/cache.test.ts", "docs/architecture.md", "tsconfig.json",
)  # fmt: skip
_FUNCS: Final = (
    "loadConfig", "retryWithBackoff", "parseArgs", "buildIndex", "flushCache", "handleRequest",
    "normalizePath", "readManifest", "scheduleJob",
)  # fmt: skip
_TERM_WORDS: Final = ("heron", "quokka", "marmot", "ibis", "tapir", "okapi", "narwhal", "pangolin")
_PROMPTS: Final = (
    "What does {file} do?",
    "Can you add error handling to {func} in {file}?",
    "Run the tests and fix whatever fails.",
    "Why is {func} slow on large inputs?",
    "Rename {func} to {func2} everywhere.",
    "Please write a short summary of the changes so far.",
    "Check the logs for the timeout error in {func}.",
    "Add a unit test for {func}.",
    "Is {file} still used anywhere?",
    "Können wir {func} vereinfachen? Danke!",
    "{func} の戻り値をキャッシュしてください。",
)
_ANSWERS: Final = (
    "{file} exports {func}, which reads the config once and memoizes it.",
    "Done. I updated {func} in {file} and the tests pass.",
    "{func} walks the whole list on every call; caching the index makes it O(1).",
    "I renamed it and updated all call sites.",
    "Nothing imports {file} any more, so it can be deleted.",
    "Summary: the cache layer was refactored, {func} got retries, and tests were added.",
    "The timeout comes from {func}: it retries without backoff. I added exponential backoff.",
)


class _Writer:
    """Line sink: JSON.stringify + LF (or CRLF when asked), counting bytes for target sizes."""

    def __init__(self, fh: BinaryIO, crlf: bool, path: Path, on_progress: ProgressCallback | None) -> None:
        self.fh = fh
        self.eol = b"\r\n" if crlf else b"\n"
        self.bytes = 0
        self.path = path
        self.on_progress = on_progress
        self._next_report = _PROGRESS_EVERY

    def raw(self, text: str, *, eol: bool = True) -> None:
        data = text.encode("utf-8") + (self.eol if eol else b"")
        self.fh.write(data)
        self.bytes += len(data)
        if self.on_progress is not None and self.bytes >= self._next_report:
            self._next_report += _PROGRESS_EVERY
            self.on_progress(self.path, self.bytes)


# ----------------------------------------------------------------------------------------------
# one session


class _Session:
    """Builds one session, entry by entry, the way SessionManager appends them."""

    def __init__(
        self, rng: random.Random, opts: GenOptions, out: _Writer, start_ms: int, session_id: str
    ) -> None:
        self.rng = rng
        self.opts = opts
        self.out = out
        self.legacy = opts.legacy
        self.clock = start_ms
        self.ids: set[str] = set()
        self.leaf: str | None = None
        self.count = 0
        self.on_main = True
        self.main: list[tuple[str, str]] = []  # (id, kind) along the path of the final leaf
        self.main_users: list[int] = []  # indexes into self.main, kept so big files stay linear
        self.main_stops: list[int] = []
        self.model = _MODELS[0]
        self.notable: dict[str, str] = {}
        self.files_read: set[str] = set()
        self.files_changed: set[str] = set()
        self.labels: dict[str, str] = {}
        self.first_kept_index = -1
        self.compactions: list[int] = []  # indexes into self.main
        self.incomplete: list[tuple[int, str]] = []  # (main index of the assistant, kind)
        self.sibling_parent: str | None = None
        self.call_seq = 0
        self.term = f"{rng.choice(_TERM_WORDS)}-{rng.getrandbits(16):04x}"
        hi = max(1, opts.entries)
        self.malformed_at = Counter(rng.randrange(hi) for _ in range(opts.malformed))
        self.blank_at = Counter(rng.randrange(hi) for _ in range(opts.blank))
        self.session_id = session_id
        self.header_ts = iso(start_ms)

    # -- low level ------------------------------------------------------------------------------

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
        for _ in range(self.malformed_at.get(after, 0)):
            self.out.raw(self._malformed_line())
        for _ in range(self.blank_at.get(after, 0)):
            self.out.raw(self.rng.choice(("", "", "   ", "\t")))

    def _malformed_line(self) -> str:
        """A line JSON.parse rejects; nothing else in the file refers to it."""
        ghost = f"{self.rng.getrandbits(32):08x}"
        ts = iso(self.clock)
        kinds = (
            f'{{"type":"message","id":"{ghost}","parentId":',
            f'{{"type":"custom","customType":"glued","id":"{ghost}"{{"type":"label","id":"{ghost}","timestamp":"{ts}"}}',
            "[pi] warning: extension rebase-state took 2.3s to load",
            f"{{'type': 'custom', 'customType': 'py-repr', 'id': '{ghost}'}}",
            f'{{"type":"session_info","id":"{ghost}","name":"trailing comma",}}',
        )
        return self.rng.choice(kinds)

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
        ts = iso(self.clock)
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

    # -- message payloads ----------------------------------------------------------------------

    def _msg_ts(self) -> int:
        return self.clock + self.rng.randint(1, 250)

    def user(self, text: str, *, blocks: bool | None = None) -> str:
        use_blocks = self.rng.random() < 0.6 if blocks is None else blocks
        content: Any = [{"type": "text", "text": text}] if use_blocks else text
        return self.emit(
            "message", {"message": {"role": "user", "content": content, "timestamp": self._msg_ts()}}, "user"
        )

    def _usage(self, model: _Model, inp: int, out: int, cache_read: int, cache_write: int) -> dict[str, Any]:
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

    def _random_usage(self, model: _Model) -> dict[str, Any]:
        r = self.rng
        return self._usage(
            model,
            r.randint(200, 4000),
            r.randint(20, 900),
            r.randint(0, 60000),
            r.choice((0, 0, r.randint(100, 3000))),
        )

    def assistant(self, content: list[dict[str, Any]], stop: str, *, error: str | None = None) -> str:
        m = self.model
        message: dict[str, Any] = {"role": "assistant", "content": content, "api": m.api, "provider": m.provider,
                                   "model": m.model, "usage": self._random_usage(m), "stopReason": stop,
                                   "timestamp": self.clock + self.rng.randint(1, 200)}  # fmt: skip
        if m.provider == "anthropic":
            message["responseId"] = "msg_01" + _pick(self.rng, _B62, 22)
        elif m.provider == "openai":
            message["responseId"] = f"resp_{self.rng.getrandbits(192):048x}"
        else:
            message["responseModel"] = m.model + "-0324"
            message["responseId"] = f"gen-{self.clock // 1000}-{_pick(self.rng, _B62, 20)}"
        if error is not None:
            message["errorMessage"] = error
        kind = "assistant_stop" if stop == "stop" else "assistant"
        self._tick(800, 9000)
        return self.emit("message", {"message": message}, kind)

    def text(self, text: str) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "text", "text": text}
        if self.model.provider == "openai":
            block["textSignature"] = f"msg_{self.rng.getrandbits(128):032x}"
        return block

    def thinking(self, text: str) -> dict[str, Any]:
        if self.model.provider == "openai":
            sig = js_stringify(
                {"type": "reasoning", "id": f"rs_{self.rng.getrandbits(128):032x}", "summary": []}
            )
        else:
            sig = base64.b64encode(self.rng.randbytes(48)).decode("ascii")
        return {"type": "thinking", "thinking": text, "thinkingSignature": sig}

    def tool_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.call_seq += 1
        if self.model.provider == "anthropic":
            call_id = "toolu_01" + _pick(self.rng, _B62, 22)
        elif self.model.provider == "openai":
            call_id = f"call_{_pick(self.rng, _B62, 24)}|fc_{self.rng.getrandbits(192):048x}"
        else:
            call_id = f"call_{self.call_seq:02d}_{self.rng.getrandbits(64):016x}"
        if name == "read":
            self.files_read.add(str(arguments.get("path", "")))
        elif name in ("edit", "write"):
            self.files_changed.add(str(arguments.get("path", "")))
        return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}

    def tool_result(
        self, call: dict[str, Any], output: str, *, error: bool = False, details: Any = None
    ) -> str:
        message: dict[str, Any] = {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
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
        message: dict[str, Any] = {"role": "bashExecution", "command": command, "output": output}
        if exit_code is not None:
            message["exitCode"] = exit_code
        message.update({"cancelled": exit_code is None, "truncated": False, "timestamp": self._msg_ts()})
        if exclude:
            message["excludeFromContext"] = True
        return self.emit("message", {"message": message}, "bash")

    def custom_message(self, custom_type: str, content: Any, display: bool, details: Any = None) -> str:
        if self.legacy == 2:  # v2 stored these as message entries with role hookMessage
            message: dict[str, Any] = {
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
        payload: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            payload["details"] = details
        key = self.emit("custom_message", payload, "custom", ids_last=True)
        self.notable.setdefault("custom_message", key)
        return key

    def custom_entry(self, custom_type: str, data: Any = None) -> str:
        payload: dict[str, Any] = {"customType": custom_type}
        if data is not None:
            payload["data"] = data
        key = self.emit("custom", payload, ids_last=True)
        self.notable.setdefault("custom_entry", key)
        return key

    # -- words ---------------------------------------------------------------------------------

    def _fill(self, template: str) -> str:
        r = self.rng
        return template.format(file=r.choice(_FILES), func=r.choice(_FUNCS), func2=r.choice(_FUNCS) + "V2")

    def _file_body(self, path: str) -> str:
        r = self.rng
        func = r.choice(_FUNCS)
        lines = [f"// {path}", f"export async function {func}(input: string): Promise<string> {{"]
        for i in range(r.randint(2, 8)):
            lines.append(
                f"  const step{i} = await helper{i}(input); // {r.choice(('TODO', 'ok', 'see #12', 'hot path'))}"
            )
        lines += ["  return input.trim();", "}"]
        return "\n".join(lines)

    def _test_output(self, failing: bool) -> str:
        r = self.rng
        lines = [
            f"✓ {r.choice(_FUNCS)} › handles case {i} ({r.randint(1, 40)} ms)" for i in range(r.randint(2, 6))
        ]
        if failing:
            lines.append(
                f'✗ {r.choice(_FUNCS)} › rejects empty input\n  Expected: "error"\n  Received: undefined'
            )
        lines.append(f"Tests: {len(lines)} total, {int(failing)} failed")
        return "\n".join(lines)

    # -- turns ---------------------------------------------------------------------------------

    def turn_chat(self) -> None:
        self.user(self._fill(self.rng.choice(_PROMPTS)))
        content = [self.text(self._fill(self.rng.choice(_ANSWERS)))]
        if self.rng.random() < 0.4:
            content.insert(
                0, self.thinking(self._fill("The user asks about {func}; {file} is the place to look."))
            )
        self.assistant(content, "stop")

    def turn_tool_single(self) -> None:
        r = self.rng
        self.user(self._fill(r.choice(_PROMPTS)))
        path = r.choice(_FILES)
        if r.random() < 0.5:
            call = self.tool_call("read", {"path": path})
            self.assistant([self.thinking(f"I should read {path} first."), call], "toolUse")
            self.tool_result(call, self._file_body(path))
        else:
            call = self.tool_call("bash", {"command": "npm test -- --silent", "timeout": 120})
            self.assistant([self.text("Running the tests."), call], "toolUse")
            if r.random() < 0.15:
                self.custom_entry("tool-audit", {"toolCallId": call["id"], "allowed": True})
            failing = r.random() < 0.3
            self.tool_result(call, self._test_output(failing), error=failing)
        self.assistant([self.text(self._fill(r.choice(_ANSWERS)))], "stop")

    def turn_tool_parallel(self) -> None:
        r = self.rng
        self.user(self._fill("Compare {file} with the tests and tell me what is missing."))
        paths = r.sample(_FILES, r.randint(2, 3))
        calls = [self.tool_call("read", {"path": p}) for p in paths]
        self.assistant(list(calls), "toolUse")
        for call, path in zip(calls, paths, strict=True):
            self.tool_result(call, self._file_body(path))
        self.assistant(
            [self.text(self._fill("The tests do not cover {func}; I suggest adding two cases."))], "stop"
        )

    def turn_error_retry(self) -> None:
        r = self.rng
        path = r.choice(_FILES)
        func = r.choice(_FUNCS)
        self.user(f"Make {func} in {path} async.")
        bad = self.tool_call(
            "edit",
            {"path": path, "edits": [{"oldText": f"function {func}(", "newText": f"async function {func}("}]},
        )
        self.assistant([bad], "toolUse")
        self.tool_result(bad, f"Error: oldText not found in {path}", error=True, details={})
        good = self.tool_call(
            "edit",
            {
                "path": path,
                "edits": [{"oldText": f"export function {func}", "newText": f"export async function {func}"}],
            },
        )
        self.assistant([self.text("Retrying with the exact text."), good], "toolUse")
        diff = f"-export function {func}\n+export async function {func}"
        self.tool_result(
            good,
            f"Successfully replaced 1 block(s) in {path}.",
            details={"diff": diff, "firstChangedLine": r.randint(1, 80)},
        )
        self.assistant([self.text(f"{func} is async now.")], "stop")

    def turn_incomplete(self) -> None:
        """Incomplete exchange #1: two calls, one result, then the user interrupts (spec §5)."""
        r = self.rng
        self.user(self._fill("Lint {file} and check the config."))
        first = self.tool_call("bash", {"command": f"npx eslint {r.choice(_FILES)}"})
        second = self.tool_call("read", {"path": ".eslintrc.json"})
        key = self.assistant([first, second], "toolUse")
        self._note_incomplete(key, "missing_result")
        self.tool_result(first, "0 problems")
        self.user("Stop, never mind.", blocks=True)
        self.assistant([self.text("Stopped.")], "stop")

    def turn_aborted(self) -> None:
        """Incomplete exchange #2: an aborted assistant with a partial toolCall and no result."""
        self.user(self._fill("Fix the lint errors in {file}."))
        call = self.tool_call("bash", {"command": "npx eslint --fix"})
        key = self.assistant([self.text("Fixing"), call], "aborted", error="Request was aborted")
        self._note_incomplete(key, "aborted")

    def _note_incomplete(self, key: str, kind: str) -> None:
        self.notable.setdefault(f"incomplete_{kind}", key)
        if self.on_main:
            self.incomplete.append((len(self.main) - 1, kind))

    def turn_bash(self) -> None:
        r = self.rng
        if r.random() < 0.25:
            self.bash_execution("sleep 60 && make deploy", "", exit_code=None)
        else:
            output = " M src/cache.ts\n?? test/cache.test.ts\n\x1b[32m2 files changed\x1b[0m"
            self.bash_execution("git status --short", output, exclude=r.random() < 0.3)

    def turn_custom(self) -> None:
        data: Any = {
            "version": 1,
            "base": None,
            "step": self.count,
            "note": "extension state, not in LLM context",
        }
        self.custom_entry("rebase-state", data if self.rng.random() < 0.8 else None)

    def turn_custom_message(self) -> None:
        r = self.rng
        if r.random() < 0.5:
            self.custom_message(
                "rebase-note",
                "Reminder injected by an extension: keep answers short.",
                True,
                {"source": "fixtures_gen"},
            )
        else:
            self.user(self._fill(r.choice(_PROMPTS)))
            blocks = [
                {"type": "text", "text": "Context from the previous session: the cache layer was refactored."}
            ]
            self.custom_message("rebase-context", blocks, False)
            self.assistant([self.text("Understood, continuing from there.")], "stop")

    def turn_model_switch(self) -> None:
        others = [m for m in _MODELS if m != self.model]
        self.model = self.rng.choice(others)
        self.emit("model_change", {"provider": self.model.provider, "modelId": self.model.model})
        if self.rng.random() < 0.7:
            self.turn_thinking()

    def turn_thinking(self) -> None:
        self.emit("thinking_level_change", {"thinkingLevel": self.rng.choice(_THINKING_LEVELS)})

    def turn_label(self) -> None:
        if not self.main_users:
            return
        if self.labels and self.rng.random() < 0.25:
            target = self.rng.choice(sorted(self.labels))
            del self.labels[target]
            self.emit("label", {"targetId": target})  # clears the label: the key is omitted
            return
        target = self.main[self.rng.choice(self.main_users)][0]
        name = self.rng.choice(("checkpoint", "good-state", "before-refactor", "todo", "bug-repro"))
        self.labels[target] = name
        self.emit("label", {"targetId": target, "label": name})

    def turn_session_info(self) -> None:
        raw = self._fill(
            self.rng.choice(
                ("Refactor {func}\n(demo)", "  Cache work on {file}  ", "Fix {func}\r\nand tests")
            )
        )
        name = re.sub(r"[\r\n]+", " ", raw).strip()  # what appendSessionInfo stores
        self.notable["session_info"] = self.emit("session_info", {"name": name})

    def turn_term(self) -> None:
        key = self.user(f"Why does the `{self.term}` feature flag disable the cache in src/cache.ts?")
        self.notable["term_entry"] = key
        self.notable["term"] = self.term
        self.assistant(
            [self.text("The flag short-circuits `flushCache`, so nothing is ever stored.")], "stop"
        )

    def turn_unicode(self) -> None:
        """Non-ASCII, astral, combining, RTL, U+2028/U+0085, BOM-in-text and a lone surrogate."""
        key = self.user(
            "Übersetze bitte die Fehlermeldung — und was bedeutet 「キャッシュが無効です」? 🤔", blocks=True
        )
        self.notable["non_ascii_entry"] = key
        call = self.tool_call("read", {"path": "docs/i18n/日本語.md"})
        self.assistant([self.thinking("Die Datei enthält Übersetzungen; ich lese sie."), call], "toolUse")
        body = ("# 日本語\nこんにちは、世界 👋🏽\n中文：缓存无效。\n한국어: 캐시가 잘못되었습니다.\n"
                "e\u0301 vs é, n\u0303, 👨\u200d👩\u200d👧\u200d👦, 🇯🇵, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀\n"
                "مرحبا بالعالم / שלום\nline\u2028separator, next\u0085line, \ufeffbom-inside, tab\tend\n"
                "truncated emoji: \ud83c")  # fmt: skip
        self.tool_result(call, body)
        if self.legacy != 1:  # bashExecution messages are not part of the v1 model here
            self.bash_execution("ls docs/i18n", "ja.md\nzh-Hans.md\nko.md\n\x1b[1;32mdone ✔\x1b[0m")
        self.assistant(
            [self.text("「キャッシュが無効です」 heißt „Der Cache ist ungültig“. ✅ Café, naïve, 𝟘𝟙𝟚 🚀")],
            "stop",
        )

    def turn_secret(self) -> None:
        """Clearly fake credentials in the places real ones leak: prompts, tool args and outputs."""
        r = self.rng
        ghp = "ghp_FAKE" + _pick(r, _B62, 32)
        sk = "sk-proj-FAKE" + _pick(r, _B62, 44)
        akia = "AKIAFAKE" + _pick(r, _UPPER_ALNUM, 12)
        aws_secret = "FAKE" + _pick(r, _B62 + "/+", 36)
        key_lines = "\n".join("FAKEKEY" + _pick(r, _B62 + "+/", 57) for _ in range(3))
        pem = f"-----BEGIN PRIVATE KEY-----\n{key_lines}\n-----END PRIVATE KEY-----"
        self.notable["secret_user"] = self.user(
            f"The deploy fails with 403. My token is {ghp}, can you check the config?"
        )
        call = self.tool_call("read", {"path": ".env"})
        self.assistant([call], "toolUse")
        env = (f"OPENAI_API_KEY={sk}\nAWS_ACCESS_KEY_ID={akia}\nAWS_SECRET_ACCESS_KEY={aws_secret}\n"
               f"GITHUB_TOKEN={ghp}\nDATABASE_URL=postgres://app:FAKE-pass-{_pick(r, _B62, 10)}@db.internal:5432/app")  # fmt: skip
        self.notable["secret_entry"] = self.tool_result(call, env)
        curl = self.tool_call(
            "bash",
            {"command": f'curl -s -H "Authorization: Bearer {sk}" https://api.example.invalid/v1/models'},
        )
        self.assistant([curl], "toolUse")
        self.tool_result(curl, '{"error":"invalid_api_key"}', details={"exitCode": 0})
        key_call = self.tool_call("bash", {"command": "cat deploy/key.pem"})
        self.assistant([key_call], "toolUse")
        self.tool_result(key_call, pem)
        self.assistant(
            [self.text("These credentials look exposed (.env, key.pem). Rotate them before deploying.")],
            "stop",
        )
        if self.legacy != 1:
            self.bash_execution("env | grep -i token", f"GITHUB_TOKEN={ghp}")

    # -- structure -----------------------------------------------------------------------------

    def compaction(self) -> None:
        candidates = self.main_users[bisect.bisect_right(self.main_users, self.first_kept_index) :]
        if len(candidates) < 2:
            self.turn_chat()
            candidates = self.main_users[bisect.bisect_right(self.main_users, self.first_kept_index) :]
        self.first_kept_index = self.rng.choice(candidates[len(candidates) // 2 :])
        kept = self.main[self.first_kept_index][0]
        n = len(self.compactions) + 1
        summary = (f"## Goal\nRefactor the cache layer (round {n}).\n\n## Progress\n### Done\n"
                   f"- [x] Read {len(self.files_read)} files\n- [x] Changed {len(self.files_changed)} files\n\n"
                   "## Next Steps\n1. Run the full test suite")  # fmt: skip
        tokens = self.rng.randint(30_000, 190_000)
        if self.legacy == 1:
            payload: dict[str, Any] = {
                "summary": summary,
                "firstKeptEntryIndex": int(kept),
                "tokensBefore": tokens,
            }
        else:
            details = {"readFiles": sorted(self.files_read), "modifiedFiles": sorted(self.files_changed)}
            usage = self._usage(
                self.model, self.rng.randint(20_000, 60_000), self.rng.randint(300, 1500), 0, 0
            )
            payload = {"summary": summary, "firstKeptEntryId": kept, "tokensBefore": tokens, "details": details,
                       "usage": usage, "fromHook": False}  # fmt: skip
        key = self.emit("compaction", payload, "compaction")
        self.compactions.append(len(self.main) - 1)
        self.notable[f"compaction{n}"] = key
        self.notable[f"compaction{n}_first_kept"] = kept

    def branch_summary(self, parent: str, from_id: str) -> str:
        self.leaf = parent
        payload: dict[str, Any] = {
            "fromId": from_id,
            "summary": "The user explored an alternative; it was abandoned.",
        }
        if self.rng.random() < 0.7:
            payload["details"] = {"readFiles": sorted(self.files_read)[:3], "modifiedFiles": []}
            payload["usage"] = self._usage(
                self.model, self.rng.randint(1000, 5000), self.rng.randint(50, 300), 0, 0
            )
            payload["fromHook"] = False
        else:
            payload["fromHook"] = True
        return self.emit("branch_summary", payload, "branch_summary")

    def excursion(self, n: int) -> None:
        """A side branch: plain ``branch()``, ``branchWithSummary()`` or a new root, then back."""
        main_leaf = self.leaf
        assert main_leaf is not None
        style = n % 3
        stops = (self.main[i][0] for i in self.main_stops[-200:])  # recent turn ends, as /tree users pick
        points = [k for k in stops if k not in (main_leaf, self.sibling_parent)]
        if style < 2 and not points:
            return
        self.on_main = False
        if style == 0:
            self.leaf = self.rng.choice(points)
        elif style == 1:
            self.notable.setdefault("branch_summary", self.branch_summary(self.rng.choice(points), main_leaf))
        else:
            self.leaf = None  # resetLeaf(): the next entry is a second root
        for _ in range(self.rng.randint(1, 3)):
            self.rng.choice(
                (self.turn_chat, self.turn_tool_single, self.turn_incomplete, self.turn_aborted)
            )()
        assert self.leaf is not None
        self.notable[f"branch{n + 1}_leaf"] = self.leaf
        self.on_main = True
        if self.rng.random() < 0.35:
            self.branch_summary(main_leaf, self.leaf)  # /tree back to the main leaf with "summarize"
        else:
            self.leaf = main_leaf

    def siblings(self, count: int) -> None:
        """``count`` children of one parent: re-prompts from the same point; the last one continues."""
        self.turn_chat()
        parent = self.leaf
        assert parent is not None
        self.sibling_parent = parent
        self.notable["sibling_parent"] = parent
        self.on_main = False
        for i in range(count - 1):
            self.leaf = parent
            self.user(f"Attempt {i + 1}: {self._fill(self.rng.choice(_PROMPTS))}", blocks=False)
            if i % 25 == 24:
                self.assistant([self.text(f"Answer to attempt {i + 1}.")], "stop")
        self.leaf = parent
        self.on_main = True
        self.turn_chat()

    # -- the whole session ---------------------------------------------------------------------

    def progress(self) -> float:
        if self.opts.target_bytes is not None:
            return self.out.bytes / self.opts.target_bytes
        return self.count / max(1, self.opts.entries)

    def fillers(self) -> tuple[list[Callable[[], None]], list[float]]:
        table: list[tuple[Callable[[], None], float, bool]] = [
            (self.turn_chat, 3.0, True),
            (self.turn_tool_single, 4.0, True),
            (self.turn_tool_parallel, 1.5, True),
            (self.turn_error_retry, 1.0, True),
            (self.turn_incomplete, 0.8, True),
            (self.turn_aborted, 0.6, True),
            (self.turn_model_switch, 0.4, True),
            (self.turn_thinking, 0.3, True),
            (self.turn_unicode, 0.3, True),
            (self.turn_secret, 0.3, self.opts.secrets),
            (self.turn_bash, 0.8, self.legacy != 1),
            (self.turn_custom_message, 0.6, self.legacy != 1),
            (self.turn_custom, 0.6, self.legacy is None),
            (self.turn_label, 0.3, self.legacy is None),
            (self.turn_session_info, 0.15, self.legacy is None),
        ]
        active = [(f, w) for f, w, ok in table if ok]
        return [f for f, _ in active], [w for _, w in active]

    def run(self) -> None:
        self.header()
        if self.opts.entries == 0 and self.opts.target_bytes is None:
            self._finish_torn()
            return
        r = self.rng
        if self.legacy != 1:  # what createAgentSession() appends first for a new session
            self.emit("model_change", {"provider": self.model.provider, "modelId": self.model.model})
            self.emit("thinking_level_change", {"thinkingLevel": "medium"})
        self.turn_term()
        first = [self.turn_unicode] + ([self.turn_secret] if self.opts.secrets else [])
        if self.legacy == 2:
            first.append(self.turn_custom_message)  # v2's hookMessage role is what makes it v2
        r.shuffle(first)
        for turn in first:  # always present, even in small sessions
            turn()
        rest: list[Callable[[], None]] = [self.turn_tool_single, self.turn_tool_parallel, self.turn_error_retry,
                                          self.turn_incomplete, self.turn_aborted, self.turn_model_switch]  # fmt: skip
        if self.legacy != 1:
            rest += [self.turn_bash, self.turn_custom_message]
        if self.legacy is None:
            rest += [self.turn_custom]
        r.shuffle(rest)
        schedule = rest
        linear = self.legacy == 1
        events: list[tuple[float, int, str, int]] = []  # (progress, order, what, n)
        for k in range(self.opts.compactions):
            events.append(((k + 1) / (self.opts.compactions + 1), len(events), "compaction", k))
        if not linear:
            for k in range(self.opts.branches):
                events.append((r.uniform(0.2, 0.9), len(events), "branch", k))
            if self.opts.siblings > 0:
                events.append((r.uniform(0.1, 0.5), len(events), "siblings", self.opts.siblings))
        events.sort()
        turns, weights = self.fillers()
        while self.progress() < 1.0:
            if events and self.progress() >= events[0][0]:
                self._event(events.pop(0))
            elif schedule:
                schedule.pop(0)()
            else:
                r.choices(turns, weights)[0]()
        for event in events:  # events the budget did not reach still happen
            self._event(event)
        self._tail()
        self._finish_torn()

    def _event(self, event: tuple[float, int, str, int]) -> None:
        _, _, what, n = event
        if what == "compaction":
            self.compaction()
        elif what == "branch":
            self.excursion(n)
        else:
            self.siblings(n)
        self.turn_chat()

    def _tail(self) -> None:
        if self.legacy is None:
            first_user = self.main[self.main_users[0]][0]
            self.labels[first_user] = "start"
            self.emit("label", {"targetId": first_user, "label": "start"})
            if self.compactions:
                target = self.main[self.compactions[0]][0]
                self.labels[target] = "after-first-compaction"
                self.emit("label", {"targetId": target, "label": "after-first-compaction"})
            self.turn_session_info()
        self.turn_chat()

    def _finish_torn(self) -> None:
        """Torn tail: a crash mid-append leaves a partial line with no LF after a toolUse."""
        if not self.opts.torn_tail:
            return
        call_id = "toolu_01" + _pick(self.rng, _B62, 22)
        if self.count:
            self.user("Run the full test suite.")
            call = self.tool_call("bash", {"command": "npm test"})
            call_id = call["id"]
            self.assistant([call], "toolUse")
        message = {"role": "toolResult", "toolCallId": call_id, "toolName": "bash"}
        ts = iso(self._tick())
        if self.legacy == 1:
            entry: dict[str, Any] = {"type": "message", "timestamp": ts, "message": message}
        else:
            entry = {
                "type": "message",
                "id": self._new_id(),
                "parentId": self.leaf,
                "timestamp": ts,
                "message": message,
            }
        self.out.raw(js_stringify(entry)[: self.rng.randint(20, 60)], eol=False)

    def result(self, path: Path) -> GeneratedSession:
        if self.legacy != 1 and self.compactions:
            first_kept = self.main.index(
                (self.notable[f"compaction{len(self.compactions)}_first_kept"], "user")
            )
            for index, kind in self.incomplete:
                where = "archived" if index < first_kept else "active"
                self.notable.setdefault(f"incomplete_{kind}_{where}", self.main[index][0])
        if self.legacy != 1 and self.main:
            self.notable["main_leaf"] = self.main[-1][0]
        if self.legacy == 1:
            leaf: str | None = None
            self.notable = {k: v for k, v in self.notable.items() if k == "term"}
        else:
            leaf = self.leaf if self.count else None
        return GeneratedSession(path, self.session_id, self.count, leaf, dict(sorted(self.notable.items())))


# ----------------------------------------------------------------------------------------------
# public entry point


def generate(
    out_dir: Path, options: GenOptions, on_progress: ProgressCallback | None = None
) -> list[GeneratedSession]:
    """Write ``options.sessions`` files into ``out_dir``; same options, same bytes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(options.seed)
    start = BASE_CLOCK_MS
    results: list[GeneratedSession] = []
    for _ in range(options.sessions):
        session_rng = random.Random(rng.getrandbits(64))
        session_id = _uuid7(session_rng, start)
        path = out_dir / session_file_name(iso(start), session_id)
        with path.open("wb") as fh:
            session = _Session(
                session_rng, options, _Writer(fh, options.crlf, path, on_progress), start, session_id
            )
            session.run()
        results.append(session.result(path))
        start = session.clock + rng.randint(60_000, 3_600_000)
    return results


# ----------------------------------------------------------------------------------------------
# facts and fixture refresh


def file_facts(data: bytes) -> dict[str, Any]:
    """What Pi's loader (spec §1.7, §3.1) makes of these bytes, plus what is wrong with them."""
    facts: dict[str, Any] = {"sessionId": None, "entryCount": 0, "defaultLeafId": None}
    text = data.decode("utf-8", errors="replace")
    raw_lines = text.split("\n")
    unterminated = raw_lines[-1] != ""
    if not unterminated:
        raw_lines.pop()
    blank = malformed = 0
    tail_is_json = False
    parsed: list[Any] = []
    for number, line in enumerate(raw_lines, 1):
        is_tail = unterminated and number == len(raw_lines)
        if not line.strip():
            blank += 1
            continue
        try:
            value = js_parse(line)
        except JsonParseError:
            malformed += 0 if is_tail else 1  # a torn tail is reported as unterminatedTail instead
            continue
        tail_is_json = is_tail
        if value is None or value is False or value == 0:
            continue
        parsed.append(value)
    header = parsed[0] if parsed else None
    valid_header = (
        isinstance(header, dict) and header.get("type") == "session" and isinstance(header.get("id"), str)
    )
    if not data:
        facts["openResult"] = "fresh-header"
    elif not valid_header:
        facts["openResult"] = "rejected"
    else:
        assert isinstance(header, dict)
        entries = [p for p in parsed[1:] if not (isinstance(p, dict) and p.get("type") == "session")]
        version = header.get("version", 1)
        legacy = isinstance(version, (int, float)) and version < 3
        facts.update(
            sessionId=header["id"], entryCount=len(entries), openResult="migrated" if legacy else "loaded"
        )
        last = entries[-1] if entries else None
        facts["defaultLeafId"] = (
            last.get("id") if isinstance(last, dict) and isinstance(last.get("id"), str) else None
        )
        names = [e.get("name") for e in entries if isinstance(e, dict) and e.get("type") == "session_info"]
        if names:
            facts["sessionName"] = (names[-1] or "").strip() or None
        if legacy:
            facts["legacyVersion"] = int(version)
            if version < 2 and entries:  # migration ids from a counter, as oracle.mjs --deterministic-ids
                facts["defaultLeafIdWithCounterIds"] = f"{len(entries):08x}"
        facts.update(_tree_faults(entries))
    facts["lineCount"] = len(raw_lines)
    if malformed:
        facts["malformedLines"] = malformed
    if blank:
        facts["blankLines"] = blank
    if unterminated and data:
        facts["unterminatedTail"] = True
        facts["unterminatedTailIsJson"] = tail_is_json
    terminated = raw_lines[:-1] if unterminated else raw_lines
    if terminated and all(line.endswith("\r") for line in terminated):
        facts["crlf"] = True
    if data.startswith(b"\xef\xbb\xbf"):
        facts["bom"] = True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        facts["invalidUtf8"] = True
    return facts


def _tree_faults(entries: list[Any]) -> dict[str, Any]:
    """Duplicate ids, dangling parents and parent cycles: the tree faults a reader must survive."""
    objs = [e for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]
    counts = Counter(e["id"] for e in objs)
    parent = {e["id"]: e.get("parentId") for e in objs}
    faults: dict[str, Any] = {}
    duplicates = sorted(k for k, n in counts.items() if n > 1)
    if duplicates:
        faults["duplicateIds"] = duplicates
    missing = [e["id"] for e in objs if isinstance(e.get("parentId"), str) and e["parentId"] not in parent]
    if missing:
        faults["missingParents"] = missing
    in_cycle: set[str] = set()
    for start in parent:
        seen: list[str] = []
        node: Any = start
        while isinstance(node, str) and node in parent and node not in seen:
            seen.append(node)
            node = parent[node]
        if isinstance(node, str) and node in seen:
            in_cycle.update(seen[seen.index(node) :])
    if in_cycle:
        faults["parentCycle"] = sorted(in_cycle)
    return faults


def _generated_facts(item: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    gen = item["generated"]
    options = GenOptions(seed=gen["seed"], **gen["options"])
    with tempfile.TemporaryDirectory() as tmp:
        [session] = generate(Path(tmp), options)
        data = session.path.read_bytes()
    facts = file_facts(data)
    expected = {"sessionId": session.session_id, "entryCount": session.entry_count}
    if options.legacy != 1:
        expected["defaultLeafId"] = session.leaf_id
    for key, value in expected.items():
        if facts[key] != value:
            raise AssertionError(
                f"{item['id']}: generator says {key}={value!r}, the bytes say {facts[key]!r}"
            )
    facts["notable"] = session.notable
    return data, facts


def refresh_fixtures(fixtures_dir: Path, *, check: bool = False) -> list[str]:
    """Regenerate generated fixtures and recompute every fixture's facts; return what differed."""
    manifest_path = fixtures_dir / "MANIFEST.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    problems: list[str] = []
    for item in manifest["fixtures"]:
        path = fixtures_dir / item["path"]
        if item.get("generated"):
            data, facts = _generated_facts(item)
            if not path.exists() or path.read_bytes() != data:
                problems.append(f"{item['path']}: bytes differ from the generator")
                if not check:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
        else:
            facts = file_facts(path.read_bytes())
        kept = {k: v for k, v in (item.get("facts") or {}).items() if k not in facts and k != "notable"}
        facts = {**facts, **kept}
        if item.get("facts") != facts:
            problems.append(f"{item['id']}: facts changed")
            item["facts"] = facts
    if not check:
        manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return problems


def options_to_json(options: GenOptions) -> dict[str, Any]:
    """The ``generated.options`` object of a manifest entry (everything but the seed)."""
    data = dataclasses.asdict(options)
    del data["seed"]
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reference.fixturegen.generator", description=__doc__.split("\n")[0]
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--refresh", type=Path, metavar="FIXTURES_DIR", help="regenerate fixtures and facts in place"
    )
    group.add_argument(
        "--check", type=Path, metavar="FIXTURES_DIR", help="fail if fixtures or facts are stale"
    )
    args = parser.parse_args(argv)
    target: Path = args.refresh or args.check
    problems = refresh_fixtures(target, check=args.check is not None)
    if args.check is not None:
        for problem in problems:
            print(f"stale: {problem}", file=sys.stderr)
        return 1 if problems else 0
    for problem in problems:
        print(f"updated: {problem}")
    print(f"refreshed {target / 'MANIFEST.json'} ({len(problems)} change(s))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
