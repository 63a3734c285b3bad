"""The supervisor, the statuses and the output checks, one piece at a time."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from testkit.paths import REPO_ROOT
from testkit.ports import RUNNER, run_plugin_in_process

from conformance import schemas
from conformance.codes import catalogue_codes
from conformance.faults import PORT_HANDSHAKE_FAILED, PORT_START_FAILED, PortErrored, PortStartFailed
from conformance.outputs import OUTPUT_UNWRITABLE
from conformance.plugin import timeout_factor_of
from conformance.protocol import ContractError, ImplInfo, JsonObject
from conformance.statuses import Status
from conformance.supervisor import PortSupervisor


class Flaky:
    """An in-process adapter whose ``boom`` raises outside the contract and ``refuse`` inside it."""

    made: ClassVar[list[Flaky]] = []

    def __init__(self) -> None:
        Flaky.made.append(self)
        self.stopped = False

    def start(self) -> ImplInfo:
        return ImplInfo("flaky", "0", "python", 1)

    def stop(self) -> None:
        self.stopped = True

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        if op == "boom":
            raise RuntimeError("a bug")
        if op == "refuse":
            raise ContractError("invalid-params", "no")
        return {"op": op}


def test_an_in_process_exception_is_a_crash_and_the_next_scenario_gets_a_fresh_adapter() -> None:
    Flaky.made.clear()
    port = PortSupervisor(Flaky, request_timeout=None)
    port.begin_scenario()
    with pytest.raises(ContractError):
        port.request("refuse", {})
    assert port.fault is None  # a contract refusal is an answer, not a fault
    with pytest.raises(PortErrored, match="boom raised RuntimeError: a bug"):
        port.request("boom", {})
    assert port.fault is not None and port.fault.status == Status.CRASH and Flaky.made[0].stopped
    with pytest.raises(PortErrored, match="not sent"):  # the rest of the scenario gets no port
        port.request("fine", {})
    port.begin_scenario()
    assert port.fault is None and len(Flaky.made) == 2 and port.restarts == 1
    assert port.request("fine", {}) == {"op": "fine"}
    port.stop()
    assert Flaky.made[1].stopped


def test_an_adapter_of_another_protocol_version_does_not_start() -> None:
    class Future(Flaky):
        def start(self) -> ImplInfo:
            return ImplInfo("future", "0", "python", 2)

    port = PortSupervisor(Future, request_timeout=None)
    with pytest.raises(PortStartFailed) as failed:
        port.begin_scenario()
    assert failed.value.code == PORT_HANDSHAKE_FAILED and port.start_failure is failed.value


def test_the_report_schema_lists_exactly_the_statuses() -> None:
    schema = json.loads((REPO_ROOT / "schemas/report/v1/report-line.schema.json").read_text(encoding="utf-8"))
    assert sorted(schema["$defs"]["status"]["enum"]) == sorted(status.value for status in Status)


def test_the_runner_codes_are_catalogued() -> None:
    codes = catalogue_codes(REPO_ROOT / "schemas/codes/v1/codes.schema.json")["Command line"]
    assert {PORT_START_FAILED, PORT_HANDSHAKE_FAILED, OUTPUT_UNWRITABLE} <= codes


class Tagged:
    def __init__(self, *args: str) -> None:
        self.args = args

    def get_closest_marker(self, name: str) -> Any:
        return SimpleNamespace(name=name, args=self.args) if self.args else None


def test_a_timeout_tag_scales_the_request_timeout() -> None:
    assert timeout_factor_of(Tagged()) == 1.0  # type: ignore[arg-type]
    assert timeout_factor_of(Tagged("3")) == 3.0  # type: ignore[arg-type]
    for bad in ("0", "-1", "soon"):
        with pytest.raises(pytest.UsageError, match="not a positive number"):
            timeout_factor_of(Tagged(bad))  # type: ignore[arg-type]


@pytest.mark.parametrize("option", ["--report", "--junitxml"])
@pytest.mark.parametrize("where", ["under-a-file", "a-folder"])
def test_an_unwritable_output_path_is_one_line_and_exit_2_before_any_scenario(tmp_path: Path, option: str,
                                                                             where: str) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    path = tmp_path / "file" / "out" if where == "under-a-file" else tmp_path
    done = subprocess.run([*RUNNER, option, str(path)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()  # the run never started: no "running the conformance suite"
    assert line.startswith(f"recall-rebase: {OUTPUT_UNWRITABLE}: cannot write the ")
    assert (tmp_path / "file").read_text(encoding="utf-8") == "x"


def test_a_writable_report_path_is_left_as_it_was_by_the_check(tmp_path: Path) -> None:
    from conformance.outputs import REPORT, unwritable

    fresh, kept = tmp_path / "new" / "report.ndjson", tmp_path / "kept.ndjson"
    earlier = '{"type": "header", "suite_version": "old"}\n'
    kept.write_text(earlier, encoding="utf-8")
    assert unwritable(str(fresh), REPORT) is None and not fresh.exists()
    assert unwritable(str(kept), REPORT) is None and kept.read_text(encoding="utf-8") == earlier


@pytest.mark.parametrize("kind", ["REPORT", "JUNIT_XML", "CUCUMBER_JSON"])
@pytest.mark.parametrize("text", ["old", '{"type":"session","version":3,"id":"x"}\n', "[1, 2]", "<?xml?><a/>"])
def test_a_file_that_is_no_earlier_output_is_refused_and_kept(tmp_path: Path, kind: str, text: str) -> None:
    """Issue 23: `--report S.jsonl` wrote the report over the user's session."""
    from conformance import outputs

    kept = tmp_path / "kept"
    kept.write_text(text, encoding="utf-8")
    problem = outputs.unwritable(str(kept), getattr(outputs, kind))
    assert problem is not None and "left as it was" in problem
    assert kept.read_text(encoding="utf-8") == text


def test_each_output_kind_recognises_what_the_run_writes(tmp_path: Path) -> None:
    from conformance import outputs

    paths = {kind: tmp_path / name for kind, name in
             ((outputs.REPORT, "r.ndjson"), (outputs.JUNIT_XML, "j.xml"), (outputs.CUCUMBER_JSON, "c.json"))}
    done = subprocess.run([*RUNNER, "--area", "TOOLX", "--report", str(paths[outputs.REPORT]),
                           "--junitxml", str(paths[outputs.JUNIT_XML]), "--cucumber-json",
                           str(paths[outputs.CUCUMBER_JSON])], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    for kind, path in paths.items():
        assert path.stat().st_size > 0 and outputs.unwritable(str(path), kind) is None, kind.what  # a second run replaces the first's


def test_an_in_process_adapter_that_raises_makes_one_crash_row(tmp_path: Path) -> None:
    run = run_plugin_in_process(tmp_path, "testkit.ports.broken_inprocess:BrokenOnce", "--rr-only", "PRIM-*")
    done, lines = run, run.lines
    assert [schemas.describe(e) for line in lines for e in schemas.errors(line, "report/v1/report-line.schema.json")] == []
    broken = [line for line in lines if line["type"] == "result" and line["status"] != "PASS"]
    assert [row["status"] for row in broken] == ["CRASH"], done.stdout[-3000:]
    assert "text.measure raised KeyError: 'a bug of this port'" in broken[0]["message"]
    assert lines[-1]["counts"]["PASS"] == lines[-1]["total"] - 1
