"""Message entries as Pi 0.84.3 writes them: user, assistant, tool calls and results, bash, custom.

Why: each payload has its provider's shape (response ids, signatures, call ids) and Pi's key order
(pi-session-model.md §4); the turns compose these, never raw dicts.
"""

from __future__ import annotations

import base64
from typing import Any

from reference.fixturegen.growing_session import GrowingSession
from reference.fixturegen.vocabulary import B62, Model, pick
from reference.primitives.jsonbytes import JsonObject, js_stringify


class MessageBuilder(GrowingSession):
    """Appends one message (or custom) entry per call, under the current leaf."""

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
