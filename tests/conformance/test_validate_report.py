"""``conformance validate-report REPORT...``: one test per rule, several problems at once, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testkit import report_files
from testkit.conformance_runs import conformance
from testkit.report_files import lines_of, ndjson, row

from conformance import reports, schemas
from conformance.cli import main

ROWS = [row("PRIM-001"), row("PRIM-002", "FAIL", "boom"), row("TREE-001[linear]")]


def _problems(lines: list[dict[str, Any] | str]) -> list[tuple[int, str]]:
    report, found = reports.examine(ndjson(lines))
    assert (report is None) == bool(found)
    return [(problem.line, problem.message) for problem in found]


def _valid() -> list[dict[str, Any] | str]:
    return lines_of(ROWS)


def test_a_report_the_runner_wrote_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "prim.ndjson"
    assert conformance("run", "--area", "PRIM", "--report", path, timeout=120).code == 0
    done = conformance("validate-report", path, timeout=60)
    assert (done.code, done.stdout) == (0, f"{path}: valid (47 rows, implementation recall-rebase-reference 0.1.0)\n")
    assert _problems(_valid()) == []


def test_a_line_that_is_not_json() -> None:
    lines = _valid()
    lines.insert(2, '{"type": "result",')
    assert _problems(lines) == [(3, "not JSON: Expecting property name enclosed in double quotes")]


def test_a_line_against_the_schema_names_its_field() -> None:
    lines = _valid()
    lines[1] = {**lines[1], "status": "MAYBE"}  # type: ignore[dict-item]
    [(line, message)] = _problems(lines)  # the rows are not known: the total and counts are not judged
    assert line == 2 and message.startswith("not a report line: $.status: 'MAYBE' is not one of")


def test_a_line_of_no_known_type_and_a_line_that_is_not_an_object() -> None:
    lines = _valid()
    lines[1:1] = [{"type": "case"}, "[1, 2]"]
    assert _problems(lines) == [(2, "not a report line: 'type' is 'case', not one of header, result, summary"),
                                (3, "not a report line: a list, not a JSON object")]


def test_the_header_must_be_the_first_line_and_the_only_one() -> None:
    lines = _valid()
    lines.insert(2, lines[0])
    assert _problems(lines) == [(3, "a header line after the first line")]
    assert _problems(_valid()[1:]) == [(1, "the first line is not the header (a result line)")]


def test_the_summary_must_be_the_last_line_and_the_only_one() -> None:
    lines = _valid()
    assert _problems(lines[:-1]) == [(4, "the last line is not the summary (a result line: an unfinished run?)")]
    lines.insert(2, lines[-1])
    assert _problems(lines)[0] == (3, "a summary line before the last line")


def test_a_lone_result_line_has_neither_header_nor_summary() -> None:
    assert _problems([_valid()[1]]) == [(1, "the first line is not the header (a result line)"),
                                        (1, "the last line is not the summary (a result line: an unfinished run?)")]


def test_row_ids_are_unique() -> None:
    lines = _valid()
    lines.insert(2, lines[1])
    lines[-1] = reports.summary_line({}, [ROWS[0], *ROWS])
    assert _problems(lines) == [(3, "the row PRIM-001 appears twice (first at line 2)")]


def test_the_summary_total_matches_the_rows() -> None:
    lines = _valid()
    lines[-1] = {**lines[-1], "total": 4}  # type: ignore[dict-item]
    assert _problems(lines) == [(5, "the summary's total 4 does not match its 3 result rows")]


def test_the_summary_counts_match_the_rows() -> None:
    lines = _valid()
    lines[-1] = {**lines[-1], "counts": {"FAIL": 2, "PASS": 1}}  # type: ignore[dict-item]
    assert _problems(lines) == [
        (5, 'the summary\'s counts {"FAIL": 2, "PASS": 1} do not match its rows\' {"FAIL": 1, "PASS": 2}')]


def test_conformant_follows_from_the_counts() -> None:
    lines = _valid()
    lines[-1] = {**lines[-1], "conformant": True}  # type: ignore[dict-item]
    assert _problems(lines) == [(5, "the summary's 'conformant' (true) does not follow from its counts")]


def test_a_run_with_a_manifest_and_nothing_passed_yet_is_conformant_only_when_its_header_says_so() -> None:
    """A new port's first run (every row UNSUPPORTED, its own manifest given: the header's
    ``expectations``) is conformant; the same rows without a manifest are not."""
    unsupported = [row("PRIM-001", "UNSUPPORTED"), row("PRIM-002", "UNSUPPORTED")]
    with_manifest = lines_of(unsupported)
    with_manifest[0] = {**with_manifest[0], "expectations": {"implementation": "x", "entries": 0}}  # type: ignore[dict-item]
    with_manifest[-1] = {**with_manifest[-1], "conformant": True}  # type: ignore[dict-item]
    assert _problems(with_manifest) == []
    without = lines_of(unsupported)
    assert without[-1]["conformant"] is False  # type: ignore[index]
    without[-1] = {**without[-1], "conformant": True}  # type: ignore[dict-item]
    assert _problems(without) == [(4, "the summary's 'conformant' (true) does not follow from its counts")]
    with_manifest[-1] = {**with_manifest[-1], "conformant": False}  # type: ignore[dict-item]
    assert _problems(with_manifest) == [(4, "the summary's 'conformant' (false) does not follow from its counts")]


def test_an_empty_report() -> None:
    assert _problems([]) == [(0, "the report is empty: no header, no results, no summary")]


def test_several_problems_at_once_in_line_order_and_parse_lines_names_the_first(tmp_path: Path) -> None:
    lines = _valid()
    lines[1] = {**lines[1], "duration_ms": -1}  # type: ignore[dict-item]
    lines.insert(3, lines[2])
    lines.insert(2, "nope")
    lines[-1] = {**lines[-1], "conformant": True}  # type: ignore[dict-item]
    found = _problems(lines)
    assert found == [(2, "not a report line: $.duration_ms: -1 is less than the minimum of 0"),
                     (3, "not JSON: Expecting value"),
                     (5, "the row PRIM-002 appears twice (first at line 4)"),
                     (7, "the summary's 'conformant' (true) does not follow from its counts")]
    with pytest.raises(reports.ReportError) as raised:
        reports.parse_lines(ndjson(lines), "r.ndjson")
    assert raised.value.message == f"r.ndjson:2: {found[0][1]}"
    path = tmp_path / "r.ndjson"
    path.write_text(ndjson(lines), encoding="utf-8")
    done = conformance("validate-report", path, timeout=60)
    assert done.code == 1
    assert done.stdout.splitlines() == [f"{path}: invalid (4 problems)",
                                        *(f"  {path}:{line}: {message}" for line, message in found)]


def test_exit_1_when_one_report_is_invalid_or_missing_and_each_is_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = report_files.write(tmp_path / "good.ndjson", ROWS, name="port", version="2")
    missing = tmp_path / "missing.ndjson"
    assert main(["validate-report", str(good)]) == 0
    assert capsys.readouterr().out == f"{good}: valid (3 rows, implementation port 2)\n"
    assert main(["validate-report", str(missing), str(good)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{missing}: invalid (1 problem)", f"  {missing}: cannot be read: No such file or directory",
        f"{good}: valid (3 rows, implementation port 2)"]


def test_json_follows_its_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = report_files.write(tmp_path / "good.ndjson", ROWS)
    bad = tmp_path / "bad.ndjson"
    bad.write_text(ndjson(_valid()[:-1]), encoding="utf-8")
    assert main(["validate-report", "--json", str(good), str(bad)]) == 1
    document = json.loads(capsys.readouterr().out)
    assert schemas.errors(document, "validate-report/v1/verdicts.schema.json") == []
    assert [(entry["valid"], entry["rows"], len(entry["problems"])) for entry in document["reports"]] == [
        (True, 3, 0), (False, None, 1)]
    assert document["reports"][1]["problems"][0]["line"] == 4


def test_usage_is_exit_2() -> None:
    done = conformance("validate-report", timeout=60)
    assert done.code == 2 and "REPORT" in done.stderr and "Traceback" not in done.stderr


def test_a_message_holding_line_separators_stays_one_line() -> None:
    """NDJSON lines end at LF only: U+2028, U+2029 and U+0085 in a failure message (a scenario about
    them fails with them in its message) are characters of the line, written raw by the runner."""
    rows = [row("PRIM-001"), row("PRIM-012[separator]", "FAIL", "expected '\u2028\u2029' got '\u0085'")]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines_of(rows))
    report, found = reports.examine(text)
    assert found == [] and report is not None
    assert [result["message"] for result in report.results][1] == "expected '\u2028\u2029' got '\u0085'"
