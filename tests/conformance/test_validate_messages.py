"""``conformance run --validate-messages``: every request and response held against ``schemas/adapter/v1``.

A port answering one result of a wrong type (a field the steps never read) passes without the
flag and fails exactly that row with it, over ``--stdio`` and in-process, without a restart.
The pieces (the request envelope, the error shape, the hello, the validator cache and the row
status) are checked one at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from testkit.ports import HOST, Run, faulty_port, live_pids, recorded_pids, run_plugin_in_process, run_suite

from conformance import message_checks, row_status, schemas
from conformance.cli import build_parser
from conformance.faults import PORT_HANDSHAKE_FAILED, PortStartFailed
from conformance.message_checks import (
    MessageChecks,
    RequestOffSchema,
    ResponseOffSchema,
    ValidatingAdapter,
    validator_for,
)
from conformance.protocol import ContractError, ImplInfo, JsonObject
from conformance.statuses import Status
from conformance.stdio import SubprocessAdapter

AREA = ("--area", "STATUS")
BROKEN_ROW = "STATUS-002"  # the scenario of the run's second history.open
RESULT_PATH = "schemas/adapter/v1/operations.schema.json#/$defs/history.open/properties/result"
REPORT_SCHEMA = "report/v1/report-line.schema.json"
RUN_SECONDS = 120


def schema_problems(lines: list[dict[str, Any]]) -> list[str]:
    return [schemas.describe(e) for line in lines for e in schemas.errors(line, REPORT_SCHEMA)]


def test_a_response_off_the_schema_fails_exactly_its_row_over_stdio(tmp_path: Path, state: Path) -> None:
    port = faulty_port("bad-result", state, op="history.open", nth=2)
    run = run_suite(tmp_path, port, *AREA, "--validate-messages", seconds=RUN_SECONDS)
    assert live_pids(state) == []
    assert run.code == 1, run.stdout + run.stderr
    assert list(run.not_passed()) == [BROKEN_ROW]
    row = run.rows[BROKEN_ROW]
    assert row["status"] == "FAIL"
    assert row["message"].startswith(f"FAIL: response to seq 5 (history.open) does not follow {RESULT_PATH}: "
                                     "$.sessionId: ")
    assert run.summary["counts"] == {"PASS": len(run.rows) - 1, "FAIL": 1} and len(run.rows) >= 5
    assert len(recorded_pids(state)) == 2  # one proxy and its host: the port stayed in sync, no restart
    assert schema_problems(run.lines) == []
    assert "Traceback" not in run.stdout + run.stderr


def test_without_the_flag_the_same_port_passes(tmp_path: Path, state: Path) -> None:
    run = run_suite(tmp_path, faulty_port("bad-result", state, op="history.open", nth=2), *AREA,
                    seconds=RUN_SECONDS)
    assert live_pids(state) == []
    assert (state / "fired").exists()  # the port did answer off the schema: the steps never read it
    assert run.code == 0, run.stdout + run.stderr
    assert run.rows[BROKEN_ROW]["status"] == "PASS" and run.not_passed() == {}


def run_in_process(tmp_path: Path, adapter: str, *options: str) -> Run:
    """The STATUS rows against an in-process ``adapter`` (``module:attr``)."""
    return run_plugin_in_process(tmp_path, adapter, "--rr-area", "STATUS", *options)


@pytest.mark.parametrize("validate", [True, False])
def test_an_in_process_result_off_the_schema_fails_its_row_only_when_validated(tmp_path: Path,
                                                                               validate: bool) -> None:
    options = ["--rr-validate-messages"] if validate else []
    run = run_in_process(tmp_path, "testkit.ports.broken_inprocess:WrongTypeOnce", *options)
    assert schema_problems(run.lines) == []
    assert len(run.rows) >= 5, run.stdout[-3000:]
    if not validate:
        assert run.not_passed() == {}
        return
    assert list(run.not_passed()) == [BROKEN_ROW], run.stdout[-3000:]
    message = run.rows[BROKEN_ROW]["message"]
    assert run.rows[BROKEN_ROW]["status"] == "FAIL"  # not CRASH: the supervisor kept the adapter
    assert f"(history.open) does not follow {RESULT_PATH}: $.sessionId: 7 is not of type" in message


class Fake:
    """An in-process adapter answering ``answers[op]`` (a result, or a ContractError to raise)."""

    def __init__(self, answers: Mapping[str, Any], info: ImplInfo | None = None) -> None:
        self.answers = answers
        self.info = info or ImplInfo("fake", "0", "python", 1, ("text.measure", "path.canonical"))
        self.calls: list[str] = []

    def start(self) -> ImplInfo:
        return self.info

    def stop(self) -> None:
        return None

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        self.calls.append(op)
        answer = self.answers[op]
        if isinstance(answer, Exception):
            raise answer
        result: JsonObject = answer
        return result


def test_a_request_off_the_envelope_is_the_harness_s_error_and_never_reaches_the_port() -> None:
    inner = Fake({})
    adapter = ValidatingAdapter(inner, MessageChecks())
    adapter.start()
    with pytest.raises(RequestOffSchema) as raised:
        adapter.request("no.such.operation", {"text": "x"})
    assert raised.value.status == Status.ERROR
    assert ("request seq 2 (no.such.operation) does not follow "
            "schemas/adapter/v1/message.schema.json#/$defs/operationRequest: $.op: ") in raised.value.message
    assert inner.calls == []


def test_invalid_params_are_never_held_against_a_request() -> None:
    refusal = ContractError("invalid-params", "text must be a string")
    adapter = ValidatingAdapter(Fake({"text.measure": refusal}), MessageChecks())
    adapter.start()
    with pytest.raises(ContractError) as refused:  # the step sees the refusal it asked for
        adapter.request("text.measure", {"text": 3, "extra": [1]})
    assert refused.value is refusal


@pytest.mark.parametrize(("answer", "says"), [
    ({"utf16Length": "1", "utf8Length": 1, "tokens": 1},
     "/$defs/text.measure/properties/result: $.utf16Length: '1' is not of type 'integer'"),
    ({"utf16Length": 1, "utf8Length": 1, "tokens": 1, "extra": True},
     "/$defs/text.measure/properties/result: $: Additional properties are not allowed"),
    (ContractError("Not A Code", "refused"), "message.schema.json#/$defs/errorResponse: $.error.code: "),
    (ContractError("invalid-params", ""), "message.schema.json#/$defs/errorResponse: $.error.message: "),
])
def test_a_response_off_the_schema_is_a_failure_the_step_never_sees(answer: Any, says: str) -> None:
    adapter = ValidatingAdapter(Fake({"text.measure": answer}), MessageChecks())
    adapter.start()
    with pytest.raises(ResponseOffSchema) as raised:
        adapter.request("text.measure", {"text": "x"})
    assert raised.value.status == Status.FAIL
    assert raised.value.message.startswith("response to seq 2 (text.measure) does not follow schemas/adapter/v1/")
    assert says in raised.value.message


def test_an_in_process_hello_off_the_schema_is_a_failed_handshake() -> None:
    twice = ImplInfo("fake", "0", "python", 1, ("text.measure", "text.measure"))
    with pytest.raises(PortStartFailed) as failed:
        ValidatingAdapter(Fake({}, twice), MessageChecks()).start()
    assert failed.value.code == PORT_HANDSHAKE_FAILED
    assert "response to seq 1 (start) does not follow schemas/adapter/v1/message.schema.json#/$defs/hello: " \
           "$.operations: " in failed.value.message


def test_over_stdio_a_request_off_the_envelope_is_not_sent_and_the_port_stays_in_sync() -> None:
    port = SubprocessAdapter(HOST, checks=MessageChecks(), request_timeout=30, start_timeout=60)
    try:
        port.start()
        with pytest.raises(RequestOffSchema, match=r"request seq 2 \(no\.such\.operation\)"):
            port.request("no.such.operation", {})
        assert port.request("text.measure", {"text": "ab"})["utf16Length"] == 2  # seq 2 after all
    finally:
        port.kill()


def test_a_message_off_the_schema_makes_its_row_fail_or_error_in_any_phase() -> None:
    for error, when, status in [
        (ResponseOffSchema("response to seq 3 (text.measure) does not follow …"), "call", Status.FAIL),
        (ResponseOffSchema("response to seq 3 (text.measure) does not follow …"), "setup", Status.FAIL),
        (RequestOffSchema("the harness's request seq 3 …"), "call", Status.ERROR),
    ]:
        row = row_status.new_row("PRIM-001", "primitives", "title")
        report = SimpleNamespace(duration=0.1, when=when, failed=True, skipped=False, passed=False,
                                 longreprtext="Traceback … stdio.py:166 in request")
        row_status.after_phase(row, report, error, None)  # type: ignore[arg-type]
        assert row["status"] == status
        assert row["message"] == f"{status}: {error}"


def test_one_validator_is_compiled_per_schema_ref(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = schemas.validator

    def counting(ref: str) -> Any:
        compiled.append(ref)
        return real(ref)

    validator_for.cache_clear()
    monkeypatch.setattr(message_checks.schemas, "validator", counting)
    try:
        checks = MessageChecks()
        for seq in range(2, 202):
            request = {"seq": seq, "cmd": "request", "op": "text.measure", "params": {"text": "x"}}
            checks.request(request)
            checks.response({"seq": seq, "ok": {"utf16Length": 1, "utf8Length": 1, "tokens": 1}}, request)
        assert sorted(compiled) == sorted([
            "adapter/v1/message.schema.json#/$defs/operationRequest",
            "adapter/v1/message.schema.json#/$defs/okResponse",
            "adapter/v1/operations.schema.json#/$defs/text.measure/properties/result",
        ])
        assert validator_for.cache_info().hits == 3 * 200 - 3
    finally:
        validator_for.cache_clear()  # no validator built with the counting stand-in outlives the test


def test_the_run_command_offers_the_flag_as_bowtie_does(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    assert parser.parse_args(["run", "-V"]).validate_messages is True
    assert parser.parse_args(["run", "--validate-messages"]).validate_messages is True
    assert parser.parse_args(["run"]).validate_messages is False
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "--help"])
    run_help = " ".join(capsys.readouterr().out.split())
    assert "-V, --validate-messages check every request and response against schemas/adapter/v1" in run_help
