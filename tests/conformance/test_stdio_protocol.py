"""The line protocol of ``recall-rebase host --stdio``: every message matches its schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conformance import schemas
from conformance.protocol import ContractError
from conformance.stdio import SubprocessAdapter

HOST = [sys.executable, "-m", "reference.cli", "host", "--stdio"]


def exchange(lines: list[dict[str, object] | str]) -> list[dict[str, object]]:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    done = subprocess.run(HOST, input=text, capture_output=True, text=True, timeout=60)
    assert done.stderr == ""
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_request_gets_one_schema_valid_response(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text('{"type":"session","version":3,"id":"s","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}\n')
    requests: list[dict[str, object] | str] = [
        {"seq": 1, "cmd": "start", "protocolVersion": 1},
        {"seq": 2, "cmd": "request", "op": "session.inspect", "params": {"path": str(session)}},
        {"seq": 3, "cmd": "request", "op": "session.inspect", "params": {"path": str(tmp_path / "none")}},
        {"seq": 4, "cmd": "request", "op": "no.such", "params": {}},
        {"seq": 5, "cmd": "request", "op": "text.measure", "params": {"text": "\ud800"}},
        {"seq": 6, "cmd": "stop"},
    ]
    for request in requests:  # seq 4 names an unknown operation on purpose
        assert bool(schemas.errors(request, "adapter/v1/message.schema.json")) == (request["seq"] == 4)
    responses = exchange(requests)
    assert [r["seq"] for r in responses] == [1, 2, 3, 4, 5, 6]
    for response in responses:
        assert [schemas.describe(e) for e in schemas.errors(response, "adapter/v1/message.schema.json")] == []
    assert responses[0]["ok"]["protocolVersion"] == 1  # type: ignore[index]
    assert schemas.errors(responses[0]["ok"], "adapter/v1/message.schema.json#/$defs/hello") == []
    result = responses[1]["ok"]
    assert schemas.errors(result, "adapter/v1/operations.schema.json#/$defs/session.inspect/properties/result") == []
    assert responses[2]["error"]["code"] == "session-file-missing"  # type: ignore[index]
    assert responses[3]["error"]["code"] == "unknown-operation"  # type: ignore[index]
    assert responses[4]["ok"] == {"utf16Length": 1, "utf8Length": 3, "tokens": 1}


def test_garbage_and_wrong_versions_are_answered_not_fatal() -> None:
    responses = exchange(["this is not json", {"seq": 2, "cmd": "start", "protocolVersion": 99},
                          {"seq": 3, "cmd": "stop"}])
    assert responses[0] == {"seq": None, "error": {  # a protocol refusal with a code, no traceback
        "code": "invalid-request", "message": "the line is not one JSON value: Expecting value at column 1"}}
    assert responses[1]["error"]["code"] == "unsupported-protocol-version"  # type: ignore[index]
    assert responses[2] == {"seq": 3, "ok": {}}


def test_subprocess_adapter_round_trip() -> None:
    adapter = SubprocessAdapter(HOST)
    info = adapter.start()
    try:
        assert info.protocol_version == 1 and "session.inspect" in info.capabilities
        assert adapter.request("path.sessionDirName", {"cwd": "/a/b"}) == {"name": "--a-b--"}
        try:
            adapter.request("json.canonicalize", {"text": "{"})
        except ContractError as exc:
            assert exc.code == "invalid-json"
        else:
            raise AssertionError("invalid JSON was accepted")
    finally:
        adapter.stop()
