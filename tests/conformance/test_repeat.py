"""``conformance run --repeat N`` (issue 27, deliverable 5): N runs folded by row id.

A deterministic port reports every row once with its one status; a port that fails a row in one
run of three is reported FLAKY with the ``flaky`` entry to paste, which the manifest schema takes;
a bad N is one usage line and exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from testkit.ports import HOST, faulty_port, run_suite

from conformance import schemas
from conformance.expectations import MANIFEST_SCHEMA, parse_manifest
from conformance.repeat import RepeatedRow, fold
from conformance.reports import Report, read_report
from conformance.runner import EXIT_NOT_CONFORMANT

REPORT_SCHEMA = "report/v1/report-line.schema.json"


def test_a_deterministic_port_reports_every_row_once(tmp_path: Path) -> None:
    run = run_suite(tmp_path, HOST, "--only", "PRIM-004,PRIM-002", "--repeat", "3", "-j", "2")
    assert run.code == 0, run.stderr[-2000:]
    assert sorted(run.rows) == ["PRIM-002", "PRIM-004"]
    assert {row["repeat"]["PASS"] for row in run.rows.values()} == {3}
    assert all(list(row["repeat"]) == ["PASS"] for row in run.rows.values())
    assert "2 rows run 3 times: 2 stable, 0 flaky" in run.stdout
    assert "FLAKY" not in run.stdout
    assert [schemas.describe(e) for line in run.lines for e in schemas.errors(line, REPORT_SCHEMA)] == []
    assert read_report(tmp_path / "report.ndjson").summary["counts"] == {"PASS": 2}
    assert run.stderr.count("recall-rebase: repeat ") == 3


def test_a_row_that_fails_in_one_run_of_three_is_flaky_with_the_entry_to_paste(tmp_path: Path) -> None:
    port = faulty_port("bad-result", tmp_path / "state", nth=1)  # the first text.measure answer only
    run = run_suite(tmp_path, port, "--only", "PRIM-004", "-V", "--repeat", "3")
    assert run.code == EXIT_NOT_CONFORMANT, run.stderr[-2000:]
    assert run.rows["PRIM-004"]["status"] == "FAIL"  # the worst of its runs
    assert run.rows["PRIM-004"]["repeat"] == {"FAIL": 1, "PASS": 2}
    assert "FLAKY PRIM-004: FAIL 1/3, PASS 2/3" in run.stdout
    pasted = run.stdout.split("# paste into the expectations manifest:", 1)[1].split("\n\n1 rows")[0]
    manifest = tomllib.loads(f'implementation = "faulty"\n{pasted}')
    assert schemas.errors(manifest, MANIFEST_SCHEMA) == []
    entry = parse_manifest(manifest, where="pasted").expectations[0]
    assert (entry.id, entry.status.value, entry.outcomes) == ("PRIM-004", "flaky", ("FAIL", "PASS"))
    assert "1 rows run 3 times: 0 stable, 1 flaky" in run.stdout
    assert read_report(tmp_path / "report.ndjson").summary["counts"] == {"FAIL": 1}  # the folded report is valid


@pytest.mark.parametrize("value", ["0", "101", "x", "-1", "2.5", ""])
def test_a_bad_repeat_is_one_usage_line(value: str) -> None:
    done = subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "run", "--repeat", value],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("recall-rebase: usage: argument --repeat: "), done.stderr
    assert f"{value!r} is not a count from 1 to 100" in lines[0]
    assert "Traceback" not in done.stderr


def _report(*statuses: tuple[str, str]) -> Report:
    rows = [{"id": row_id, "feature": "f", "title": "t", "status": status, "message": "", "duration_ms": 1}
            for row_id, status in statuses]
    return Report({"type": "header"}, rows, {"type": "summary"})


def test_the_fold_keeps_the_worst_status_and_counts_every_run() -> None:
    folded, rows = fold([_report(("A-001", "PASS"), ("A-002", "XFAIL")),
                         _report(("A-001", "ERROR"), ("A-002", "XFAIL")),
                         _report(("A-001", "PASS"), ("A-002", "XFAIL"))])
    assert [(r["id"], r["status"], r["repeat"]) for r in folded.results] == [
        ("A-001", "ERROR", {"ERROR": 1, "PASS": 2}), ("A-002", "XFAIL", {"XFAIL": 3})]
    assert folded.summary["counts"] == {"ERROR": 1, "XFAIL": 1} and not folded.summary["conformant"]
    assert [row.flaky for row in rows] == [True, False]
    assert 'outcomes = ["ERROR", "PASS"]' in rows[0].entry(3)


def test_a_row_flaky_with_a_timeout_gets_no_entry_a_manifest_could_not_take() -> None:
    row = RepeatedRow("A-001", {"TIMEOUT": 1, "PASS": 2})
    assert row.flaky and row.worst.value == "TIMEOUT" and row.outcomes == []
    assert row.entry(3).startswith("# A-001: TIMEOUT 1/3, PASS 2/3: no flaky entry fits")


def test_json_is_one_object_with_every_row(tmp_path: Path) -> None:
    run = run_suite(tmp_path, HOST, "--only", "PRIM-004", "--repeat", "2", "--json")
    assert run.code == 0, run.stderr[-2000:]
    printed = json.loads(run.stdout)
    assert printed["repeat"] == 2 and printed["exit_codes"] == [0, 0]
    assert printed["rows"] == [{"id": "PRIM-004", "status": "PASS", "counts": {"PASS": 2}, "flaky": False}]


def test_an_unwritable_report_is_refused_before_any_run(tmp_path: Path) -> None:
    report = tmp_path  # a folder
    done = subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "run", "--only", "PRIM-004",
                           "--repeat", "2", "--report", str(report)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("recall-rebase: output-unwritable: cannot write the report to ")
    assert "repeat 1/2" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_folded_report_has_the_first_runs_header_and_stops_at_an_interrupted_run() -> None:
    first, second = _report(("A-001", "PASS")), _report(("A-001", "NOTRUN"))
    first.header["started"], second.header["started"] = "early", "late"
    second.summary["interrupted"] = {"signal": "SIGINT"}
    folded, rows = fold([first, second])
    assert folded.header["started"] == "early"
    assert folded.summary["interrupted"] == {"signal": "SIGINT"}
    assert rows[0].counts == {"NOTRUN": 1, "PASS": 1}


@pytest.mark.parametrize("option", ["--junitxml", "--cucumber-json"])
def test_junit_and_cucumber_output_are_refused_with_repeat(tmp_path: Path, option: str) -> None:
    done = subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "run", "--only", "PRIM-004",
                           "--repeat", "2", option, str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"recall-rebase: usage: {option} is one run's output: not with --repeat"]
    assert not (tmp_path / "out").exists()
