"""``conformance diff OLD NEW``: rows regressed, fixed, newly failing, changed in reason, new and
removed, in text, Markdown and JSON; exit 1 on a regression, 2 (one line) on a file that is no report.

The real diff runs the PRIM area twice, against the reference and against
``testkit.ports.wrong_answer`` over ``--stdio`` (one wrong ``text.measure``): its row regressed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from testkit import report_files
from testkit.conformance_runs import conformance
from testkit.report_files import row

from conformance import schemas
from conformance.cli import main
from conformance.report_diff import Change, Format, diff, render

WRONG_ANSWER = Path(__file__).parents[1] / "testkit" / "ports" / "wrong_answer.py"
SCHEMA = "diff/v1/diff.schema.json"

OLD_ROWS = [row("PRIM-001"), row("PRIM-002"), row("PRIM-003", "FAIL", "E   AssertionError: 1 != 2"),
            row("PRIM-004", "FAIL", "E   AssertionError: a"), row("PRIM-005", "FAIL", "E   AssertionError: same"),
            row("PRIM-006", "UNSUPPORTED", "UNSUPPORTED: needs operation 'x'"), row("TREE-001")]
NEW_ROWS = [row("PRIM-001"), row("PRIM-002", "CRASH", "the port died"), row("PRIM-003"),
            row("PRIM-004", "FAIL", "E   AssertionError: b"), row("PRIM-005", "FAIL", "E   AssertionError: same"),
            row("PRIM-006"), row("READER-001[linear]", "FAIL", "E   AssertionError: new"),
            row("READER-002"), row("PRIM-007", "XFAIL", "expected failure: later")]


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    old = report_files.write(tmp_path / "old.ndjson", OLD_ROWS, name="my-port", version="0.1")
    new = report_files.write(tmp_path / "new.ndjson", NEW_ROWS, name="my-port", version="0.2")
    return str(old), str(new)


def _changes(old: str, new: str) -> dict[str, Change]:
    return {found.id: found.change for found in diff(old, new).rows}


def test_every_row_falls_in_one_change(pair: tuple[str, str]) -> None:
    assert _changes(*pair) == {
        "PRIM-001": Change.UNCHANGED, "PRIM-002": Change.REGRESSED, "PRIM-003": Change.FIXED,
        "PRIM-004": Change.CHANGED, "PRIM-005": Change.UNCHANGED, "PRIM-006": Change.OTHER_STATUS,
        "PRIM-007": Change.NEW, "READER-001[linear]": Change.NEWLY_FAILING, "READER-002": Change.NEW,
        "TREE-001": Change.REMOVED,
    }


def test_a_new_failing_status_with_the_same_message_is_a_change(tmp_path: Path) -> None:
    old = report_files.write(tmp_path / "a.ndjson", [row("PRIM-001", "FAIL", "boom")])
    new = report_files.write(tmp_path / "b.ndjson", [row("PRIM-001", "TIMEOUT", "boom")])
    assert _changes(str(old), str(new)) == {"PRIM-001": Change.CHANGED}


def test_text_counts_each_change_and_lists_the_rows_with_both_statuses(
        pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", *pair]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[:3] == [
        f"old: {pair[0]} (my-port 0.1)", f"new: {pair[1]} (my-port 0.2)",
        "1 REGRESSED, 1 fixed, 1 newly failing, 1 changed in reason, 2 new, 1 removed, 1 other status, 2 unchanged"]
    assert "REGRESSED (1): passed or expected before, failing now\n  PRIM-002  PASS -> CRASH  the port died" in out
    assert "  PRIM-004  FAIL -> FAIL  AssertionError: b" in out
    assert "removed (1): rows only the old report has\n  TREE-001  PASS -> —\n" in out
    assert "  PRIM-007    — -> XFAIL  expected failure: later\n  READER-002  — -> PASS\n" in out
    assert "PRIM-005" not in out and "PRIM-001" not in out


def test_no_regression_is_exit_0(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", pair[1], pair[0]]) == 1  # backwards, PRIM-003 regressed
    capsys.readouterr()
    assert main(["diff", pair[0], pair[0]]) == 0
    out = capsys.readouterr().out
    assert "0 regressed, 0 fixed, 0 newly failing, 0 changed in reason, 0 new, 0 removed, 0 other status, 7 unchanged" in out


def test_markdown_is_a_pull_request_comment_with_a_table_per_change(
        pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", *pair, "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("### Conformance diff: my-port 0.1 → my-port 0.2\n\n**1 regressed**, 1 fixed")
    assert "#### Regressed (1): passed or expected before, failing now\n\n| row | before | now | why |" in out
    assert "| `PRIM-002` | PASS | **CRASH** | the port died |" in out
    assert "| `PRIM-003` | FAIL | PASS | AssertionError: 1 != 2 |" in out


def test_markdown_escapes_what_a_port_controls(tmp_path: Path) -> None:
    old = report_files.write(tmp_path / "a.ndjson", [row("PRIM-001")], name="<b>x|y</b>")
    new = report_files.write(tmp_path / "b.ndjson", [row("PRIM-001", "FAIL", "E   a | *b* \x1b[31m")])
    out = render(diff(str(old), str(new)), Format.MARKDOWN)
    assert "\\<b\\>x\\|y\\</b\\>" in out and "a \\| \\*b\\* \\\\x1b\\[31m |" in out and "\x1b" not in out


def test_json_follows_its_schema(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", *pair, "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert schemas.errors(document, SCHEMA) == []
    assert document["counts"] == {"regressed": 1, "fixed": 1, "newly_failing": 1, "changed": 1, "new": 2,
                                  "removed": 1, "other_status": 1, "unchanged": 2}
    assert document["rows"][0] == {"id": "PRIM-002", "title": "the scenario PRIM-002", "change": "regressed",
                                   "old": {"status": "PASS", "reason": ""},
                                   "new": {"status": "CRASH", "reason": "the port died"}}
    assert {r["id"]: r["old"] for r in document["rows"]}["READER-002"] is None
    assert document["regressed"] is True and document["old"]["label"] == "my-port 0.1"


@pytest.mark.parametrize("which", [0, 1])
def test_a_file_that_is_not_a_report_is_one_coded_line_and_exit_2(
        pair: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str], which: int) -> None:
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"type": "header"}\nnot json\n', encoding="utf-8")
    paths = list(pair)
    paths[which] = str(bad)
    assert main(["diff", *paths]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith(f"recall-rebase: report-invalid: {bad}:1: ")


def test_a_missing_report_with_json_is_a_code_and_message_on_stdout(
        pair: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", pair[0], str(tmp_path / "none.ndjson"), "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["code"] == "report-invalid" and len(captured.err.splitlines()) == 1


@pytest.mark.parametrize("argv", [["diff"], ["diff", "a.ndjson"], ["diff", "a", "b", "c"],
                                  ["diff", "a", "b", "--format", "html"]])
def test_usage_errors_are_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("recall-rebase: usage: ") and len(err.splitlines()) == 1


def test_help_names_the_changes_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["diff", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert done.value.code == 0 and "regressed" in out and "--format" in out and "Exit 0" in out


@pytest.fixture(scope="module")
def real_reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """PRIM run twice: the reference in process, then the wrong-answer port over --stdio."""
    folder = tmp_path_factory.mktemp("runs")
    good, wrong = folder / "reference.ndjson", folder / "wrong.ndjson"
    done = conformance("run", "--area", "PRIM", "--no-progress", "--report", good, timeout=180)
    assert done.code == 0, done.stderr[-2000:]
    done = conformance("run", "--area", "PRIM", "--no-progress", "--report", wrong,
                       "--stdio", "--", sys.executable, WRONG_ANSWER, timeout=180)
    assert done.code == 1, done.stderr[-2000:]
    return good, wrong


def test_a_diff_of_two_real_runs_shows_the_wrong_row_regressed(real_reports: tuple[Path, Path]) -> None:
    good, wrong = real_reports
    done = conformance("diff", good, wrong, "--json")
    document = json.loads(done.stdout)
    assert done.code == 1, done.stderr
    assert schemas.errors(document, SCHEMA) == []
    assert [(r["id"], r["change"], r["old"]["status"], r["new"]["status"]) for r in document["rows"]] == [
        ("PRIM-003[astral]", "regressed", "PASS", "FAIL")]
    assert "it is 4 UTF-16 units" in document["rows"][0]["new"]["reason"]
    assert document["counts"]["unchanged"] == len(json.loads(conformance("list", "--area", "PRIM", "--json")
                                                             .stdout)) - 1
    backwards = conformance("diff", wrong, good)
    assert backwards.code == 0 and "FIXED" not in backwards.stdout and "fixed (1)" in backwards.stdout
    markdown = conformance("diff", good, wrong, "--format", "markdown")
    assert markdown.code == 1 and "| `PRIM-003[astral]` | PASS | **FAIL** |" in markdown.stdout
