"""Clause coverage (issue 26): the citations read from tags, mutants and unobservable.toml, the
coverage they give, its four forms and exits, and the rules ``conformance check`` holds them to."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.paths import REPO_ROOT
from testkit.profiles import examples

from conformance import schemas
from conformance.clause_rules import citation_problems
from conformance.clauses import Clause
from conformance.coverage import Citations, Citing, Sources, State, Unobservable, coverage, read_citations
from conformance.coverage_render import GENERATED, Format, render, render_markdown
from conformance.mutant_catalogue import Mutant
from conformance.suite import features_dir, suite_root

COVERAGE_SCHEMA = "clauses/v1/coverage.schema.json"

CONTRACT = """# Contract

## 1. Reading

- <a id="C1-1"></a><sup>C1-1</sup> A reader never writes.
- <a id="C1-2"></a><sup>C1-2</sup> At most 10 records are read.

## 2. Writing

<a id="C2-1"></a><sup>C2-1</sup> The file is fsynced before it is renamed.
"""
DECISIONS = """# Decisions

## D1. One

<a id="D1-1"></a><sup>D1-1</sup> One decision holds.
"""
READ_FEATURE = """@clause:C1-1
Feature: Reading

  @id:READ-001 @clause:C1-2
  Scenario: At most ten records are read
    When the session is inspected

  @id:READ-002
  Scenario Outline: A reader never writes
    When the <case> is read

    Examples:
      | case |
      | one  |
      | two  |
"""
WRITE_FEATURE = """Feature: Writing

  @id:WRITE-001 @clause:D1-1
  Scenario: One decision holds
    When the session is inspected
"""
MUTANTS = """# fixture
[[mutant]]
id = "READ-M001"
area = "READ"
section = "contract.md §1"
bug = "reads 11 records"
kills = ["READ-001"]
clauses = ["C1-2"]
find = "a"
replace = "b"
"""
UNOBSERVABLE = """# clauses no scenario can check
["C2-1"]
reason = "an fsync leaves no trace a port can show"
tested_in = ["tests/test_durable.py::test_fsync", "tests/test_durable.py"]
"""


def make_suite(root: Path) -> Sources:
    """A suite of four clauses, all covered or reasoned: C1-1 by a feature tag, C1-2 and D1-1 by
    scenario tags, C2-1 unobservable; one mutant names C1-2."""
    files = {"docs/spec/contract.md": CONTRACT, "docs/spec/decisions.md": DECISIONS,
             "docs/spec/pi-session-model.md": "# Pi\n", "features/read/read.feature": READ_FEATURE,
             "features/write/write.feature": WRITE_FEATURE, "features/unobservable.toml": UNOBSERVABLE,
             "conformance/mutants/read.toml": MUTANTS, "tests/test_durable.py": "def test_fsync() -> None:\n    pass\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return Sources(root / "docs/spec", root / "features", root / "conformance/mutants", root)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_citations_are_read_from_tags_mutants_and_unobservable_toml(tmp_path: Path) -> None:
    citations = read_citations(make_suite(tmp_path))
    assert [clause.id for clause in citations.clauses] == ["C1-1", "C1-2", "C2-1", "D1-1"]
    assert citations.scenarios == (
        Citing("READ-001", "features/read/read.feature", 5, ("READ-001",), ("C1-1", "C1-2")),
        Citing("READ-002", "features/read/read.feature", 9, ("READ-002[one]", "READ-002[two]"), ("C1-1",)),
        Citing("WRITE-001", "features/write/write.feature", 4, ("WRITE-001",), ("D1-1",)))
    assert [(m.id, m.clauses, m.line) for m in citations.mutants] == [("READ-M001", ("C1-2",), 3)]
    assert citations.unobservable == (Unobservable("C2-1", "an fsync leaves no trace a port can show",
                                                   ("tests/test_durable.py::test_fsync", "tests/test_durable.py"), 2),)
    assert citations.unreadable == ()


def test_coverage_joins_each_clause_to_its_rows_mutants_and_reason(tmp_path: Path) -> None:
    report = coverage(read_citations(make_suite(tmp_path)))
    by_id = {item.clause.id: item for item in report.clauses}
    assert by_id["C1-1"].scenarios == ("READ-001", "READ-002[one]", "READ-002[two]")
    assert by_id["C1-2"].scenarios == ("READ-001",) and by_id["C1-2"].mutants == ("READ-M001",)
    assert by_id["C2-1"].state == State.UNOBSERVABLE and by_id["C2-1"].scenarios == ()
    assert [(s.document, s.section, s.tally.clauses, s.tally.covered, s.tally.unobservable, s.tally.mutated)
            for s in report.sections] == [("contract.md", "1", 2, 2, 0, 1), ("contract.md", "2", 1, 0, 1, 0),
                                          ("decisions.md", "D1", 1, 1, 0, 0)]
    assert [(a.area, a.scenarios, a.citing, a.clauses, a.mutants) for a in report.areas] == [
        ("READ", 2, 2, 2, 1), ("WRITE", 1, 1, 1, 0)]
    assert report.complete and (report.scenarios, report.citing) == (3, 3)


def test_an_uncovered_clause_comes_first_and_makes_the_coverage_incomplete(tmp_path: Path) -> None:
    sources = make_suite(tmp_path)
    edit(sources.features_dir / "write/write.feature", " @clause:D1-1", "")
    report = coverage(read_citations(sources))
    assert [item.clause.id for item in report.clauses] == ["D1-1", "C1-1", "C1-2", "C2-1"]
    assert not report.complete and report.totals.uncovered == 1


def test_a_clause_tag_may_cite_several_and_an_unknown_id_counts_nowhere(tmp_path: Path) -> None:
    sources = make_suite(tmp_path)
    edit(sources.features_dir / "write/write.feature", "@clause:D1-1", "@clause:D1-1,C1-2,C9-9")
    report = coverage(read_citations(sources))
    assert {item.clause.id: item.scenarios for item in report.clauses}["C1-2"] == ("READ-001", "WRITE-001")
    assert report.totals.clauses == 4 and report.areas[1].clauses == 2


# --- conformance check's rules -------------------------------------------------------------------

BREAKAGES = {
    "unknown-tag": (("features/write/write.feature", "@clause:D1-1", "@clause:D1-1 @clause:C9-9"),
                    "features/write/write.feature:4: WRITE-001: @clause:C9-9 is no clause of docs/spec/"),
    "malformed-tag": (("features/write/write.feature", "@clause:D1-1", "@clause:D1-1,six"),
                      "features/write/write.feature:4: WRITE-001: @clause:'six' is not a clause id"),
    "no-clause": (("features/write/write.feature", " @clause:D1-1", " @clause:"),
                  "features/write/write.feature:4: WRITE-001: @clause:'' is not a clause id"),
    "cites-none": (("features/read/read.feature", "@clause:C1-1\n", ""),
                   "features/read/read.feature:8: READ-002 cites no clause"),
    "uncited": (("features/write/write.feature", " @clause:D1-1", ""),
                "docs/spec/decisions.md:5: D1-1 is cited by no scenario and not listed in features/unobservable.toml"),
    "unknown-mutant": (("conformance/mutants/read.toml", 'clauses = ["C1-2"]', 'clauses = ["C1-2", "C7-7"]'),
                       "conformance/mutants/read.toml:3: READ-M001: clauses: C7-7 is no clause of docs/spec/"),
    "unknown-unobservable": (("features/unobservable.toml", '["C2-1"]', '["C8-1"]\nreason = "r"\n'
                              'tested_in = ["tests"]\n\n["C2-1"]'),
                             "features/unobservable.toml:2: C8-1 is no clause of docs/spec/"),
    "no-reason": (("features/unobservable.toml", 'reason = "an fsync leaves no trace a port can show"',
                   'reason = "  "'), "features/unobservable.toml:2: C2-1: no reason why no scenario can check it"),
    "no-tested-in": (("features/unobservable.toml", 'tested_in = [', 'tested_in = []\nx = ['),
                     "features/unobservable.toml:2: C2-1: reason must be a string and tested_in a list of paths "
                     "(unknown keys: x)"),
    "empty-tested-in": (("features/unobservable.toml", '"tests/test_durable.py::test_fsync", "tests/test_durable.py"',
                         ""), "features/unobservable.toml:2: C2-1: tested_in names no test that checks it instead"),
    "missing-path": (("features/unobservable.toml", '"tests/test_durable.py"]', '"tests/test_gone.py"]'),
                     "features/unobservable.toml:2: C2-1: tested_in 'tests/test_gone.py': no such path"),
    "missing-test": (("features/unobservable.toml", "::test_fsync", "::test_fsync_gone"),
                     "features/unobservable.toml:2: C2-1: tested_in 'tests/test_durable.py::test_fsync_gone': "
                     "tests/test_durable.py has no test 'test_fsync_gone'"),
    "escaping-path": (("features/unobservable.toml", '"tests/test_durable.py"]', '"../outside.py"]'),
                      "features/unobservable.toml:2: C2-1: tested_in '../outside.py': no such path"),
    "cited-and-unobservable": (("features/write/write.feature", "@clause:D1-1", "@clause:D1-1,C2-1"),
                               "features/unobservable.toml:2: C2-1 is cited by a scenario and listed unobservable: "
                               "it is one or the other"),
    "unquoted-id": (("features/unobservable.toml", '["C2-1"]', '["C2-1"]\nreason = "r"\ntested_in = ["tests"]\n\n[C2.1-1]'),
                    'features/unobservable.toml:6: [C2.…] is a dotted key: quote the clause id, ["C2.…"]'),
    "not-toml": (("features/unobservable.toml", '["C2-1"]', '["C2-1"'), "features/unobservable.toml: not TOML: "),
}


def test_a_sound_suite_has_no_citation_problem(tmp_path: Path) -> None:
    sources = make_suite(tmp_path)
    assert citation_problems(read_citations(sources), sources) == []


@pytest.mark.parametrize("name", sorted(BREAKAGES))
def test_each_citation_problem_is_one_line_naming_its_file_and_line(tmp_path: Path, name: str) -> None:
    (path, old, new), expected = BREAKAGES[name]
    sources = make_suite(tmp_path)
    edit(tmp_path / path, old, new)
    (tmp_path / "outside.py").write_text("", encoding="utf-8")
    problems = citation_problems(read_citations(sources), sources)
    assert any(problem.startswith(expected) for problem in problems), problems
    assert all("\n" not in problem for problem in problems)


def test_tested_in_is_not_checked_where_no_tests_ship(tmp_path: Path) -> None:
    """An installed wheel carries features/ and docs/ but no tests/: the places cannot be looked at there."""
    sources = make_suite(tmp_path)
    shutil.rmtree(tmp_path / "tests")
    assert citation_problems(read_citations(sources), sources) == []


def check(suite: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "check"], capture_output=True,
                          text=True, timeout=180, env={**os.environ, "RECALL_REBASE_SUITE": str(suite)})


def test_conformance_check_names_an_unknown_clause_tag_and_counts_the_clauses(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    for part in ("features", "schemas", "fixtures", "docs"):
        shutil.copytree(suite_root() / part, suite / part)
    feature = suite / "features/tree/tree.feature"
    lines = feature.read_text(encoding="utf-8").splitlines()
    first = next(number for number, line in enumerate(lines) if "@id:" in line)
    lines[first] += " @clause:C999.9-1"
    feature.write_text("\n".join(lines) + "\n", encoding="utf-8")
    scenario_line = first + 2 if lines[first + 1].lstrip().startswith("@") else first + 1
    done = check(suite)
    assert done.returncode == 1
    scenario = re.search(r"@id:(\S+)", lines[first])
    assert scenario is not None
    assert (f"problem: features/tree/tree.feature:{scenario_line + 1}: {scenario.group(1)}: "
            "@clause:C999.9-1 is no clause of docs/spec/") in done.stdout.splitlines()
    total = len(read_citations(Sources(suite / "docs/spec", suite / "features", tmp_path / "none", suite)).clauses)
    assert re.search(rf", {total} clauses: \d+ problem\(s\)$", done.stdout.splitlines()[-1]), done.stdout[-300:]


# --- the command: forms and exits ----------------------------------------------------------------

def coverage_command(suite: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "coverage", *args],
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, "RECALL_REBASE_SUITE": str(suite)})


def test_the_command_exits_0_when_every_clause_is_covered_or_reasoned_and_1_when_not(tmp_path: Path) -> None:
    make_suite(tmp_path)
    done = coverage_command(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("4 clauses of docs/spec/: 3 covered by a scenario, 1 unobservable (with a reason), "
                                  "0 uncovered;")
    edit(tmp_path / "features/write/write.feature", " @clause:D1-1", "")
    done = coverage_command(tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[2].startswith("UNCOVERED: 1 clause(s)") and lines[3].split() [:3] == ["D1-1", "decisions.md", "§D1"]


@pytest.mark.parametrize("args", [["--format", "pdf"], ["--bogus"], ["--format", "json", "--format", "text"]])
def test_bad_usage_is_exit_2(tmp_path: Path, args: list[str]) -> None:
    make_suite(tmp_path)
    done = coverage_command(tmp_path, *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("recall-rebase: usage: ")


def test_the_help_says_what_each_exit_means(tmp_path: Path) -> None:
    done = coverage_command(tmp_path, "--help")
    text = " ".join(done.stdout.split())
    assert done.returncode == 0
    assert "Exit 0: every clause is covered by a scenario or reasoned unobservable; 1: some clause is neither; 2: usage" \
        in text
    assert "--format {text,markdown,html,json}" in text


def test_json_is_one_object_valid_against_its_schema_uncovered_first(tmp_path: Path) -> None:
    make_suite(tmp_path)
    edit(tmp_path / "features/write/write.feature", " @clause:D1-1", "")
    done = coverage_command(tmp_path, "--json")
    document = json.loads(done.stdout)
    assert schemas.errors(document, COVERAGE_SCHEMA) == []
    assert done.returncode == 1
    assert [clause["id"] for clause in document["clauses"]] == ["D1-1", "C1-1", "C1-2", "C2-1"]
    assert document["clauses"][3] | {"text": ""} == {
        "id": "C2-1", "document": "contract.md", "section": "2", "heading": "2. Writing", "line": 10, "text": "",
        "state": "unobservable", "scenarios": [], "mutants": [], "unobservable": "an fsync leaves no trace a port can show",
        "testedIn": ["tests/test_durable.py::test_fsync", "tests/test_durable.py"]}
    assert document["totals"] == {"clauses": 4, "covered": 2, "unobservable": 1, "uncovered": 1, "mutated": 1,
                                  "scenarios": 3, "citing": 2}
    assert coverage_command(tmp_path, "--format", "json").stdout == done.stdout


def test_markdown_links_each_uncovered_clause_and_escapes_table_cells(tmp_path: Path) -> None:
    sources = make_suite(tmp_path)
    edit(sources.spec_dir / "contract.md", "## 2. Writing", "## 2. Writing | reading")
    edit(tmp_path / "features/write/write.feature", " @clause:D1-1", "")
    text = render_markdown(coverage(read_citations(sources)))
    assert "- [D1-1](spec/decisions.md#D1-1) decisions.md §D1: One decision holds." in text
    assert "| contract.md | 1 | 2 | 2 | 0 | 0 | 1 |" in text
    assert "| total |  | 4 | 2 | 1 | 1 | 1 |" in text


def test_html_is_one_self_contained_page_with_every_clause_escaped(tmp_path: Path) -> None:
    sources = make_suite(tmp_path)
    edit(sources.spec_dir / "contract.md", "A reader never writes.", "A reader never writes <script>.")
    page = render(coverage(read_citations(sources)), Format.HTML)
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "src=" not in page and "href=" not in page
    assert all(f'id="{clause}"' in page for clause in ("C1-1", "C1-2", "C2-1", "D1-1"))


# --- the real suite ------------------------------------------------------------------------------

def test_the_real_coverage_follows_its_schema_and_names_every_clause_once() -> None:
    document = json.loads(render(coverage(read_citations()), Format.JSON))
    assert schemas.errors(document, COVERAGE_SCHEMA) == []
    index = json.loads((REPO_ROOT / "docs/spec/clauses.json").read_text(encoding="utf-8"))
    assert sorted(clause["id"] for clause in document["clauses"]) == sorted(c["id"] for c in index["clauses"])


def test_unobservable_toml_ships_with_the_features() -> None:
    """The wheel carries features/ whole (pyproject force-include): under tox this reads the installed copy."""
    assert (features_dir() / "unobservable.toml").is_file()
    assert read_citations().unreadable == ()




def test_docs_coverage_md_holds_the_current_coverage() -> None:
    page = (REPO_ROOT / "docs/coverage.md").read_text(encoding="utf-8")
    assert GENERATED in page
    assert page.split(GENERATED, 1)[1] == render_markdown(coverage(read_citations())), (
        "docs/coverage.md is stale: run python tools/clauses.py page")


# --- any assignment adds up -----------------------------------------------------------------------

SECTIONS = ("1", "2", "6.12")


@st.composite
def assignments(draw: st.DrawFn) -> Citations:
    sections = draw(st.lists(st.sampled_from(SECTIONS), min_size=1, max_size=12))
    found = [Clause(f"C{section}-{number}", "contract.md", section, section, number, f"rule {number}")
             for number, section in enumerate(sections, start=1)]
    ids = [clause.id for clause in found] + ["C9-1"]  # an unknown id among them
    cite = st.lists(st.sampled_from(ids), max_size=3)
    scenarios = tuple(Citing(f"{area}-{number:03}", "features/x.feature", number, (f"{area}-{number:03}",),
                             tuple(draw(cite)))
                      for number, area in enumerate(draw(st.lists(st.sampled_from(["READ", "TREE"]), max_size=8)), 1))
    mutants = tuple(Mutant(f"READ-M{number:03}", "READ", "s", "b", ("READ-001",), "a", "b", "x.toml", tuple(draw(cite)))
                    for number in range(draw(st.integers(0, 4))))
    listed = draw(st.lists(st.sampled_from(ids), unique=True))
    return Citations(tuple(found), scenarios, mutants, tuple(Unobservable(i, "why", ("tests",), 1) for i in listed))


@examples(deep=500, ci=60, deadline=None)
@given(assignments())
def test_any_assignment_gives_every_clause_once_and_totals_that_add_up(citations: Citations) -> None:
    report = coverage(citations)
    assert sorted(item.clause.id for item in report.clauses) == sorted(clause.id for clause in citations.clauses)
    totals = report.totals
    assert totals.clauses == totals.covered + totals.unobservable + totals.uncovered == len(citations.clauses)
    for field in ("clauses", "covered", "unobservable", "uncovered", "mutated"):
        assert sum(getattr(section.tally, field) for section in report.sections) == getattr(totals, field)
    states = [item.state for item in report.clauses]
    assert states == sorted(states, key=lambda state: state != State.UNCOVERED)
    cited = {c for citing in citations.scenarios for c in citing.clauses}
    listed = {entry.clause for entry in citations.unobservable}
    for item in report.clauses:
        expected = State.COVERED if item.clause.id in cited else \
            State.UNOBSERVABLE if item.clause.id in listed else State.UNCOVERED
        assert item.state == expected
    assert report.complete == (totals.uncovered == 0)
    problems = citation_problems(citations, Sources(Path("spec"), Path("features"), Path("m"), Path("/nonexistent")))
    uncited = [problem for problem in problems if "is cited by no scenario" in problem]
    assert len(uncited) == totals.uncovered
