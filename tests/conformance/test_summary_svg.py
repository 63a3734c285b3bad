"""``conformance summary --format svg``: one badge, green when conformant, red otherwise, text that fits."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from testkit import report_files
from testkit.conformance_runs import conformance
from testkit.report_files import row

from conformance import reports, summary
from conformance.cli import main
from conformance.summary_render import Format, render
from conformance.summary_svg import GREEN, LABEL, RED, badge_text, text_width

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[ElementTree.Element]:
    return ElementTree.fromstring(svg).findall(f".//{SVG}text")


def _fills(svg: str) -> list[str]:
    return [rect.get("fill", "") for rect in ElementTree.fromstring(svg).iter(f"{SVG}rect")]


@pytest.fixture(scope="module")
def prim_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real report: the reference's PRIM area, conformant."""
    path = tmp_path_factory.mktemp("real") / "prim.ndjson"
    done = conformance("run", "--area", "PRIM", "--report", path, timeout=120)
    assert done.code == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def wrong_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real report that is not conformant: PRIM expected to fail, so its rows XPASS."""
    folder = tmp_path_factory.mktemp("wrong")
    manifest = folder / "wrong.toml"
    manifest.write_text('implementation = "recall-rebase-reference"\n\n[[expectation]]\nid = "PRIM-001"\n'
                        'status = "xfail"\nreason = "expected wrongly"\n', encoding="utf-8")
    path = folder / "wrong.ndjson"
    done = conformance("run", "--area", "PRIM", "--expectations", manifest, "--report", path, timeout=120)
    assert done.code == 1, done.stdout + done.stderr
    return path


def test_a_conformant_reports_badge_is_green_with_its_pass_count(prim_report: Path) -> None:
    made = summary.summarize([str(prim_report)])
    svg = render(made, Format.SVG)
    root = ElementTree.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("aria-label") == f"{LABEL}: {made.total[0].passed}/{made.total[0].total} pass"
    texts = [text.text for text in _texts(svg)]
    assert f"{made.total[0].passed}/{made.total[0].total} pass" in texts and LABEL in texts
    assert made.total[0].passed == made.total[0].total > 10
    assert GREEN in _fills(svg) and RED not in _fills(svg)


def test_a_non_conformant_reports_badge_is_red(wrong_report: Path) -> None:
    made = summary.summarize([str(wrong_report)])
    total = made.total[0]
    svg = render(made, Format.SVG)
    assert 0 < total.passed < total.total and total.unexpected == total.total - total.passed
    assert f"{total.passed}/{total.total} pass" in [text.text for text in _texts(svg)]
    assert RED in _fills(svg) and GREEN not in _fills(svg)


def test_several_reports_show_how_many_are_conformant(prim_report: Path, wrong_report: Path) -> None:
    both = render(summary.summarize([str(prim_report), str(wrong_report)]), Format.SVG)
    assert "1/2 conformant" in [text.text for text in _texts(both)] and RED in _fills(both)
    twice = render(summary.summarize([str(prim_report), str(prim_report)]), Format.SVG)
    assert "2/2 conformant" in [text.text for text in _texts(twice)] and GREEN in _fills(twice)


def test_an_interrupted_run_is_red_even_when_what_ran_passed() -> None:
    rows = [row("PRIM-001")]
    stopped = reports.Report(report_files.header(), rows,
                             reports.summary_line({}, rows, {"reason": "SIGINT", "message": "interrupted"}))
    svg = badge_text(summary.build(["a"], [stopped]))
    assert RED in _fills(svg) and "1/1 pass, interrupted" in [text.text for text in _texts(svg)]


@pytest.mark.parametrize("value", ["1/1 pass", "1063/1063 pass", "9999/9999 pass, interrupted", "12/12 conformant"])
def test_each_text_is_held_to_its_box(value: str) -> None:
    """Each text is drawn at exactly its measured length (``textLength``), in a box that long plus a
    margin on each side, centred in it: whatever font the viewer has, it cannot overflow."""
    svg = badge_text(summary.build(["a"], [report_files.report([row("PRIM-001")])]), value=value)
    root = ElementTree.fromstring(svg)
    boxes = [rect for rect in root.iter(f"{SVG}rect") if rect.get("fill") not in (None, "url(#s)", "#fff")]
    texts = _texts(svg)
    assert [text.text for text in texts] == [LABEL, LABEL, value, value]
    left = 0.0
    for box, text in zip(boxes, texts[::2], strict=True):
        width, length = float(box.get("width", "")), float(text.get("textLength", ""))
        assert text.get("lengthAdjust") == "spacingAndGlyphs"
        assert length == pytest.approx(text_width(text.text or "")) and width >= length + 10
        assert float(text.get("x", "")) == pytest.approx(left + width / 2, abs=0.51)
        left += width
    assert float(root.get("width", "")) == pytest.approx(left)


def test_a_longer_text_is_measured_longer_and_wide_letters_wider() -> None:
    assert text_width("1063/1063 pass") > text_width("1/1 pass") > 0
    assert text_width("mmmm") > text_width("iiii")


def test_the_command_writes_a_badge_and_replaces_only_a_badge(prim_report: Path, tmp_path: Path) -> None:
    badge = tmp_path / "badge.svg"
    assert main(["summary", str(prim_report), "--format", "svg", "--output", str(badge)]) == 0
    first = badge.read_bytes()
    assert main(["summary", str(prim_report), "--format", "svg", "--output", str(badge)]) == 0
    assert badge.read_bytes() == first and first.startswith(b"<svg ")
    other = tmp_path / "other.svg"
    other.write_text('<svg xmlns="http://www.w3.org/2000/svg"><title>someone else\'s</title></svg>\n', encoding="utf-8")
    done = conformance("summary", prim_report, "--format", "svg", "--output", other, timeout=60)
    assert done.code == 2 and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("recall-rebase: output-unwritable: ") and "someone else" in other.read_text()


def test_svg_of_a_file_that_is_not_a_report_is_one_coded_line(tmp_path: Path) -> None:
    not_a_report = tmp_path / "notes.txt"
    not_a_report.write_text("hello\n", encoding="utf-8")
    done = conformance("summary", not_a_report, "--format", "svg", timeout=60)
    assert done.code == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(f"recall-rebase: report-invalid: {not_a_report}")
    assert "Traceback" not in done.stderr
