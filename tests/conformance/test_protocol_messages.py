"""The protocol's lines as typed values: written in the wire's key order, each valid under its
``$defs`` of ``schemas/adapter/v1/message.schema.json``, and a port's line read back by its answer key."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance import schemas
from conformance.messages import (
    ErroredResponse,
    ErrorResponse,
    OkResponse,
    OperationRequest,
    StartRequest,
    StopRequest,
    request_name,
    response_of,
)
from conformance.protocol import PROTOCOL_VERSION

MESSAGE = "adapter/v1/message.schema.json"

WRITTEN = [
    (StartRequest(1), '{"seq": 1, "cmd": "start", "protocolVersion": 1}', "startRequest"),
    (OperationRequest(2, "text.measure", {"text": "a"}),
     '{"seq": 2, "cmd": "request", "op": "text.measure", "params": {"text": "a"}}', "operationRequest"),
    (StopRequest(3), '{"seq": 3, "cmd": "stop"}', "stopRequest"),
    (OkResponse(4, {}), '{"seq": 4, "ok": {}}', "okResponse"),
    (ErrorResponse(None, "invalid-request", "the line is not UTF-8"),
     '{"seq": null, "error": {"code": "invalid-request", "message": "the line is not UTF-8"}}', "errorResponse"),
    (ErroredResponse(5, "KeyError: 'x'", "Traceback ..."),
     '{"seq": 5, "errored": true, "context": {"message": "KeyError: \'x\'", "traceback": "Traceback ..."}}',
     "erroredResponse"),
]


@pytest.mark.parametrize(("message", "line", "definition"), WRITTEN, ids=[d for _, _, d in WRITTEN])
def test_a_message_is_written_as_its_line_and_follows_its_definition(message: Any, line: str, definition: str) -> None:
    assert json.dumps(message.to_json()) == line
    assert schemas.errors(message.to_json(), f"{MESSAGE}#/$defs/{definition}") == []


def test_the_start_request_speaks_this_harness_protocol_version() -> None:
    assert StartRequest(1).protocol_version == PROTOCOL_VERSION


def test_a_request_is_named_by_its_operation_else_its_command() -> None:
    assert [request_name(r) for r in (StartRequest(1), OperationRequest(2, "session.inspect", {}), StopRequest(3))] \
        == ["start", "session.inspect", "stop"]


@pytest.mark.parametrize("message", [m for m, _, d in WRITTEN if d.endswith("Response")], ids=repr)
def test_a_response_reads_back_as_itself(message: Any) -> None:
    assert response_of(json.loads(json.dumps(message.to_json()))) == message


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ({"seq": 1, "ok": [1, 2]}, OkResponse(1, [1, 2])),  # off the schema: the step sees what came
        ({"seq": 1, "ok": {}, "error": {"code": "x"}}, OkResponse(1, {})),  # ok wins, as it always has
        ({"seq": 2, "error": {"code": "no-such"}}, ErrorResponse(2, "no-such", "None")),
        ({"seq": 3, "errored": True}, ErroredResponse(3, "None", "")),
        ({"seq": 4}, ErroredResponse(4, "None", "")),  # no answer key: the port broke
        ({"seq": 5, "errored": True, "context": {"message": 7, "traceback": None}}, ErroredResponse(5, "7", "None")),
    ],
)
def test_a_port_line_off_the_schema_reads_as_leniently_as_ever(line: dict[str, Any], read: Any) -> None:
    assert response_of(line) == read
