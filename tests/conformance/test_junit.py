"""JUnit XML written from the final report: names are row ids, classnames areas, one suite per
area with the run's properties, each status its element, totals that add up, owner-only."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from testkit.paths import REPO_ROOT
from testkit.ports import RUNNER

from conformance import junit, reports
from conformance.runner import EXIT_NOT_CONFORMANT
from conformance.statuses import Status

WRONG_ANSWER = Path(__file__).parents[1] / "testkit" / "ports" / "wrong_answer.py"
HEADER = {"type": "header", "suite_version": "0.1.0", "protocol_version": 1,
          "implementation": {"name": "my-port", "version": "2.3", "language": "rust"},
          "run_info": {"os": "Linux", "python": "3.11", "adapter": "x"}, "started": "2026-12-01T00:00:00Z"}
ELEMENT = {Status.PASS: None, Status.FAIL: ("failure", "FAIL"), Status.XPASS: ("failure", "XPASS"),
           Status.ERROR: ("error", "ERROR"), Status.TIMEOUT: ("error", "TIMEOUT"), Status.CRASH: ("error", "CRASH"),
           Status.SKIP: ("skipped", "SKIP"), Status.UNSUPPORTED: ("skipped", "UNSUPPORTED"),
           Status.NOTRUN: ("skipped", "NOTRUN"), Status.XFAIL: ("skipped", "xfail")}


def row(row_id: str, status: Status, message: str = "", **extra: Any) -> dict[str, Any]:
    return {"id": row_id, "feature": "features/x/x.feature", "line": 3, "title": "t", "status": status.value,
            "message": message, "duration_ms": 1500.0, **extra}


def fake_report() -> reports.Report:
    """One row of each status, in two areas; the FAIL one with a step, values and stderr."""
    rows = [row(f"AREA-{n:03d}", status, f"{status.value}: first\nsecond") for n, status in enumerate(Status, 1)]
    rows[1] = row("AREA-002", Status.FAIL, "trace.py:1: in x\nE   AssertionError: assert 1 == 2\nmore",
                  step={"keyword": "Then", "text": 'it is "u1"', "line": 54}, expected=2, actual=1,
                  stderr=["port: one", "port: two"])
    rows.append(row("OTHER-001[case-a]", Status.PASS))
    rows.append(row("OTHER-002", Status.CRASH, "bad \x00 byte and a lone \ud800 surrogate"))
    return reports.Report(dict(HEADER), rows, reports.summary_line(HEADER, rows))


def written(tmp_path: Path, report: reports.Report) -> ET.Element:
    path = tmp_path / "out" / "junit.xml"
    junit.write_junit(report, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    return ET.parse(path).getroot()


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {case.get("name", ""): case for case in root.iter("testcase")}


def test_cases_are_named_by_row_id_and_classed_by_area(tmp_path: Path) -> None:
    report = fake_report()
    root = written(tmp_path, report)
    assert [suite.get("name") for suite in root.findall("testsuite")] == ["AREA", "OTHER"]
    for suite in root.findall("testsuite"):
        assert {case.get("classname") for case in suite.findall("testcase")} == {suite.get("name")}
    assert sorted(cases(root)) == [r["id"] for r in report.results]
    assert cases(root)["AREA-001"].get("time") == "1.500"
    assert (cases(root)["AREA-001"].get("file"), cases(root)["AREA-001"].get("line")) == ("features/x/x.feature", "3")


def test_every_suite_carries_the_runs_properties(tmp_path: Path) -> None:
    for suite in written(tmp_path, fake_report()).findall("testsuite"):
        properties = {p.get("name"): p.get("value") for p in suite.iterfind("properties/property")}
        assert properties == {"implementation": "my-port", "implementation_version": "2.3", "language": "rust",
                              "suite_version": "0.1.0", "protocol_version": "1"}


def test_each_status_becomes_its_element(tmp_path: Path) -> None:
    report = fake_report()
    found = cases(written(tmp_path, report))
    for result in report.results:
        children = [child for child in found[result["id"]] if child.tag != "system-err"]
        want = ELEMENT[Status(result["status"])]
        if want is None:
            assert children == [], result["id"]
            continue
        (child,) = children
        assert (child.tag, child.get("type")) == want, result["id"]
        assert child.get("message"), result["id"]


def test_a_failure_says_its_exception_step_values_and_stderr(tmp_path: Path) -> None:
    case = cases(written(tmp_path, fake_report()))["AREA-002"]
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == "AssertionError: assert 1 == 2"
    text = failure.text or ""
    assert 'step (line 54): Then it is "u1"' in text and "expected: 2" in text and "actual:   1" in text
    assert "trace.py:1: in x" in text
    assert case.findtext("system-err") == "port: one\nport: two"


def test_characters_xml_cannot_hold_are_spelled_out(tmp_path: Path) -> None:
    error = cases(written(tmp_path, fake_report()))["OTHER-002"].find("error")
    assert error is not None and error.get("message") == "bad \\u0000 byte and a lone \\ud800 surrogate"


def test_the_totals_add_up(tmp_path: Path) -> None:
    report = fake_report()
    root = written(tmp_path, report)
    statuses = [Status(r["status"]) for r in report.results]
    expect = {"tests": len(statuses), "failures": 2, "errors": 4, "skipped": 4}  # OTHER-002 is a CRASH
    assert {key: int(root.get(key, "-1")) for key in expect} == expect
    for suite in root.findall("testsuite"):
        members = suite.findall("testcase")
        assert int(suite.get("tests", "-1")) == len(members)
        assert int(suite.get("failures", "-1")) == sum(c.find("failure") is not None for c in members)
        assert int(suite.get("errors", "-1")) == sum(c.find("error") is not None for c in members)
        assert int(suite.get("skipped", "-1")) == sum(c.find("skipped") is not None for c in members)
    assert root.get("time") == f"{1.5 * len(statuses):.3f}"


def test_a_path_that_cannot_be_written_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(junit.JunitError) as raised:
        junit.write_junit(fake_report(), tmp_path / "file" / "junit.xml")
    assert raised.value.code == "output-unwritable" and "cannot write the JUnit XML" in raised.value.message


def test_a_run_writes_junit_from_its_report(tmp_path: Path) -> None:
    report_path, xml = tmp_path / "report.ndjson", tmp_path / "junit.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tests")])}
    done = subprocess.run([*RUNNER, "--only", "PRIM-*", "--report", str(report_path), "--junitxml", str(xml),
                           "--stdio", "--", sys.executable, str(WRONG_ANSWER)],
                          capture_output=True, text=True, timeout=120, check=False, env=env)
    assert done.returncode == EXIT_NOT_CONFORMANT, done.stderr[-2000:]
    report = reports.read_report(report_path)
    root = ET.parse(xml).getroot()
    assert stat.S_IMODE(xml.stat().st_mode) == 0o600
    assert sorted(cases(root)) == [r["id"] for r in report.results]
    assert {case.get("classname") for case in root.iter("testcase")} == {"PRIM"}
    assert root.get("tests") == str(report.summary["total"]) and root.get("failures") == "1"
    failure = cases(root)["PRIM-003[astral]"].find("failure")
    assert failure is not None and failure.get("type") == "FAIL"
    assert "expected: {\"utf16Length\": 4" in (failure.text or "")
    props = {p.get("name"): p.get("value") for p in root.iterfind("testsuite/properties/property")}
    assert props["implementation"] == report.implementation["name"]
