"""``--validate-messages``: every protocol message held against ``schemas/adapter/v1`` (Bowtie's ``-V``).

A request is checked as an envelope only (scenarios send wrong parameters on purpose, to see
them refused): one that breaks the schema is the harness's bug, :class:`RequestOffSchema`, and
its row is ERROR. A response is checked as an envelope, then its ``ok`` result against the
operation's ``$defs/<op>/properties/result`` (an ``error`` answer as the envelope's error shape):
one that breaks the schema is :class:`ResponseOffSchema`, its row FAIL, and the step never sees
the value. The port stays in sync (its answer had the right ``seq``), so it is not restarted. An
answer to ``start`` off the schema is a failed handshake. An ``errored`` answer stays a CRASH.

Over ``--stdio`` the lines themselves are checked as they are encoded and decoded
(``SubprocessAdapter(checks=...)``); an in-process adapter is wrapped in a
:class:`ValidatingAdapter`, which checks the envelopes the same call would have on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar, Final

from jsonschema import Draft202012Validator

from conformance import schemas
from conformance.faults import PORT_HANDSHAKE_FAILED, PortStartFailed
from conformance.messages import (
    ErrorResponse,
    OkResponse,
    OperationRequest,
    Request,
    Response,
    StartRequest,
    StopRequest,
)
from conformance.protocol import Adapter, ContractError, ImplInfo, JsonObject
from conformance.statuses import Status

MESSAGE_SCHEMA: Final = "adapter/v1/message.schema.json"
OPERATIONS_SCHEMA: Final = "adapter/v1/operations.schema.json"
SHOWN_PROBLEMS: Final = 3
REQUEST_DEFS: Final = {"start": "startRequest", "request": "operationRequest", "stop": "stopRequest"}
RESPONSE_DEFS: Final = (("ok", "okResponse"), ("error", "errorResponse"), ("errored", "erroredResponse"))


class MessageOffSchema(Exception):
    """A protocol message that does not follow ``schemas/adapter/v1``; ``status`` is its row's."""

    status: ClassVar[Status] = Status.FAIL

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def report_message(self) -> str:
        return f"{self.status}: {self.message}"


class ResponseOffSchema(MessageOffSchema):
    """The port answered outside the schema: the row fails, the port goes on."""


class RequestOffSchema(MessageOffSchema):
    """The harness sent a request outside the schema: its own bug, the row is ERROR."""

    status = Status.ERROR


@cache
def validator_for(ref: str) -> Draft202012Validator:
    """One compiled validator per schema ref for the whole run (a run checks tens of thousands of messages)."""
    return schemas.validator(ref)


def problems(instance: Any, ref: str) -> list[str]:
    """What is wrong with ``instance`` under ``ref``, one ``$.path: message`` each (none: it follows it)."""
    found = sorted(validator_for(ref).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    return [schemas.describe(error) for error in found]


def _off_schema(what: str, ref: str, found: list[str]) -> str:
    more = f" (and {len(found) - SHOWN_PROBLEMS} more)" if len(found) > SHOWN_PROBLEMS else ""
    return f"{what} does not follow schemas/{ref}: {'; '.join(found[:SHOWN_PROBLEMS])}{more}"


def request_ref(request: Mapping[str, Any]) -> str:
    """The envelope schema of a request: the one its ``cmd`` names, or the whole message schema."""
    name = REQUEST_DEFS.get(str(request.get("cmd")))
    return f"{MESSAGE_SCHEMA}#/$defs/{name}" if name else MESSAGE_SCHEMA


def response_ref(response: Mapping[str, Any]) -> str:
    """The envelope schema of a response, chosen by its answer key (``ok``, ``error``, ``errored``)."""
    name = next((name for key, name in RESPONSE_DEFS if key in response), None)
    return f"{MESSAGE_SCHEMA}#/$defs/{name}" if name else MESSAGE_SCHEMA


def result_ref(request: Mapping[str, Any]) -> str | None:
    """The schema of an ``ok`` result: the operation's result, the hello for ``start``, none for ``stop``."""
    if request.get("cmd") == "start":
        return f"{MESSAGE_SCHEMA}#/$defs/hello"
    if request.get("cmd") == "request":
        return f"{OPERATIONS_SCHEMA}#/$defs/{request.get('op')}/properties/result"
    return None


def what_answered(request: Mapping[str, Any]) -> str:
    """``response to seq 12 (session.inspect)``: the words a message about a response starts with."""
    return f"response to seq {request.get('seq')} ({request.get('op') or request.get('cmd')})"


class MessageChecks:
    """The checks of one run: requests before they are sent, responses before anyone reads them."""

    def request(self, request: Mapping[str, Any]) -> None:
        """Raise :class:`RequestOffSchema` for a request whose envelope breaks the schema."""
        ref = request_ref(request)
        if found := problems(request, ref):
            what = f"request seq {request.get('seq')} ({request.get('op') or request.get('cmd')})"
            raise RequestOffSchema(f"the harness's {_off_schema(what, ref, found)} (a bug of the harness)")

    def response(self, response: Mapping[str, Any], request: Mapping[str, Any]) -> None:
        """Raise :class:`ResponseOffSchema` (for ``start``: a failed handshake) for an answer off the schema."""
        if "errored" in response:  # the port broke: a CRASH, whatever its envelope looks like
            return
        problem = self._response_problem(response, request)
        if problem is None:
            return
        if request.get("cmd") == "start":
            raise PortStartFailed(PORT_HANDSHAKE_FAILED, problem)
        raise ResponseOffSchema(problem)

    def _response_problem(self, response: Mapping[str, Any], request: Mapping[str, Any]) -> str | None:
        what = what_answered(request)
        envelope = response_ref(response)
        if found := problems(response, envelope):
            return _off_schema(what, envelope, found)
        result = result_ref(request) if "ok" in response else None
        if result is not None and (found := problems(response["ok"], result)):
            return _off_schema(what, result, found)
        return None


def hello_of(info: ImplInfo) -> JsonObject:
    """The hello an in-process adapter's :class:`ImplInfo` stands for on the wire."""
    return {
        "implementation": {"name": info.name, "version": info.version, "language": info.language},
        "protocolVersion": info.protocol_version,
        "operations": list(info.capabilities),
    }


class ValidatingAdapter:
    """An in-process adapter whose calls are checked as the messages they would be over ``--stdio``.

    Each instance numbers its messages from 1 (the start), as a fresh port process does.
    """

    def __init__(self, inner: Adapter, checks: MessageChecks) -> None:
        self.inner = inner
        self.checks = checks
        self._seq = 0

    def _sent(self, request: Request) -> Request:
        self._seq = request.seq
        self.checks.request(request.to_json())
        return request

    def start(self) -> ImplInfo:
        request = self._sent(StartRequest(self._seq + 1))
        info = self.inner.start()
        self.checks.response(OkResponse(request.seq, hello_of(info)).to_json(), request.to_json())
        return info

    def stop(self) -> None:
        self._sent(StopRequest(self._seq + 1))
        self.inner.stop()

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        request = self._sent(OperationRequest(self._seq + 1, op, dict(params)))
        try:
            result = self.inner.request(op, params)
        except ContractError as refusal:
            answer: Response = ErrorResponse(request.seq, refusal.code, refusal.message)
            self.checks.response(answer.to_json(), request.to_json())
            raise
        self.checks.response(OkResponse(request.seq, result).to_json(), request.to_json())
        return result

    def __getattr__(self, name: str) -> Any:
        """Anything else is the wrapped adapter's."""
        if name == "inner":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)
