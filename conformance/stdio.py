"""The adapter protocol over a process boundary: one JSON message per line on stdin/stdout.

Requests are ``{"seq", "cmd": "start"|"request"|"stop", ...}``; each gets exactly one response:
``{"seq", "ok": result}``, ``{"seq", "error": {"code", "message"}}`` for a contract error, or
``{"seq", "errored": true, "context": {"message", "traceback"}}`` when the implementation broke.
Any language can serve it (the Bowtie model); the schemas are under ``schemas/adapter/v1``.
"""

from __future__ import annotations

import json
import shlex
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Final

from conformance.faults import (
    PORT_HANDSHAKE_FAILED,
    PORT_START_FAILED,
    PortDesync,
    PortErrored,
    PortExited,
    PortFault,
    PortStartFailed,
    PortTimeout,
)
from conformance.messages import (
    ErroredResponse,
    ErrorResponse,
    OkResponse,
    OperationRequest,
    Request,
    Response,
    StartRequest,
    StopRequest,
    request_name,
    response_of,
)
from conformance.portpipe import LineTimeout, LineTooLong, PortPipe
from conformance.protocol import PROTOCOL_VERSION, ContractError, ImplInfo, JsonObject
from conformance.request_checks import NOT_STARTED, Refusal, check, parse, read_line, seq_of

if TYPE_CHECKING:  # not at run time: the reference's stdio server imports this module, not jsonschema
    from conformance.message_checks import MessageChecks

DEFAULT_REQUEST_TIMEOUT: Final = 10.0
DEFAULT_START_TIMEOUT: Final = 30.0
STOP_SECONDS: Final = 2.0
EXIT_WAIT_SECONDS: Final = 1.0

Dispatch = Callable[[str, Mapping[str, Any]], JsonObject]


def _send(stdout: IO[str], message: Response, encode: Callable[[Any], str]) -> None:
    stdout.write(encode(message.to_json()) + "\n")
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
    """Answer requests until ``stop`` or end of input. ``contract_error`` carries ``code``/``message``.

    Each line is checked before it is dispatched (:mod:`conformance.request_checks`): a line that
    is not one JSON object following ``schemas/adapter/v1`` is refused with a code and one line,
    and so is a request before a successful ``start`` (``not-started``); the server goes on.
    """
    reader = stdin or sys.stdin
    writer = stdout or sys.stdout
    started = False
    while True:
        try:
            line = read_line(reader)
        except Refusal as refusal:
            _send(writer, refusal.response(), encode)
            continue
        if line is None:
            return 0
        if not line.strip():
            continue
        seq: Any = None
        try:
            message = parse(line)
            seq = seq_of(message)
            check(message)
            cmd = message["cmd"]
            if cmd == "start":
                started = True
                _send(writer, OkResponse(seq, hello), encode)
            elif cmd == "stop":
                _send(writer, OkResponse(seq, {}), encode)
                return 0
            elif not started:
                raise Refusal(NOT_STARTED, "no request is served before a successful start", seq)
            else:
                request = OperationRequest(seq, str(message["op"]), message["params"])
                _send(writer, OkResponse(seq, _dispatch(dispatch, request, contract_error)), encode)
        except Refusal as refusal:
            refusal.seq = seq
            _send(writer, refusal.response(), encode)
        except Exception as exc:  # report, never die silently: the harness records it
            _send(writer, ErroredResponse(seq, f"{type(exc).__name__}: {exc}", traceback.format_exc()), encode)


def _dispatch(dispatch: Dispatch, request: OperationRequest, contract_error: type[Exception]) -> JsonObject:
    """The operation's result; a contract error becomes a :class:`Refusal` with its code."""
    try:
        return dispatch(request.op, request.params)
    except contract_error as exc:
        raise Refusal(str(getattr(exc, "code", "error")), str(getattr(exc, "message", exc))) from None


class SubprocessAdapter:
    """Drives any implementation that serves the line protocol on its stdin/stdout.

    A request waits at most ``request_timeout`` seconds (``None``: for ever), the handshake at
    most ``start_timeout``. A port that hangs, exits or writes what is not the answer is killed
    with its whole process group and the request raises a :class:`~conformance.faults.PortFault`.
    With ``checks`` (``--validate-messages``) every line is held against the schemas both ways.
    """

    def __init__(
        self,
        command: Sequence[str] | str,
        *,
        env: Mapping[str, str] | None = None,
        request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT,
        start_timeout: float | None = DEFAULT_START_TIMEOUT,
        checks: MessageChecks | None = None,
    ) -> None:
        self.checks = checks
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        self.env = dict(env) if env is not None else None
        self.request_timeout = request_timeout
        self.start_timeout = start_timeout
        self._pipe: PortPipe | None = None
        self._last_tail = ""
        self._seq = 0
        self.info: ImplInfo | None = None

    def start(self) -> ImplInfo:
        """Start the port and complete the handshake, or raise :class:`PortStartFailed`."""
        if not self.command:
            raise PortStartFailed(PORT_START_FAILED, "no command to start")
        self._pipe = PortPipe(self.command, self.env)
        try:
            self.info = handshake_info(self._handshake())
        except BaseException:
            self.kill()
            raise
        return self.info

    def _handshake(self) -> JsonObject:
        try:
            response = self._exchange(StartRequest(self._seq + 1), self.start_timeout)
        except PortTimeout:
            raise PortStartFailed(PORT_START_FAILED, f"no handshake within {self.start_timeout or 0:g} s"
                                  f"{last_line(self._last_tail)}") from None
        except PortExited as exc:
            raise PortStartFailed(PORT_START_FAILED, f"{exc.message}{last_line(exc.stderr_tail)}") from None
        except PortFault as exc:
            raise PortStartFailed(PORT_HANDSHAKE_FAILED, exc.message) from None
        if "ok" in response and isinstance(response["ok"], dict):
            hello: JsonObject = response["ok"]
            return hello
        refusal = response.get("error") or response.get("context") or response
        raise PortStartFailed(PORT_HANDSHAKE_FAILED, f"the port refused the handshake: {json.dumps(refusal)[:300]}")

    def _fault(self, kind: type[PortFault], message: str) -> PortFault:
        """Kill the port, then describe what it did with its last stderr lines."""
        self.kill()
        return kind(message, self._last_tail)

    def _exchange(self, request: Request, timeout: float | None) -> JsonObject:
        """Send one request (numbered ``self._seq + 1``) and read its answer's line as a JSON object."""
        pipe = self._pipe
        if pipe is None:
            raise PortExited("the implementation process is not running", self._last_tail)
        line_object = request.to_json()
        if self.checks is not None:
            self.checks.request(line_object)
        self._seq = request.seq
        what = "the handshake" if isinstance(request, StartRequest) else f"request {self._seq} ({request_name(request)})"
        if (stray := pipe.pending_line()) is not None:
            raise self._fault(PortDesync, f"an unasked stdout line before {what}: {stray[:200]!r}")
        pipe.send(json.dumps(line_object) + "\n")
        try:
            line = pipe.next_line(timeout)
        except LineTimeout:
            raise self._fault(PortTimeout, f"no answer to {what} within {timeout or 0:g} s") from None
        except LineTooLong as overlong:
            raise self._fault(PortDesync, f"{overlong}, in answer to {what}") from None
        if line is None:
            code = pipe.exit_code(wait=EXIT_WAIT_SECONDS)
            ended = f"the implementation exited (code {code})" if code is not None else "the port closed its stdout"
            raise self._fault(PortExited, f"{ended} during {what}")
        response = self._parse(line, what)
        if self.checks is not None:
            self.checks.response(response, line_object)
        return response

    def _parse(self, line: str, what: str) -> JsonObject:
        try:
            response = json.loads(line)
        except (ValueError, RecursionError) as exc:  # ValueError: JSONDecodeError, or past int max str digits
            raise self._fault(PortDesync, f"not a protocol message on stdout, in answer to {what} "
                                          f"({undecodable(exc)}): {line[:200]!r}") from None
        if not isinstance(response, dict) or response.get("seq") != self._seq:
            seq = response.get("seq") if isinstance(response, dict) else None
            raise self._fault(PortDesync, f"response seq {seq!r} does not answer {what}")
        return response

    def stderr_tail(self) -> str:
        return self._pipe.stderr_tail() if self._pipe is not None else self._last_tail

    def _result(self, response: Response) -> JsonObject:
        if isinstance(response, OkResponse):
            result: JsonObject = response.result
            return result
        if isinstance(response, ErrorResponse):
            raise ContractError(response.code, response.message)
        # killed before the supervisor would: its stderr then drains, so the tail is complete
        raise self._fault(PortErrored, f"the port broke: {response.message}\n{response.traceback}".strip())

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        request = OperationRequest(self._seq + 1, op, dict(params))
        return self._result(response_of(self._exchange(request, self.request_timeout)))

    def stop(self) -> None:
        """Ask the port to stop, wait a little, then kill whatever is left of its group."""
        pipe = self._pipe
        if pipe is None:
            return
        try:
            if pipe.process.poll() is None:
                self._exchange(StopRequest(self._seq + 1), STOP_SECONDS)
        except PortFault:
            pass
        finally:
            if self._pipe is not None:
                self._pipe.close_stdin()
                self._pipe.wait(STOP_SECONDS)
                self.kill()

    def kill(self) -> None:
        """Kill the port's whole process group at once (idempotent)."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            pipe.kill()
            self._last_tail = pipe.stderr_tail()


def handshake_info(hello: JsonObject) -> ImplInfo:
    """The port's hello, checked against ``schemas/adapter/v1`` (``$defs/hello``)."""
    from conformance import schemas  # not at import time: the reference's stdio server imports this module

    version = hello.get("protocolVersion", PROTOCOL_VERSION)
    if version != PROTOCOL_VERSION:
        raise PortStartFailed(PORT_HANDSHAKE_FAILED,
                              f"the port speaks protocol version {version!r}; this harness speaks {PROTOCOL_VERSION}")
    problems = [schemas.describe(e) for e in schemas.errors(hello, "adapter/v1/message.schema.json#/$defs/hello")]
    if problems:
        raise PortStartFailed(PORT_HANDSHAKE_FAILED, f"the port's hello is not valid: {'; '.join(problems)[:300]}")
    impl = hello["implementation"]
    return ImplInfo(
        name=str(impl["name"]),
        version=str(impl["version"]),
        language=str(impl["language"]),
        protocol_version=int(version),
        capabilities=tuple(hello["operations"]),
        audit_mapping=str(hello["auditMapping"]) if "auditMapping" in hello else None,
        platform=str(hello["platform"]) if "platform" in hello else None,
    )


def undecodable(exc: ValueError | RecursionError) -> str:
    """Why a stdout line is not JSON this harness can decode, in a few words."""
    if isinstance(exc, RecursionError):
        return "nested deeper than the harness decodes"
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at character {exc.pos}"
    return str(exc).split(";")[0]  # "Exceeds the limit (4300 digits) for integer string conversion: ..."


def last_line(stderr_tail: str) -> str:
    """The port's last stderr line, for a one-line message."""
    lines = [line for line in stderr_tail.splitlines() if line.strip()]
    return f"; its last stderr line: {lines[-1].strip()[:200]!r}" if lines else ""
