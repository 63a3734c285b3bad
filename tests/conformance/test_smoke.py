"""``conformance smoke``: the handshake, then every declared operation once, each answer judged.

The reference passes in process and over ``--stdio``; faulty ports (``testkit/ports``) answering
garbage or a result off the schema fail with one malformed line each (exit 1), a port that never
starts or fails its handshake is exit 3 with one line; bad input is exit 2 with one coded line.
No case shows a traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from testkit.ports import HOST, faulty_port, live_pids

from conformance import schemas
from conformance.check import CODE_CATALOGUE
from conformance.cli import main
from conformance.codes import every_code
from conformance.protocol import OPERATIONS, ContractError, ImplInfo, JsonObject
from conformance.smoke import Verdict, answer_of
from conformance.smoke import smoke as smoke_of
from conformance.smoke_requests import SmokeFolder, minimal_requests
from conformance.suite import schemas_dir
from conformance.supervisor import PortSupervisor

SMOKE = [sys.executable, "-m", "reference.cli", "conformance", "smoke"]
SECONDS = 60
OPERATION_LINES = len(OPERATIONS)


def smoke(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SMOKE, *options], capture_output=True, text=True, timeout=SECONDS, check=False)


def answer_lines(stdout: str) -> dict[str, str]:
    """Operation -> the rest of its line (the handshake and the last line left out)."""
    lines = stdout.splitlines()[1:-1]
    return {line.split()[0]: " ".join(line.split()[1:]) for line in lines}


def test_every_operation_has_a_minimal_request_valid_against_its_params(tmp_path: Path) -> None:
    requests = minimal_requests(SmokeFolder.make(tmp_path))
    assert set(requests) == set(OPERATIONS)
    for op, params in requests.items():
        ref = f"adapter/v1/operations.schema.json#/$defs/{op}/properties/params"
        assert [schemas.describe(e) for e in schemas.errors(params, ref)] == [], op


def test_the_reference_in_process_answers_every_operation_well_formed(capsys: pytest.CaptureFixture[str]) -> None:
    began = time.monotonic()
    assert main(["smoke"]) == 0
    seconds = time.monotonic() - began
    out = capsys.readouterr().out
    assert out.startswith("handshake ok: recall-rebase-reference ")
    answers = answer_lines(out)
    assert set(answers) == set(OPERATIONS) and len(out.splitlines()) == OPERATION_LINES + 2
    assert all(line.startswith("ok ") for line in answers.values()), answers
    assert out.splitlines()[-1].startswith("smoke: every answer well-formed, in ")
    assert seconds < 10


def test_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["smoke", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["wellFormed"] is True and document["protocolVersion"] == 1
    assert {a["operation"] for a in document["answers"]} == set(OPERATIONS)
    assert {a["verdict"] for a in document["answers"]} == {"ok"}


def test_the_reference_over_stdio_passes_within_seconds() -> None:
    began = time.monotonic()
    done = smoke("--stdio", "--", *HOST)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(answer_lines(done.stdout)) == set(OPERATIONS)
    assert time.monotonic() - began < 20


def test_a_port_answering_garbage_is_one_malformed_line(state: Path) -> None:
    done = smoke("--timeout", "5", "--stdio", "--", *faulty_port("stray", state, op="json.canonicalize"))
    assert done.returncode == 1, done.stdout + done.stderr
    answers = answer_lines(done.stdout)
    malformed = {op: line for op, line in answers.items() if line.startswith("malformed")}
    assert list(malformed) == ["json.canonicalize"], answers
    assert malformed["json.canonicalize"].startswith("malformed: not a protocol message on stdout")
    assert set(answers) == set(OPERATIONS)  # restarted: the operations after it were answered
    assert done.stdout.splitlines()[-1].startswith("smoke: 1 answers malformed")
    assert "Traceback" not in done.stdout + done.stderr
    assert live_pids(state) == []


def test_a_declared_operation_answering_off_the_schema_is_malformed(state: Path) -> None:
    done = smoke("--stdio", "--", *faulty_port("bad-result", state, op="text.measure"))
    assert done.returncode == 1, done.stdout + done.stderr
    malformed = {op: line for op, line in answer_lines(done.stdout).items() if line.startswith("malformed")}
    assert list(malformed) == ["text.measure"]
    assert "does not follow schemas/adapter/v1/operations.schema.json#/$defs/text.measure/properties/result" \
        in malformed["text.measure"]
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize(("fault", "code"), [("exit-at-once", "port-start-failed"),
                                             ("bad-hello", "port-handshake-failed")])
def test_a_port_that_does_not_start_is_exit_3_with_one_line(state: Path, fault: str, code: str) -> None:
    done = smoke("--start-timeout", "10", "--stdio", "--", *faulty_port(fault, state))
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(f"recall-rebase: {code}: ")
    assert live_pids(state) == []


def test_a_command_that_cannot_run_is_exit_3_and_json_says_so() -> None:
    done = smoke("--json", "--stdio", "--", "/nonexistent/port")
    assert done.returncode == 3
    assert json.loads(done.stdout)["code"] == "port-start-failed"
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("options", [["--stdio"], ["--stdio", "--"], ["--timeout", "soon"],
                                     ["--adapter", "nowhere:Adapter"], ["--frobnicate"]])
def test_bad_input_is_exit_2_with_one_coded_line(options: list[str]) -> None:
    done = smoke(*options)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("recall-rebase: usage: "), done.stderr
    assert "Traceback" not in done.stderr


class Refusing:
    """An in-process adapter that refuses every operation with ``code``."""

    def __init__(self, code: str) -> None:
        self.code = code

    def start(self) -> ImplInfo:
        return ImplInfo("refusing", "0", "python", 1, ("text.measure",))

    def stop(self) -> None:
        pass

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        raise ContractError(self.code, "no")


@pytest.mark.parametrize(("code", "verdict"), [("invalid-params", Verdict.REFUSED),
                                               ("made-up-code", Verdict.MALFORMED)])
def test_a_refusal_is_well_formed_only_with_a_contract_code(code: str, verdict: Verdict) -> None:
    codes = every_code(schemas_dir() / CODE_CATALOGUE)
    assert ("invalid-params" in codes) and ("made-up-code" not in codes)
    supervisor = PortSupervisor(lambda: Refusing(code), request_timeout=None)
    supervisor.start()
    answer = answer_of(supervisor, "text.measure", {"text": "x"}, codes)
    assert answer.verdict is verdict and answer.well_formed is (verdict is Verdict.REFUSED)
    assert code in answer.detail


def test_a_port_that_hangs_is_malformed_within_the_timeout_and_the_next_operation_is_answered(state: Path) -> None:
    began = time.monotonic()
    done = smoke("--timeout", "1", "--stdio", "--", *faulty_port("hang", state, op="text.measure"))
    assert done.returncode == 1, done.stdout + done.stderr
    answers = answer_lines(done.stdout)
    assert answers["text.measure"].startswith("malformed: no answer to request ")
    assert answers["text.slice"].startswith("ok ")
    assert time.monotonic() - began < 20 and "Traceback" not in done.stderr
    assert live_pids(state) == []


def test_a_port_declaring_no_operation_is_only_its_handshake(tmp_path: Path) -> None:
    supervisor = PortSupervisor(lambda: Declaring(()), request_timeout=None)
    result = smoke_of(supervisor, tmp_path)
    assert result.answers == () and result.well_formed
    assert result.render().splitlines()[0].endswith("protocol 1, 0 operations declared")


class Declaring(Refusing):
    """A port that declares ``operations`` (and refuses them all with ``invalid-params``)."""

    def __init__(self, operations: tuple[str, ...]) -> None:
        super().__init__("invalid-params")
        self.operations = operations

    def start(self) -> ImplInfo:
        return ImplInfo("declaring", "0", "python", 1, self.operations)
