"""What a protocol server checks before it dispatches a line: the request against ``schemas/adapter/v1``.

:func:`read_line` takes one line of at most :data:`MAX_LINE_CHARS` characters (a longer one is
refused without being kept: ``request-too-large``); :func:`parse` refuses what is not one JSON
object (``invalid-request``); :func:`check` holds the object against the envelope of its ``cmd``
(``invalid-request``, ``unknown-command``, ``unknown-operation``) and a request's ``params``
against its operation's (``invalid-params``). Every refusal is a :class:`Refusal` with a code and
one short line; none carries a traceback. jsonschema is imported at the first line after the
handshake, not when a server starts: the ``start`` line is checked by hand (:func:`start_problem`,
held to the schema's verdict by the tests), so ``recall-rebase host --stdio`` answers its
handshake as fast as it did without the checks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import IO, Any, Final

from conformance.messages import ErrorResponse
from conformance.protocol import PROTOCOL_VERSION

#: The longest request line a server reads, in characters, its LF not counted (8 MiB).
MAX_LINE_CHARS: Final = 8 * 1024 * 1024
#: How much of an over-long line is read at a time while it is skipped.
SKIP_CHUNK_CHARS: Final = 1024 * 1024
#: ``Number.MAX_SAFE_INTEGER``: the largest ``seq`` (and clock value) the protocol carries.
MAX_SAFE_INTEGER: Final = 2**53 - 1
#: The longest refusal message.
MESSAGE_CHARS: Final = 300
COMMANDS: Final = ("start", "request", "stop")
ENVELOPES: Final = {"start": "startRequest", "request": "operationRequest", "stop": "stopRequest"}
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
MESSAGE_SCHEMA: Final = "adapter/v1/message.schema.json"
OPERATIONS_SCHEMA: Final = "adapter/v1/operations.schema.json"

INVALID_REQUEST: Final = "invalid-request"
INVALID_PARAMS: Final = "invalid-params"
REQUEST_TOO_LARGE: Final = "request-too-large"
NOT_STARTED: Final = "not-started"
UNKNOWN_COMMAND: Final = "unknown-command"
UNKNOWN_OPERATION: Final = "unknown-operation"
UNSUPPORTED_PROTOCOL_VERSION: Final = "unsupported-protocol-version"


class Refusal(Exception):
    """A line the server answers with ``{"seq", "error": {code, message}}`` and then goes on."""

    def __init__(self, code: str, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = one_line(message)
        self.seq = seq

    def response(self) -> ErrorResponse:
        return ErrorResponse(self.seq, self.code, self.message)


def one_line(text: str) -> str:
    """``text`` as one non-empty line of at most :data:`MESSAGE_CHARS` characters."""
    flat = " ".join(text.split()) or "refused"
    return flat if len(flat) <= MESSAGE_CHARS else flat[: MESSAGE_CHARS - 3] + "..."


def read_line(reader: IO[str]) -> str | None:
    """The next line (``None`` at end of input); one longer than :data:`MAX_LINE_CHARS` raises
    ``request-too-large`` once its end has been read past, chunk by chunk, so it is never kept whole."""
    line = reader.readline(MAX_LINE_CHARS + 1)
    if not line:
        return None
    if len(line) <= MAX_LINE_CHARS or line.endswith("\n"):
        return line
    while (rest := reader.readline(SKIP_CHUNK_CHARS)) and not rest.endswith("\n"):
        pass
    raise Refusal(REQUEST_TOO_LARGE, f"a request line may have at most {MAX_LINE_CHARS} characters")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse(line: str) -> dict[str, Any]:
    """One JSON object, as ``JSON.parse`` reads it (no BOM, no NaN, nothing after the value)."""
    if _SURROGATE.search(line):  # undecodable bytes (surrogateescape)
        raise Refusal(INVALID_REQUEST, "the line is not UTF-8")
    try:
        message = json.loads(line, parse_constant=_no_constant)
    except RecursionError:
        raise Refusal(INVALID_REQUEST, "the line is nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        raise Refusal(INVALID_REQUEST, f"the line is not one JSON value: {exc.msg} at column {exc.colno}") from None
    except ValueError as exc:  # a NaN literal, an integer of more than 4,300 digits
        raise Refusal(INVALID_REQUEST, f"the line is not valid JSON: {exc}") from None
    if not isinstance(message, dict):
        raise Refusal(INVALID_REQUEST, f"a request is a JSON object, not {_kind(message)}")
    return message


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def seq_of(message: Mapping[str, Any]) -> int | None:
    """The request's ``seq`` when it is one the schema allows, else ``None`` (the answer's seq is then null)."""
    seq = message.get("seq")
    if isinstance(seq, int) and not isinstance(seq, bool) and 1 <= seq <= MAX_SAFE_INTEGER:
        return seq
    return None


def _problems(instance: Any, ref: str) -> list[str]:
    from conformance.message_checks import problems  # jsonschema: at the first check, not at start-up

    try:
        return problems(instance, ref)
    except RecursionError:
        return ["$: nested too deeply to check"]


def check(message: Mapping[str, Any], operations: frozenset[str] | None = None) -> None:
    """Refuse a message that breaks its ``cmd``'s envelope or, for a request, its operation's params.

    ``operations`` are the names the schema knows (default: ``$defs/operationName``).
    """
    seq = seq_of(message)
    cmd = message.get("cmd")
    if not isinstance(cmd, str):
        raise Refusal(INVALID_REQUEST, "a request needs a string 'cmd' (start, request or stop)", seq)
    if cmd not in COMMANDS:
        raise Refusal(UNKNOWN_COMMAND, f"unknown cmd {cmd[:80]!r}", seq)
    version = message.get("protocolVersion")
    if cmd == "start" and isinstance(version, int) and not isinstance(version, bool) and version != PROTOCOL_VERSION:
        raise Refusal(UNSUPPORTED_PROTOCOL_VERSION, f"this host speaks protocol version {PROTOCOL_VERSION}", seq)
    op = message.get("op")
    if cmd == "request" and isinstance(op, str) and op not in (operations or operation_names()):
        raise Refusal(UNKNOWN_OPERATION, f"operation {op[:80]!r} is not in protocol version 1", seq)
    if cmd == "start":  # by hand, as $defs/startRequest says: the handshake never waits for jsonschema
        if problem := start_problem(message):
            raise Refusal(INVALID_REQUEST, f"the start line does not follow schemas/{MESSAGE_SCHEMA}: {problem}", seq)
        return
    if cmd == "request" and "params" in message and not isinstance(message["params"], dict):
        raise Refusal(INVALID_PARAMS, f"params must be an object, not {_kind(message['params'])}", seq)
    if found := _problems(dict(message), f"{MESSAGE_SCHEMA}#/$defs/{ENVELOPES[cmd]}"):
        raise Refusal(INVALID_REQUEST, f"the {cmd} line does not follow schemas/{MESSAGE_SCHEMA}: {found[0]}", seq)
    if cmd == "request":
        check_params(str(op), message["params"], seq)


def check_params(op: str, params: Any, seq: int | None = None) -> None:
    """``invalid-params`` for params that break ``$defs/<op>/properties/params`` (an operation the
    schema does not name is not checked: its answer is ``unknown-operation``)."""
    if op in operation_names() and (found := _problems(params, f"{OPERATIONS_SCHEMA}#/$defs/{op}/properties/params")):
        raise Refusal(INVALID_PARAMS, f"{op} params: {found[0]}", seq)


def start_problem(message: Mapping[str, Any]) -> str | None:
    """What breaks ``$defs/startRequest`` (``tests/adapter`` holds it to jsonschema's verdict), or None."""
    if seq_of(message) is None:
        return "$.seq: not an integer from 1 to 2^53-1"
    if message.get("protocolVersion") != PROTOCOL_VERSION or isinstance(message.get("protocolVersion"), bool):
        return f"$.protocolVersion: not {PROTOCOL_VERSION}"
    if extra := sorted(set(message) - {"seq", "cmd", "protocolVersion"}):
        return f"$: unexpected key {extra[0][:80]!r}"
    return None


@cache
def operation_names() -> frozenset[str]:
    """The operation names of ``schemas/adapter/v1/operations.schema.json`` (``$defs/operationName``)."""
    from conformance.suite import schemas_dir

    document = json.loads((schemas_dir() / OPERATIONS_SCHEMA).read_text(encoding="utf-8"))
    return frozenset(document["$defs"]["operationName"]["enum"])
