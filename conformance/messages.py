"""The lines of the adapter protocol as typed values: three requests and three responses.

``schemas/adapter/v1/message.schema.json`` names them (``startRequest``, ``operationRequest``,
``stopRequest``; ``okResponse``, ``errorResponse``, ``erroredResponse``) and this module gives
each a frozen class, the way Bowtie types every command and response. JSON stays at the line:
``to_json()`` is the object a message is written as (keys in the order of the wire), and
:func:`response_of` reads the object a port wrote into its response. What ``--validate-messages``
holds against the schema is those objects, not these values
(:mod:`conformance.message_checks`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from conformance.protocol import PROTOCOL_VERSION, JsonObject


@dataclass(frozen=True)
class StartRequest:
    """``start``: the handshake, in the protocol version this harness speaks."""

    cmd: ClassVar[str] = "start"
    seq: int
    protocol_version: int = PROTOCOL_VERSION

    def to_json(self) -> JsonObject:
        return {"seq": self.seq, "cmd": self.cmd, "protocolVersion": self.protocol_version}


@dataclass(frozen=True)
class OperationRequest:
    """``request``: one operation of the protocol with its parameters."""

    cmd: ClassVar[str] = "request"
    seq: int
    op: str
    params: JsonObject

    def to_json(self) -> JsonObject:
        return {"seq": self.seq, "cmd": self.cmd, "op": self.op, "params": self.params}


@dataclass(frozen=True)
class StopRequest:
    """``stop``: the port answers, then ends."""

    cmd: ClassVar[str] = "stop"
    seq: int

    def to_json(self) -> JsonObject:
        return {"seq": self.seq, "cmd": self.cmd}


Request = StartRequest | OperationRequest | StopRequest


def request_name(request: Request) -> str:
    """What a request asks for in a message: its operation, else its command."""
    return request.op if isinstance(request, OperationRequest) else request.cmd


@dataclass(frozen=True)
class OkResponse:
    """``ok``: the result of an operation, the hello of a ``start``, ``{}`` for a ``stop``."""

    seq: int | None
    result: Any

    def to_json(self) -> JsonObject:
        return {"seq": self.seq, "ok": self.result}


@dataclass(frozen=True)
class ErrorResponse:
    """``error``: a contract code and its one line (bad input, the server goes on)."""

    seq: int | None
    code: str
    message: str

    def to_json(self) -> JsonObject:
        return {"seq": self.seq, "error": {"code": self.code, "message": self.message}}


@dataclass(frozen=True)
class ErroredResponse:
    """``errored``: the implementation broke outside the contract; what it said and its traceback."""

    seq: int | None
    message: str
    traceback: str

    def to_json(self) -> JsonObject:
        return {"seq": self.seq, "errored": True, "context": {"message": self.message, "traceback": self.traceback}}


Response = OkResponse | ErrorResponse | ErroredResponse


def response_of(line: JsonObject) -> Response:
    """The response a port's decoded line is, by its answer key: ``ok``, else ``error``, else broken.

    Read as leniently as the harness always has (``--validate-messages`` is what holds a line to
    the schema): a missing code or message reads as the text ``None``; a line with no answer key
    is an ``errored`` one."""
    seq = line.get("seq")
    if "ok" in line:
        return OkResponse(seq, line["ok"])
    if "error" in line:
        error = line["error"]
        return ErrorResponse(seq, str(error.get("code")), str(error.get("message")))
    context = line.get("context", {})
    return ErroredResponse(seq, str(context.get("message")), str(context.get("traceback", "")))
