"""The adapter protocol over a process boundary: one JSON message per line on stdin/stdout.

Requests are ``{"seq", "cmd": "start"|"request"|"stop", ...}``; each gets exactly one response:
``{"seq", "ok": result}``, ``{"seq", "error": {"code", "message"}}`` for a contract error, or
``{"seq", "errored": true, "context": {"message", "traceback"}}`` when the implementation broke.
Any language can serve it (the Bowtie model); the schemas are under ``schemas/adapter/v1``.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from conformance.protocol import (
    PROTOCOL_VERSION,
    AdapterCrashed,
    ContractError,
    ImplInfo,
    JsonObject,
)

Dispatch = Callable[[str, Mapping[str, Any]], JsonObject]


def _send(stdout: IO[str], message: JsonObject, encode: Callable[[Any], str]) -> None:
    stdout.write(encode(message) + "\n")
    stdout.flush()


def serve(
    dispatch: Dispatch,
    hello: JsonObject,
    contract_error: type[Exception],
    *,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    encode: Callable[[Any], str] = json.dumps,
) -> int:
    """Answer requests until ``stop`` or end of input. ``contract_error`` carries ``code``/``message``."""
    reader = stdin or sys.stdin
    writer = stdout or sys.stdout
    for line in reader:
        if not line.strip():
            continue
        seq: Any = None
        try:
            message = json.loads(line)
            seq = message.get("seq")
            cmd = message.get("cmd")
            if cmd == "start":
                if message.get("protocolVersion") != PROTOCOL_VERSION:
                    _send(writer, {"seq": seq, "error": {
                        "code": "unsupported-protocol-version",
                        "message": f"this host speaks protocol version {PROTOCOL_VERSION}",
                    }}, encode)
                    continue
                _send(writer, {"seq": seq, "ok": hello}, encode)
            elif cmd == "request":
                try:
                    result = dispatch(str(message.get("op")), message.get("params") or {})
                except contract_error as exc:
                    _send(writer, {"seq": seq, "error": {
                        "code": getattr(exc, "code", "error"), "message": getattr(exc, "message", str(exc)),
                    }}, encode)
                    continue
                _send(writer, {"seq": seq, "ok": result}, encode)
            elif cmd == "stop":
                _send(writer, {"seq": seq, "ok": {}}, encode)
                return 0
            else:
                _send(writer, {"seq": seq, "error": {"code": "unknown-command", "message": f"unknown cmd {cmd!r}"}},
                      encode)
        except Exception as exc:  # report, never die silently: the harness records it
            _send(writer, {"seq": seq, "errored": True, "context": {
                "message": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(),
            }}, encode)
    return 0


class SubprocessAdapter:
    """Drives any implementation that serves the line protocol on its stdin/stdout."""

    def __init__(self, command: Sequence[str] | str, *, env: Mapping[str, str] | None = None) -> None:
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        self.env = dict(env) if env is not None else None
        self._process: subprocess.Popen[str] | None = None
        self._seq = 0
        self._stderr: list[str] = []
        self.info: ImplInfo | None = None

    def _drain_stderr(self, stream: IO[str]) -> None:
        for line in stream:
            self._stderr.append(line)
            del self._stderr[:-200]

    def _exchange(self, message: JsonObject) -> JsonObject:
        process = self._process
        if process is None or process.stdin is None or process.stdout is None:
            raise AdapterCrashed("the implementation process is not running")
        self._seq += 1
        message = {"seq": self._seq, **message}
        try:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except (BrokenPipeError, OSError) as exc:
            raise AdapterCrashed(f"lost the implementation process: {exc}; stderr: {self.stderr_tail()}") from None
        if not line:
            code = process.poll()
            raise AdapterCrashed(f"the implementation exited (code {code}); stderr: {self.stderr_tail()}")
        try:
            response: JsonObject = json.loads(line)
        except json.JSONDecodeError:
            raise AdapterCrashed(f"not a protocol message on stdout: {line[:200]!r}") from None
        if response.get("seq") != self._seq:
            raise AdapterCrashed(f"response seq {response.get('seq')!r} does not answer request {self._seq}")
        return response

    def stderr_tail(self) -> str:
        return "".join(self._stderr[-20:]).strip()

    def start(self) -> ImplInfo:
        self._process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
            env=self.env,
        )
        assert self._process.stderr is not None
        threading.Thread(target=self._drain_stderr, args=(self._process.stderr,), daemon=True).start()
        response = self._exchange({"cmd": "start", "protocolVersion": PROTOCOL_VERSION})
        hello = self._result(response)
        if hello.get("protocolVersion") != PROTOCOL_VERSION:
            raise AdapterCrashed(f"the implementation speaks protocol {hello.get('protocolVersion')!r}")
        impl = hello.get("implementation", {})
        self.info = ImplInfo(
            name=str(impl.get("name")),
            version=str(impl.get("version")),
            language=str(impl.get("language")),
            protocol_version=int(hello["protocolVersion"]),
            capabilities=tuple(hello.get("operations", ())),
        )
        return self.info

    def _result(self, response: JsonObject) -> JsonObject:
        if "ok" in response:
            result: JsonObject = response["ok"]
            return result
        if "error" in response:
            error = response["error"]
            raise ContractError(str(error.get("code")), str(error.get("message")))
        context = response.get("context", {})
        raise AdapterCrashed(f"{context.get('message')}\n{context.get('traceback', '')}")

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        return self._result(self._exchange({"cmd": "request", "op": op, "params": dict(params)}))

    def stop(self) -> None:
        process = self._process
        if process is None:
            return
        try:
            if process.poll() is None:
                self._exchange({"cmd": "stop"})
        except AdapterCrashed:
            pass
        finally:
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            self._process = None
