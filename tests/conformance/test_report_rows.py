"""Report rows people can read: the feature's relative path and line, the failing step, the
values it compared and, over ``--stdio``, the port's last stderr lines.

Real FAIL rows come from ``testkit.ports.wrong_answer`` (the reference with one wrong
``text.measure``), in process and as a port process; a CRASH row from the faulty port. Every
report is read back through :func:`conformance.reports.read_report`, which checks the schema.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testkit.paths import REPO_ROOT
from testkit.ports import RUNNER, faulty_port, live_pids, run_plugin_in_process
from testkit.ports.wrong_answer import AT_ENV, WRONG

from conformance import reports, schemas
from conformance.failure_details import STDERR_LINES, VALUE_CHARS, FailureDetails, json_value
from conformance.locations import relative_feature
from conformance.suite import suite_root

WRONG_ANSWER = Path(__file__).parents[1] / "testkit" / "ports" / "wrong_answer.py"
PRIMITIVES = "features/primitives/primitives.feature"
MEASURED = {3: ("PRIM-003[astral]", "it is 4 UTF-16 units, 8 UTF-8 bytes and 1 chars-v1 tokens",
                {"utf16Length": 4, "utf8Length": 8, "tokens": 1}),
            5: ("PRIM-004", "it is 0 UTF-16 units, 0 UTF-8 bytes and 0 chars-v1 tokens",
                {"utf16Length": 0, "utf8Length": 0, "tokens": 0})}
RUN_SECONDS = 120


def environment(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tests")]), **extra}


def run_in_process(tmp_path: Path, adapter: str, *options: str, wrong_at: int) -> reports.Report:
    """The PRIM rows (or ``options``' rows) against an in-process adapter, driven as the runner does."""
    run_plugin_in_process(tmp_path, adapter, *(options or ("--rr-only", "PRIM-*")), env={AT_ENV: str(wrong_at)},
                          seconds=RUN_SECONDS)
    return reports.read_report(tmp_path / "report.ndjson")


def run_over_stdio(tmp_path: Path, port: list[str], *options: str) -> tuple[subprocess.CompletedProcess[str],
                                                                             reports.Report]:
    report = tmp_path / "report.ndjson"
    done = subprocess.run([*RUNNER, "--report", str(report), "--only", "PRIM-*", *options, "--stdio", "--", *port],
                          capture_output=True, text=True, timeout=RUN_SECONDS, check=False, env=environment())
    return done, reports.read_report(report)


def feature_lines(feature: str) -> list[str]:
    return (suite_root() / feature).read_text(encoding="utf-8").splitlines()


def not_passed(report: reports.Report) -> list[dict[str, Any]]:
    return [row for row in report.results if row["status"] != "PASS"]


def assert_located(row: dict[str, Any]) -> None:
    """The row's line is its Scenario line (after its tags, the @id among them), or its own Examples row."""
    assert not Path(row["feature"]).is_absolute() and row["feature"].startswith("features/"), row["feature"]
    lines = feature_lines(row["feature"])
    scenario, _, case = row["id"].partition("[")
    text = lines[row["line"] - 1].strip()
    if case:
        assert text.startswith("|") and text.strip("|").split("|")[0].strip() == case.rstrip("]"), (row, text)
    else:
        assert text.startswith("Scenario"), (row, text)
        assert f"@id:{scenario}" in " ".join(tag_lines(lines, row["line"] - 1)), (row, lines[row["line"] - 2])


def tag_lines(lines: list[str], scenario_at: int) -> list[str]:
    """The tag lines right above the 0-based line ``scenario_at`` (@id, @clause:, ...)."""
    start = scenario_at
    while start > 0 and lines[start - 1].strip().startswith("@"):
        start -= 1
    return lines[start:scenario_at]


def line_of_step(scenario: str, text: str) -> int:
    """The 1-based line of the first step ``text`` after ``scenario``'s @id tag in the primitives feature."""
    lines = feature_lines(PRIMITIVES)
    at = next(n for n, line in enumerate(lines) if f"@id:{scenario}" in line.split())
    return next(n for n, line in enumerate(lines[at:], start=at + 1) if line.strip() == text)


@pytest.mark.parametrize("wrong_at", sorted(MEASURED))
def test_a_wrong_answer_is_a_fail_row_with_its_place_step_and_values(tmp_path: Path, wrong_at: int) -> None:
    report = run_in_process(tmp_path, "testkit.ports.wrong_answer:WrongOnce", wrong_at=wrong_at)
    row_id, step_text, expected = MEASURED[wrong_at]
    (row,) = not_passed(report)
    assert (row["id"], row["status"], row["feature"]) == (row_id, "FAIL", PRIMITIVES)
    assert_located(row)
    assert row["step"]["keyword"] == "Then" and row["step"]["text"] == step_text
    template = feature_lines(PRIMITIVES)[row["step"]["line"] - 1].strip()
    assert template.startswith("Then it is ") and "chars-v1 tokens" in template, template
    assert (row["expected"], row["actual"]) == (expected, WRONG)
    assert "AssertionError" in row["message"]  # the short traceback stays
    # from the step on: no frame of pytest's machinery
    assert "conformance/steps/" in row["message"] and "_pytest" not in row["message"], row["message"]
    assert "Use -v to get more diff" not in row["message"]
    assert "stderr" not in row  # in process there is no port process to listen to


def test_every_row_of_the_suite_names_its_feature_relative_to_the_suite_and_its_line(tmp_path: Path) -> None:
    report = run_in_process(tmp_path, "reference", "--collect-only", wrong_at=0)  # every row, NOTRUN
    assert len(report.results) > 500
    for row in report.results:
        assert_located(row)
        assert not {"step", "expected", "actual", "stderr"} & set(row), row


def test_a_passing_run_has_no_details(tmp_path: Path) -> None:
    report = run_in_process(tmp_path, "reference", wrong_at=0)
    assert len(report.results) >= 20 and not not_passed(report)
    assert all(not {"step", "expected", "actual", "stderr"} & set(row) for row in report.results)


def test_an_expected_failure_keeps_its_step_and_values(tmp_path: Path) -> None:
    manifest = tmp_path / "expectations.toml"
    manifest.write_text('implementation = "recall-rebase-reference"\n[[expectation]]\nid = "PRIM-003"\n'
                        'status = "xfail"\nreason = "measures wrongly"\n', encoding="utf-8")
    report = run_in_process(tmp_path, "testkit.ports.wrong_answer:WrongOnce", "--rr-only", "PRIM-*",
                            "--rr-expectations", str(manifest), wrong_at=3)
    rows = {row["id"]: row for row in not_passed(report)}
    assert {key: row["status"] for key, row in rows.items()} == {
        "PRIM-003[accent]": "XPASS", "PRIM-003[ascii]": "XPASS", "PRIM-003[astral]": "XFAIL", "PRIM-003[cjk]": "XPASS"}
    assert (rows["PRIM-003[astral]"]["expected"], rows["PRIM-003[astral]"]["actual"]) == (MEASURED[3][2], WRONG)
    step = feature_lines(PRIMITIVES)[rows["PRIM-003[astral]"]["step"]["line"] - 1].strip()
    assert step.startswith("Then it is ") and "chars-v1 tokens" in step, step
    assert "step" not in rows["PRIM-003[ascii]"]  # an unexpected pass failed no step


def test_a_fail_row_over_stdio_carries_the_ports_stderr(tmp_path: Path) -> None:
    done, report = run_over_stdio(tmp_path, [sys.executable, str(WRONG_ANSWER)])
    (row,) = not_passed(report)
    assert (row["id"], row["status"], row["expected"], row["actual"]) == ("PRIM-003[astral]", "FAIL",
                                                                         MEASURED[3][2], WRONG)
    assert "wrong-answer: serving the reference, with one wrong answer" in row["stderr"], row
    assert_located(row)
    assert "Traceback" not in done.stderr


def test_a_crash_row_carries_its_step_and_stderr_but_no_values(tmp_path: Path, state: Path) -> None:
    _, report = run_over_stdio(tmp_path, faulty_port("crash", state, nth=3), "--timeout", "5")
    assert live_pids(state) == []
    (row,) = not_passed(report)
    assert (row["id"], row["status"]) == ("PRIM-003[astral]", "CRASH")
    when = 'the text "😀😀" is measured'
    assert row["step"] == {"keyword": "When", "text": when, "line": line_of_step("PRIM-003", "When the text \"<text>\" is measured")}
    assert any(line.startswith("faulty-port: crashing on request") for line in row["stderr"]), row
    assert "expected" not in row and "actual" not in row


def test_a_compared_value_is_json_or_its_repr() -> None:
    assert json_value((1, "a", None)) == [1, "a", None]
    assert json_value({"k": [True]}) == {"k": [True]}
    assert json_value({1, 2}) == "{1, 2}"
    assert json_value(float("nan")) == "nan"
    assert json_value(b"\x00") == "b'\\x00'"
    long = json_value("x" * (VALUE_CHARS * 2))
    assert isinstance(long, str) and len(long) == VALUE_CHARS and long.endswith("…")


def test_only_a_failing_equality_is_remembered() -> None:
    details = FailureDetails()
    config: Any = None
    details.pytest_assertrepr_compare(config, "==", [1], [2])
    details.pytest_assertrepr_compare(config, "==", "same", "same")  # a passing part of an ``and``
    details.pytest_assertrepr_compare(config, "in", 1, [2])
    details.pytest_assertrepr_compare(config, "is", None, None)
    remembered = details._comparison
    assert remembered is not None and (remembered.actual, remembered.expected) == ([1], [2])
    details.pytest_assertrepr_compare(config, "is", False, True)
    remembered = details._comparison
    assert remembered is not None and (remembered.actual, remembered.expected) == (False, True)


def test_a_feature_path_is_relative_to_the_suite_root_wherever_it_lives(tmp_path: Path) -> None:
    wheel = tmp_path / "site-packages" / "conformance" / "_suite"
    feature = wheel / "features" / "tree" / "tree.feature"
    assert relative_feature(feature, root=wheel) == "features/tree/tree.feature"
    assert relative_feature(tmp_path / "elsewhere" / "x.feature", root=wheel) == "elsewhere/x.feature"
    assert relative_feature(suite_root() / "features" / "tree" / "tree.feature") == "features/tree/tree.feature"


def result_line(**extra: Any) -> dict[str, Any]:
    return {"type": "result", "id": "TREE-001", "feature": "features/tree/tree.feature", "title": "t",
            "status": "FAIL", "message": "m", "duration_ms": 1.0, **extra}


@pytest.mark.parametrize(("extra", "valid"), [
    ({}, True),  # an older row, without the new fields
    ({"line": 12, "step": {"keyword": "Then", "text": "x", "line": 14}, "expected": None, "actual": 3,
      "stderr": ["a"]}, True),
    ({"expected": 1}, False),  # expected comes with actual
    ({"stderr": ["x"] * (STDERR_LINES + 1)}, False),
    ({"step": {"keyword": "Then", "text": "x"}}, False),
    ({"line": 0}, False),
    ({"why": "x"}, False),
])
def test_the_row_schema_takes_the_new_fields_as_optional(extra: dict[str, Any], valid: bool) -> None:
    assert (schemas.errors(result_line(**extra), reports.REPORT_SCHEMA) == []) is valid


def test_an_outline_title_is_filled_with_its_example_row() -> None:
    from conformance.row_status import filled_title

    title = "walks to <depth> (<case>) of <missing>"
    assert filled_title(title, {"case": "depth-63", "depth": "63"}) == "walks to 63 (depth-63) of <missing>"
    assert filled_title(title, None) == title and filled_title(title, {}) == title
