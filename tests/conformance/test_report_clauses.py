"""Reports carry the rule (issue 26, deliverable 4): each row names the clauses its scenario cites
(``@clause:`` tags) with their text and a link to their anchor, in the NDJSON report, in JUnit and
in the summary's failure view; the report schema holds rows of contract version 4 to it.

The real runs use a copy of the suite whose primitives features cite no clause but in PRIM-003,
which cites two, against ``testkit.ports.wrong_answer``, which gets one PRIM-003 row wrong.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from testkit import report_files
from testkit.paths import REPO_ROOT
from testkit.ports import RUNNER, run_plugin_in_process, run_suite
from testkit.ports.wrong_answer import AT_ENV

from conformance import clauses, junit, reports, schemas, summary
from conformance.expectation_updates import update_expectations
from conformance.row_clauses import CitedClause, ClauseTexts, cited, link_of
from conformance.suite import SUITE_ENV, suite_root
from conformance.summary_render import Format, render

WRONG_ANSWER = REPO_ROOT / "tests" / "testkit" / "ports" / "wrong_answer.py"
CITED = ("C0.2-1", "D3-1")  # the chars-v1 estimate counts UTF-16 units; every character limit does
SPEC = suite_root() / "docs" / "spec"
RUN_SECONDS = 180


def spec_text(clause_id: str) -> str:
    return next(clause.text for clause in clauses.clauses(SPEC) if clause.id == clause_id)


@pytest.fixture(scope="module")
def cited_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the suite whose primitives features cite no clause but in PRIM-003 (an outline of
    four rows), which cites :data:`CITED`."""
    suite = tmp_path_factory.mktemp("cited") / "suite"
    for part in ("features", "schemas", "fixtures", "docs"):
        shutil.copytree(suite_root() / part, suite / part)
    for path in (suite / "features/primitives").glob("*.feature"):
        untagged = re.sub(r"^[ \t]*@clause:.*\n", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
        assert "@clause:" not in untagged
        path.write_text(untagged, encoding="utf-8")
    feature = suite / "features/primitives/primitives.feature"
    text = feature.read_text(encoding="utf-8")
    tags = " ".join(f"@clause:{clause_id}" for clause_id in CITED)
    feature.write_text(text.replace("  @id:PRIM-003\n", f"  @id:PRIM-003 {tags}\n", 1), encoding="utf-8")
    assert "@clause:C0.2-1" in feature.read_text(encoding="utf-8")
    return suite


def expected_clauses() -> list[dict[str, str]]:
    return [{"id": clause_id, "text": spec_text(clause_id), "link": link_of(clause_id)} for clause_id in CITED]


# --- the typed value and the spec's texts ---------------------------------------------------------


def test_a_clause_is_cited_with_the_spec_text_and_a_link_to_its_anchor() -> None:
    texts = ClauseTexts.of_spec(SPEC)
    found = texts.cite(["D3-1", "C99.9-9", "C6.1-1", "C0.2-1", "D3-1"])  # in the spec's order, each once
    assert [clause.id for clause in found] == ["C0.2-1", "C6.1-1", "D3-1", "C99.9-9"]
    assert found[0] == CitedClause("C0.2-1", spec_text("C0.2-1"), "docs/spec/contract.md#C0.2-1")
    assert found[2].link == "docs/spec/decisions.md#D3-1" and "UTF-16 code units" in found[2].text
    assert link_of("P1.5-2") == "docs/spec/pi-session-model.md#P1.5-2"
    anchor = '<a id="C0.2-1"></a>'
    assert anchor in (SPEC / "contract.md").read_text(encoding="utf-8")  # the link's target exists


def test_an_id_the_spec_lacks_is_cited_without_text_and_a_tag_that_is_no_id_is_refused() -> None:
    (unknown,) = ClauseTexts.of_spec(SPEC).cite(["C99.9-9"])
    assert unknown == CitedClause("C99.9-9", "", "docs/spec/contract.md#C99.9-9")
    assert "not in the suite's spec" in unknown.line
    with pytest.raises(ValueError, match="not a clause id"):
        ClauseTexts.of_spec(SPEC).cite(["6.12-3"])


def test_a_rows_clauses_read_back_typed_and_an_older_row_has_none() -> None:
    row = {**report_files.row("PRIM-003"), "clauses": expected_clauses()}
    assert cited(row) == tuple(CitedClause(**clause) for clause in expected_clauses())
    assert cited(report_files.row("PRIM-001")) == ()


# --- the schema and validate-report ---------------------------------------------------------------


def result_line(**extra: Any) -> dict[str, Any]:
    return {"type": "result", **report_files.row("PRIM-003", "FAIL", "m"), **extra}


GOOD = {"id": "C0.2-1", "text": "a rule", "link": "docs/spec/contract.md#C0.2-1"}


@pytest.mark.parametrize(("clauses_value", "valid"), [
    ([], True),
    ([GOOD], True),
    ([GOOD, {"id": "D3-1", "text": "", "link": "docs/spec/decisions.md#D3-1"}], True),  # an id the spec lacks
    ([{"id": "P1.5-2", "text": "t", "link": "docs/spec/pi-session-model.md#P1.5-2"}], True),
    ([{"id": "C6.12", "text": "t", "link": "docs/spec/contract.md#C6.12"}], False),  # no number in the section
    ([{"id": "X1-1", "text": "t", "link": "docs/spec/contract.md#X1-1"}], False),
    ([{**GOOD, "link": "https://evil.example/#C0.2-1"}], False),
    ([{**GOOD, "link": "docs/spec/contract.md"}], False),
    ([{"id": "C0.2-1", "link": GOOD["link"]}], False),  # no text
    ([{**GOOD, "why": "x"}], False),
    ([GOOD, GOOD], False),  # once each
    ("C0.2-1", False),
])
def test_the_schema_holds_a_rows_clauses_to_their_shape(clauses_value: Any, valid: bool) -> None:
    assert (schemas.errors(result_line(clauses=clauses_value), reports.REPORT_SCHEMA) == []) is valid


def test_rows_of_contract_version_4_carry_clauses_and_older_reports_need_not() -> None:
    rows = [report_files.row("PRIM-001"), {**report_files.row("PRIM-003", "FAIL", "boom"), "clauses": [GOOD]}]
    older = report_files.lines_of(rows)  # a header without contract_version: before version 4
    assert reports.examine(report_files.ndjson(older))[1] == []
    current = report_files.lines_of(rows)
    header = current[0]
    assert isinstance(header, dict)
    header["contract_version"] = reports.CONTRACT_VERSION
    report, problems = reports.examine(report_files.ndjson(current))
    assert report is None
    assert [(p.line, p.message) for p in problems] == [
        (2, "the row PRIM-001 has no 'clauses' (every row of contract version 4 lists them, [] when none)")]
    for row in rows:
        row.setdefault("clauses", [])
    fixed = report_files.lines_of(rows)
    assert isinstance(fixed[0], dict)
    fixed[0]["contract_version"] = reports.CONTRACT_VERSION
    assert reports.examine(report_files.ndjson(fixed))[1] == []


@pytest.mark.parametrize(("version", "valid"), [(4, True), (5, True), (3, False), ("4", False), (None, False)])
def test_the_header_names_a_contract_version_of_4_or_more(version: Any, valid: bool) -> None:
    header = {**report_files.header(), "contract_version": version}
    assert (schemas.errors(header, reports.REPORT_SCHEMA) == []) is valid


def test_the_contract_version_the_reports_carry_is_the_one_interpreting_declares() -> None:
    page = (REPO_ROOT / "docs" / "INTERPRETING.md").read_text(encoding="utf-8")
    declared = re.search(r"^Suite contract version: \*\*(\d+)\*\*", page, re.M)
    assert declared is not None and int(declared.group(1)) == reports.CONTRACT_VERSION == 4
    assert re.search(r"^Version 4: ", page, re.M), "the page says what version 4 changed"


# --- synthetic rows: every failing kind, a long text, what a forged report may hold -------------


LONG = CitedClause("C6.12-3", "The lock <b>is</b> taken \x1b[31m before " + "every write of the journal " * 12,
                   "docs/spec/contract.md#C6.12-3")
UNKNOWN = CitedClause("P9.9-9", "", "docs/spec/pi-session-model.md#P9.9-9")


def synthetic(status: str, *found: CitedClause) -> dict[str, Any]:
    return {**report_files.row("TREE-001", status, "E   AssertionError: boom"), "clauses": [c.as_json() for c in found]}


@pytest.mark.parametrize(("status", "element"), [("FAIL", "failure"), ("XPASS", "failure"), ("ERROR", "error"),
                                                 ("CRASH", "error"), ("XFAIL", "skipped")])
def test_junit_names_the_clauses_of_every_kind_of_failure(tmp_path: Path, status: str, element: str) -> None:
    path = tmp_path / "junit.xml"
    junit.write_junit(report_files.report([synthetic(status, LONG, UNKNOWN)]), path)
    (case,) = ET.parse(path).getroot().iter("testcase")
    values = [p.get("value") for p in case.findall("properties/property") if p.get("name") == "clause"]
    assert values == [f"C6.12-3: {junit.xml_text(LONG.text)}", "P9.9-9: (not in the suite's spec: conformance "
                                                               "check names it)"]
    told = case.find(element)
    assert told is not None and told.get("message") == "AssertionError: boom [clauses C6.12-3, P9.9-9]"
    assert "clause P9.9-9 (docs/spec/pi-session-model.md#P9.9-9)" in str(told.text)


def test_the_failure_views_wrap_a_long_clause_whole_and_escape_what_a_report_holds(tmp_path: Path) -> None:
    path = report_files.write(tmp_path / "r.ndjson", [synthetic("FAIL", LONG), report_files.row("TREE-002")])
    made = summary.summarize([str(path)], show_failures=True)
    text = render(made, Format.TEXT)
    under = text[text.index("TREE-001  FAIL"):].splitlines()[1:]
    assert len(under) > 2 and all(len(line) <= 100 for line in under) and "\\x1b[31m" in under[0]
    assert " ".join(line.strip() for line in under).startswith("C6.12-3: The lock <b>is</b> taken \\x1b[31m before")
    assert " ".join(line.strip() for line in under).endswith("every write of the journal")
    page = render(made, Format.HTML)
    assert "The lock &lt;b&gt;is&lt;/b&gt; taken" in page and "<b>" not in page
    assert re.findall(r'href="([^"]*)"', page) == ["docs/spec/contract.md#C6.12-3"]


def test_a_clause_tag_that_is_no_clause_id_stops_the_run(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    for part in ("features", "schemas", "fixtures", "docs"):
        shutil.copytree(suite_root() / part, suite / part)
    feature = suite / "features/primitives/primitives.feature"
    feature.write_text(feature.read_text(encoding="utf-8").replace("  @id:PRIM-004\n", "  @id:PRIM-004 @clause:6.12\n"),
                       encoding="utf-8")
    run = run_plugin_in_process(tmp_path, "reference", "--rr-only", "PRIM-004", env={SUITE_ENV: str(suite)})
    assert run.code == pytest.ExitCode.USAGE_ERROR, run.stdout + run.stderr
    assert "@clause:6.12 is not a clause id" in run.stderr


# --- a failing row, in every form -----------------------------------------------------------------


@pytest.fixture(scope="module")
def failed_in_process(cited_suite: Path, tmp_path_factory: pytest.TempPathFactory,
                      ) -> tuple[reports.Report, Path]:
    folder = tmp_path_factory.mktemp("in-process")
    run_plugin_in_process(folder, "testkit.ports.wrong_answer:WrongOnce", "--rr-only", "PRIM-00[34]*",
                          env={AT_ENV: "3", SUITE_ENV: str(cited_suite)}, seconds=RUN_SECONDS)
    return reports.read_report(folder / "report.ndjson"), folder / "report.ndjson"


def test_a_failing_row_of_the_report_carries_its_clauses_and_the_others_theirs(
        failed_in_process: tuple[reports.Report, Path]) -> None:
    report, _ = failed_in_process
    rows = {row["id"]: row for row in report.results}
    assert rows["PRIM-003[astral]"]["status"] == "FAIL"
    assert rows["PRIM-003[astral]"]["clauses"] == expected_clauses()
    assert rows["PRIM-003[ascii]"]["status"] == "PASS" and rows["PRIM-003[ascii]"]["clauses"] == expected_clauses()
    assert rows["PRIM-004"]["clauses"] == []  # no @clause: tag
    assert report.header["contract_version"] == reports.CONTRACT_VERSION


def test_junit_gives_each_case_its_clauses_and_a_failure_names_them(tmp_path: Path,
                                                                    failed_in_process: tuple[reports.Report, Path],
                                                                    ) -> None:
    report, _ = failed_in_process
    path = tmp_path / "junit.xml"
    junit.write_junit(report, path)
    cases = {case.get("name"): case for case in ET.parse(path).getroot().iter("testcase")}
    failed = cases["PRIM-003[astral]"]
    properties = [(p.get("name"), p.get("value")) for p in failed.findall("properties/property")]
    assert properties == [("clause", f"{clause_id}: {spec_text(clause_id)}") for clause_id in CITED]
    failure = failed.find("failure")
    assert failure is not None
    assert str(failure.get("message")).endswith("[clauses C0.2-1, D3-1]"), failure.get("message")
    assert "C0.2-1 (docs/spec/contract.md#C0.2-1)" in str(failure.text)
    assert cases["PRIM-004"].find("properties") is None  # no clause, no properties element


def test_the_text_summary_shows_a_failing_rows_clauses_whole_and_wrapped(
        failed_in_process: tuple[reports.Report, Path]) -> None:
    _, path = failed_in_process
    text = render(summary.summarize([str(path)], show_failures=True), Format.TEXT)
    listing = text[text.index("rows not PASS"):]
    row_at = listing.index("PRIM-003[astral]")
    under = listing[row_at:].splitlines()[1:]
    assert under[0].strip().startswith("C0.2-1: ") and all(len(line) <= 100 for line in under)
    shown = " ".join(line.strip() for line in under)
    for clause_id in CITED:
        assert f"{clause_id}: {' '.join(spec_text(clause_id).split())}" in shown  # whole, not cut
    assert "C0.2-1" not in text[:text.index("rows not PASS")]  # passing rows do not show theirs


def test_the_html_summary_links_a_failing_rows_clauses_to_their_anchors(
        failed_in_process: tuple[reports.Report, Path]) -> None:
    _, path = failed_in_process
    page = render(summary.summarize([str(path)], show_failures=True), Format.HTML)
    failures = page[page.index("<h2>Rows not PASS</h2>"):page.index("<h2>Rows per area</h2>")]
    assert '<a href="docs/spec/contract.md#C0.2-1"><code>C0.2-1</code></a>' in failures
    assert '<a href="docs/spec/decisions.md#D3-1"><code>D3-1</code></a>' in failures
    assert "ceil(length / 4)" in failures
    assert "href" not in page[page.index("<h2>Rows per area</h2>"):]


def test_update_expectations_names_the_clauses_of_the_rows_it_expects_to_fail(
        tmp_path: Path, failed_in_process: tuple[reports.Report, Path]) -> None:
    _, path = failed_in_process
    manifest = tmp_path / "expectations.toml"
    update_expectations(path, manifest)
    written = manifest.read_text(encoding="utf-8")
    entry = written[written.index('id = "PRIM-003[astral]"') - 60:]
    assert "# checks C0.2-1, D3-1" in entry, written


# --- -j 2 and --stdio -----------------------------------------------------------------------------


def test_two_workers_over_stdio_keep_every_rows_clauses(cited_suite: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SUITE_ENV, str(cited_suite))
    junit_path = tmp_path / "junit.xml"
    run = run_suite(tmp_path, [sys.executable, str(WRONG_ANSWER)], "--only", "PRIM-*", "-j", "2", "--no-progress",
                    "--junitxml", str(junit_path), seconds=RUN_SECONDS)
    assert run.rows, run.stdout + run.stderr
    outline = {key: row for key, row in run.rows.items() if key.startswith("PRIM-003[")}
    assert len(outline) == 4 and all(row["clauses"] == expected_clauses() for row in outline.values())
    assert all(row["clauses"] == [] for key, row in run.rows.items() if not key.startswith("PRIM-003["))
    assert reports.read_report(tmp_path / "report.ndjson").header["contract_version"] == reports.CONTRACT_VERSION
    values = [p.get("value") for p in ET.parse(junit_path).getroot().iter("property") if p.get("name") == "clause"]
    assert values.count(f"C0.2-1: {spec_text('C0.2-1')}") == 4


def test_validate_report_accepts_the_runs_report(cited_suite: Path, tmp_path: Path,
                                                 failed_in_process: tuple[reports.Report, Path]) -> None:
    _, path = failed_in_process
    done = subprocess.run([*RUNNER[:-1], "validate-report", "--json", str(path)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["reports"][0]["valid"] is True
