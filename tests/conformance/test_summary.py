"""``conformance summary REPORT...``: reports side by side per area, in text, Markdown, JSON and HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from testkit import report_files
from testkit.conformance_runs import conformance
from testkit.report_files import row

from conformance import reports, schemas, summary
from conformance.cli import main
from conformance.summary_render import Format, render

PORT_ROWS = [row("PRIM-001"), row("PRIM-002"), row("PRIM-003"),
             row("TREE-001"), row("TREE-002", "FAIL", "AssertionError: leaf\nTraceback ..."),
             row("TREE-003", "XFAIL", "expected failure: leaf rule")]
OTHER_ROWS = [row("PRIM-001"), row("PRIM-002"), row("READER-001[linear]"), row("TREE-001", "CRASH", "port died"),
              row("TREE-002"), row("TREE-003", "UNSUPPORTED", "UNSUPPORTED: needs operation 'session.node'")]


@pytest.fixture(scope="module")
def prim_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real report: the reference's PRIM area."""
    path = tmp_path_factory.mktemp("real") / "prim.ndjson"
    done = conformance("run", "--area", "PRIM", "--report", path, timeout=120)
    assert done.code == 0, done.stderr
    return path


@pytest.fixture
def two(tmp_path: Path) -> list[str]:
    first = report_files.write(tmp_path / "port.ndjson", PORT_ROWS, name="my-port", version="0.2")
    second = report_files.write(tmp_path / "other.ndjson", OTHER_ROWS, name="other", version="1.0")
    return [str(first), str(second)]


def _cells(made: summary.Summary) -> dict[str, list[str]]:
    lines = {area.area: [cell.text() for cell in area.cells] for area in made.areas}
    return {**lines, "total": [cell.text() for cell in made.total]}


def test_cells_per_area_in_id_order_with_a_total_and_dashes_for_rows_not_run_there(two: list[str]) -> None:
    made = summary.summarize(two)
    assert [column.label for column in made.columns] == ["my-port 0.2", "other 1.0"]
    assert _cells(made) == {
        "PRIM": ["3/3", "2/2"],
        "READER": ["—", "1/1"],
        "TREE": ["1/3 (1 fail, 1 xfail)", "1/3 (1 unsupported, 1 crash)"],
        "total": ["4/6 (1 fail, 1 xfail)", "4/6 (1 unsupported, 1 crash)"],
    }
    assert [area.area for area in made.areas] == ["PRIM", "READER", "TREE"]
    tree = made.areas[2]
    assert [cell.unexpected for cell in tree.cells] == [1, 1]  # FAIL and CRASH; XFAIL and UNSUPPORTED are expected
    reader_row = made.areas[1].rows[0]
    assert reader_row.id == "READER-001[linear]" and reader_row.results[0] is None


def test_the_same_implementation_twice_gets_numbered_columns(tmp_path: Path) -> None:
    paths = [str(report_files.write(tmp_path / f"{n}.ndjson", [row("PRIM-001")], name="port", version="1"))
             for n in ("a", "b")]
    assert [column.label for column in summary.summarize(paths).columns] == ["port 1 #1", "port 1 #2"]


def test_text_is_aligned_and_statuses_that_fail_a_run_are_in_capitals(two: list[str]) -> None:
    text = render(summary.summarize(two), Format.TEXT)
    lines = text.splitlines()
    table = lines[: lines.index("")]
    assert table[0].split() == ["area", "my-port", "0.2", "other", "1.0"]
    starts = {line.index("3/3") if "3/3" in line else None for line in table if line.startswith("PRIM")}
    second_column = table[0].index("my-port")
    assert starts == {second_column}
    assert all(len(line) <= len(max(table, key=len)) for line in table)
    tree = next(line for line in table if line.startswith("TREE"))
    assert "1/3 (1 FAIL, 1 xfail)" in tree and "1/3 (1 unsupported, 1 CRASH)" in tree
    assert tree.index("1/3 (1 unsupported") == table[0].index("other")
    assert next(line for line in table if line.startswith("verdict")).split()[1:] == ["NOT", "conformant"] * 2


def test_the_verdict_line_says_how_each_run_ended(tmp_path: Path) -> None:
    rows = [row("PRIM-001"), row("PRIM-002", "NOTRUN", "not run to its end")]
    stopped = reports.Report(report_files.header(), rows,
                             reports.summary_line({}, rows, {"reason": "SIGINT", "message": "interrupted"}))
    made = summary.build(["a", "b"], [stopped, report_files.report([row("PRIM-001")], name="ok")])
    assert [column.verdict for column in made.columns] == ["interrupted (SIGINT): NOT conformant", "conformant"]
    document = json.loads(render(made, Format.JSON))
    assert schemas.errors(document, "summary/v1/summary.schema.json") == []
    assert document["columns"][0]["interrupted"]["reason"] == "SIGINT" and "interrupted" not in document["columns"][1]
    assert _cells(made)["PRIM"] == ["1/2 (1 notrun)", "1/1"]


def test_show_failures_lists_each_reports_rows_not_pass_with_the_first_message_line(two: list[str]) -> None:
    text = render(summary.summarize(two, show_failures=True), Format.TEXT)
    listing = text[text.index("my-port 0.2: 2 rows not PASS"):]
    assert re.search(r"^  TREE-002\s+FAIL\s+AssertionError: leaf$", listing, re.M)
    assert re.search(r"^  TREE-003\s+XFAIL\s+expected failure: leaf rule$", listing, re.M)
    assert "Traceback" not in listing
    assert "other 1.0: 1 rows not PASS, 1 UNSUPPORTED not listed (--show failures,unsupported)" in listing
    assert "TREE-003" not in listing[listing.index("other 1.0"):]  # UNSUPPORTED: counted, not listed
    assert "not PASS" not in render(summary.summarize(two), Format.TEXT)


def test_markdown_is_a_gfm_table(two: list[str]) -> None:
    text = render(summary.summarize(two), Format.MARKDOWN)
    assert text.splitlines()[:7] == [
        "| area | my-port 0.2 | other 1.0 |",
        "| --- | ---: | ---: |",
        "| PRIM | 3/3 | 2/2 |",
        "| READER | — | 1/1 |",
        "| TREE | 1/3 (**1 fail**, 1 xfail) | 1/3 (1 unsupported, **1 crash**) |",
        "| **total** | 4/6 (**1 fail**, 1 xfail) | 4/6 (1 unsupported, **1 crash**) |",
        "| verdict | NOT conformant | NOT conformant |",
    ]


def test_markdown_escapes_what_a_port_controls(tmp_path: Path) -> None:
    rows = [row("PRIM-001", "FAIL", "a | b <img src=x> *bold* [x](javascript:y)")]
    path = report_files.write(tmp_path / "r.ndjson", rows, name="evil|port", version="<1>")
    text = render(summary.summarize([str(path)], show_failures=True), Format.MARKDOWN)
    assert "| area | evil\\|port \\<1\\> |" in text
    assert "a \\| b \\<img src=x\\> \\*bold\\* \\[x\\](javascript:y)" in text
    failure_line = text.splitlines()[-1].removeprefix("| ").removesuffix(" |").split(" | ")
    assert failure_line[:2] == ["`PRIM-001`", "**FAIL**"]
    assert not re.search(r"(?<!\\)[<>|*\[\]]", failure_line[2])  # no markup character left unescaped


def test_json_follows_its_schema_and_says_which(two: list[str], prim_report: Path) -> None:
    document = json.loads(render(summary.summarize([*two, str(prim_report)]), Format.JSON))
    assert schemas.errors(document, "summary/v1/summary.schema.json") == []
    assert document["$schema"].endswith("/schemas/summary/v1/summary.schema.json")
    assert [column["label"] for column in document["columns"]] == [
        "my-port 0.2", "other 1.0", "recall-rebase-reference 0.1.0"]
    prim = next(area for area in document["areas"] if area["area"] == "PRIM")
    assert prim["cells"][2] == {"text": "47/47", "passed": 47, "total": 47, "counts": {"PASS": 47}, "unexpected": 0}
    tree_2 = next(line for line in document["rows"] if line["id"] == "TREE-002")
    assert tree_2["outcomes"] == [{"status": "FAIL", "message": "AssertionError: leaf"},
                                  {"status": "PASS", "message": ""}, None]


def test_a_real_report_beside_a_port(two: list[str], prim_report: Path) -> None:
    made = summary.summarize([str(prim_report), two[0]])
    assert _cells(made)["PRIM"] == ["47/47", "3/3"]
    assert _cells(made)["TREE"] == ["—", "1/3 (1 fail, 1 xfail)"]
    assert made.columns[0].verdict == "conformant"


def test_html_is_one_static_page_that_escapes_every_port_string(tmp_path: Path) -> None:
    evil = "<script>alert(1)</script>"
    rows = [row("PRIM-001", "FAIL", f"{evil}\nmore", title=f'title "{evil}"'), row("TREE-001")]
    path = report_files.write(tmp_path / "r.ndjson", rows, name=evil, version="1")
    page = render(summary.summarize([str(path)], show_failures=True), Format.HTML)
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "title &quot;&lt;script&gt;" in page
    assert not re.search(r"\b(src|href)\s*=", page, re.I)
    assert "http://" not in page and "https://" not in page and "<link" not in page
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert page.count("<details>") == 2  # one per area: PRIM, TREE
    details_prim = page[page.index("<details>"): page.index("</details>")]
    assert "<code>PRIM-001</code>" in details_prim and '<span class="bad">FAIL</span>' in details_prim


def test_html_hides_controls_and_bidi_overrides(tmp_path: Path) -> None:
    path = report_files.write(tmp_path / "r.ndjson", [row("PRIM-001", "FAIL", "a\x1b[31mred\u202egnp")])
    page = render(summary.summarize([str(path)], show_failures=True), Format.HTML)
    assert "\x1b" not in page and "\u202e" not in page and "a\\x1b[31mred\\u202egnp" in page


def test_extra_optional_row_fields_are_ignored() -> None:
    extra = {**row("PRIM-001", "FAIL", "boom"), "line": 12, "step": {"keyword": "Then", "text": "x", "line": 14},
             "expected": 1, "actual": 2, "stderr": ["a log line"]}
    made = summary.build(["a"], [report_files.report([extra, row("PRIM-002")])])
    assert _cells(made)["PRIM"] == ["1/2 (1 fail)"]


def test_a_failure_line_names_the_failing_step() -> None:
    failed = {**row("PRIM-001", "FAIL", "x.py:3: in f\nE   AssertionError: assert 1 == 2\nE   more"),
              "step": {"keyword": "Then", "text": "it is 4 units", "line": 14}}
    made = summary.build(["a"], [report_files.report([failed])], show_failures=True)
    text = render(made, Format.TEXT)
    assert "Then it is 4 units: AssertionError: assert 1 == 2" in text, text


def test_the_command_writes_the_same_bytes_each_time(two: list[str], tmp_path: Path) -> None:
    for form in Format:
        outputs = [tmp_path / f"{form}-{n}.out" for n in (1, 2)]
        for output in outputs:
            assert main(["summary", *two, "--format", str(form), "--output", str(output), "--show", "failures"]) == 0
        assert outputs[0].read_bytes() == outputs[1].read_bytes()
        assert outputs[0].read_bytes()


def test_the_command_prints_text_by_default(two: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", *two]) == 0
    assert capsys.readouterr().out == render(summary.summarize(two), Format.TEXT)


def test_a_bad_report_is_one_line_with_its_path_and_line_and_exit_2(two: list[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.ndjson"
    text = Path(two[0]).read_text(encoding="utf-8").splitlines()
    bad.write_text("\n".join([*text[:2], "{not json", *text[2:]]) + "\n", encoding="utf-8")
    done = conformance("summary", two[1], bad, timeout=60)
    assert done.code == 2 and done.stdout == ""
    assert done.stderr == f"recall-rebase: report-invalid: {bad}:3: not JSON: Expecting property name enclosed in double quotes\n"


def test_a_missing_report_and_an_unwritable_output_are_one_line_each(
        two: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(tmp_path / "absent.ndjson")]) == 2
    assert capsys.readouterr().err.startswith("recall-rebase: report-invalid: cannot read the report ")
    assert main(["summary", *two, "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"recall-rebase: output-unwritable: cannot write the summary to {tmp_path}")


def test_show_failures_lists_unsupported_rows_only_when_asked(two: list[str]) -> None:
    asked = render(summary.summarize(two, show_failures=True, show_unsupported=True), Format.TEXT)
    listing = asked[asked.index("other 1.0: 2 rows not PASS"):]
    assert re.search(r"^  TREE-003\s+UNSUPPORTED\s+UNSUPPORTED: needs operation 'session.node'$", listing, re.M)
    for form in (Format.MARKDOWN, Format.HTML):  # the HTML page lists every row after its failures: theirs only
        def listing(show_unsupported: bool, form: Format = form) -> str:
            made = render(summary.summarize(two, show_failures=True, show_unsupported=show_unsupported), form)
            start = made.index("not PASS")
            return made[start:made.find("<details", start) % (len(made) + 1)]
        assert "session.node" not in listing(False) and "session.node" in listing(True)


@pytest.mark.parametrize(("show", "listed"), [("failures", False), ("failures,unsupported", True),
                                              ("unsupported,failures", True)])
def test_the_show_option_takes_unsupported_after_failures(two: list[str], show: str, listed: bool,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", *two, "--show", show]) == 0
    assert ("session.node" in capsys.readouterr().out) is listed


@pytest.mark.parametrize("show", ["unsupported", "failures,bogus", "failures,", ""])
def test_a_show_word_of_no_meaning_is_one_usage_line(two: list[str], show: str) -> None:
    done = conformance("summary", *two, "--show", show)
    assert done.code == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "usage" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("rows", [[row("PRIM-001")], [row("TREE-003", "UNSUPPORTED", "UNSUPPORTED: needs operation 'x'")]])
def test_show_failures_of_a_report_with_none_listed_says_so(tmp_path: Path, rows: list[dict[str, object]],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = report_files.write(tmp_path / "r.ndjson", rows, name="p", version="1")
    assert main(["summary", str(path), "--show", "failures"]) == 0
    assert re.search(r"^p 1: 0 rows not PASS", capsys.readouterr().out, re.M)
