"""Selection and control: ``--id``/``--only``, ``--area``, ``--tag``, ``-k``, ``-x``/``--max-fail``, ``list``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from testkit.conformance_runs import PARTIAL_PORT, Outcome, conformance

from conformance import schemas
from conformance.selection import Selection, keyword_problem, selected_rows
from conformance.suite_scenarios import scenario_rows

OUTLINE = "READER-021"
TIMEOUT_S = 120


def _rows(*ids: str | None, area: str | None = None, tag: str | None = None) -> list[str]:
    return [row.id for row in selected_rows(Selection.parse(ids, area, tag))]


def _run(tmp_path: Path, *options: str, port: tuple[str, ...] = ()) -> Outcome:
    """``conformance run OPTIONS`` against :mod:`testkit.partial_port` (``port`` are its own arguments)."""
    report = tmp_path / "report.ndjson"
    return conformance("run", "--report", report, *options, "--stdio", "--", sys.executable, PARTIAL_PORT, *port,
                       report=report, timeout=TIMEOUT_S)


def test_a_scenario_id_selects_every_row_of_its_outline() -> None:
    rows = _rows(OUTLINE)
    assert len(rows) > 1
    assert rows == [row for row in scenario_rows() if row.startswith(f"{OUTLINE}[")]


def test_a_row_id_selects_that_row_only_and_globs_select_scenarios() -> None:
    assert _rows(f"{OUTLINE}[linear]") == [f"{OUTLINE}[linear]"]
    assert set(_rows("READER-02*")) >= set(_rows(OUTLINE))
    assert _rows("PRIM-002,PRIM-003") == [r for r in scenario_rows() if r.split("[")[0] in {"PRIM-002", "PRIM-003"}]


def test_areas_tags_and_their_intersection() -> None:
    reader_tree = _rows(area="reader,TREE")
    assert {row.split("-")[0] for row in reader_tree} == {"READER", "TREE"}
    assert _rows(tag=f"@id:{OUTLINE}") == _rows(OUTLINE)
    assert _rows(tag="id:PRIM-*") == _rows(area="PRIM")
    assert _rows("READER-02*", area="READER", tag=f"id:{OUTLINE}") == _rows(OUTLINE)
    assert _rows(OUTLINE, area="TREE") == []
    assert _rows(None) == scenario_rows()


def test_a_keyword_expression_pytest_refuses_is_named() -> None:
    assert keyword_problem("READER and not TREE") is None
    problem = keyword_problem("and or")
    assert problem is not None and "and or" in problem


def test_run_selects_outline_rows_by_id_area_and_tag(tmp_path: Path) -> None:
    outcome = _run(tmp_path, "--id", OUTLINE, "--area", "READER", "--tag", f"id:{OUTLINE}")
    assert outcome.code == 0, outcome.stderr
    assert sorted(outcome.statuses()) == _rows(OUTLINE)
    assert set(outcome.statuses().values()) == {"PASS"}
    only = _run(tmp_path, "--only", OUTLINE)  # the alias matches rows too
    assert sorted(only.statuses()) == _rows(OUTLINE)


@pytest.mark.parametrize("options", [["--id", "NOPE-*"], ["--id", OUTLINE, "--area", "TREE"], ["--tag", "nope"],
                                     ["-k", "and or"]])
def test_a_selection_of_nothing_or_a_bad_expression_is_one_usage_line(tmp_path: Path, options: list[str]) -> None:
    outcome = _run(tmp_path, *options)
    assert outcome.code == 2, outcome.stdout + outcome.stderr
    assert outcome.stdout == ""
    assert outcome.stderr.splitlines() == [outcome.stderr.strip()]
    assert outcome.stderr.startswith("recall-rebase: usage: ")
    assert not (tmp_path / "report.ndjson").exists()


def test_a_keyword_that_matches_nothing_is_a_usage_error(tmp_path: Path) -> None:
    outcome = _run(tmp_path, "--area", "PRIM", "-k", "no_such_scenario_name")
    assert outcome.code == 2, outcome.stdout + outcome.stderr
    assert outcome.stderr.splitlines()[-1].startswith("recall-rebase: usage: -k no_such_scenario_name")
    assert "NOT conformant" not in outcome.stdout + outcome.stderr


def test_exitfirst_stops_after_the_first_failure_and_reports_the_rest_notrun(tmp_path: Path) -> None:
    """PRIM-003 onwards call ``text.measure``, broken here: the run stops at its first row."""
    outcome = _run(tmp_path, "--area", "PRIM", "-x", port=("--break", "text.measure"))
    statuses = outcome.statuses()
    assert outcome.code == 1, outcome.stdout + outcome.stderr
    assert list(statuses.values()).count("FAIL") == 1
    assert "PASS" in statuses.values()
    assert sorted(statuses) == _rows(area="PRIM")  # every selected row is reported
    not_run = list(statuses.values()).count("NOTRUN")
    assert not_run > 0 and set(statuses.values()) == {"PASS", "FAIL", "NOTRUN"}
    assert f"stopped early: {not_run} of {len(statuses)} selected scenarios not run (NOTRUN)" in outcome.stdout
    assert outcome.lines[-1]["total"] == len(statuses)


def test_max_fail_counts_only_unexpected_outcomes(tmp_path: Path) -> None:
    """An xfail entry's failures do not count towards ``--max-fail``; without a stop every row is reported."""
    manifest = tmp_path / "expectations.toml"
    manifest.write_text('implementation = "partial-port"\n[[expectation]]\nid = "PRIM-003[ascii]"\nstatus = "xfail"\n'
                        'reason = "measure is broken on purpose"\n', encoding="utf-8")
    outcome = _run(tmp_path, "--area", "PRIM", "--max-fail", "2", "--expectations", str(manifest),
                   port=("--break", "text.measure"))
    statuses = outcome.statuses()
    assert outcome.code == 1, outcome.stdout + outcome.stderr
    assert "XFAIL" in statuses.values()
    assert sorted(s for s in statuses.values() if s not in {"PASS", "XFAIL", "NOTRUN"}) == ["FAIL", "FAIL"]
    assert "not run" in outcome.stdout
    whole = _run(tmp_path, "--area", "PRIM", "--max-fail", "1")
    assert whole.code == 0 and sorted(whole.statuses()) == _rows(area="PRIM")
    assert "not run" not in whole.stdout


def test_list_shows_every_row_a_run_reports_and_filters_them() -> None:
    listed = conformance("list", "--json", timeout=TIMEOUT_S)
    assert listed.code == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [schemas.describe(e) for e in schemas.errors(rows, "list/v1/rows.schema.json")] == []
    assert [row["id"] for row in rows] == scenario_rows()
    assert {row["scenario"] for row in rows} > {OUTLINE}
    text = conformance("list", "--id", OUTLINE, timeout=TIMEOUT_S)
    assert [line.split()[0] for line in text.stdout.splitlines()] == _rows(OUTLINE)
    areas = conformance("list", "--json", "--area", "TREE", timeout=TIMEOUT_S)
    assert [row["id"] for row in json.loads(areas.stdout)] == _rows(area="TREE")
    nothing = conformance("list", "--area", "NOPE", timeout=TIMEOUT_S)
    assert nothing.code == 2 and nothing.stderr.startswith("recall-rebase: usage: ")
