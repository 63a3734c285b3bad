"""tools/readme_summary.py and tools/port_counts.py: the port's numbers from a report, and bad input.

The real reports are checked in tests/examples/test_node_port.py (a run of the port, and one of the
reference); here the counting on a few rows, and what the script says of input it cannot use.
"""

from __future__ import annotations

from pathlib import Path

import port_counts
import pytest
import readme_summary

from conformance.reports import Report

ROWS = [("PRIM-001", "PASS"), ("PRIM-002[a]", "PASS"), ("PRIM-002[b]", "PASS"), ("CONFIG-001", "PASS"),
        ("CONFIG-035", "SKIP"), ("CONFIG-036[x]", "SKIP"), ("CONFIG-036[y]", "SKIP"), ("REF-001", "SKIP"),
        ("AUDIT-001[q]", "SKIP")]


def _report() -> Report:
    return Report({}, [{"id": row_id, "status": status} for row_id, status in ROWS], {})


def test_the_counts_separate_areas_skipped_whole_from_rows_skipped_by_id() -> None:
    counts = {count.area: count for count in port_counts.area_counts(_report())}
    assert counts["CONFIG"] == port_counts.AreaCount("CONFIG", 3, 4, 1, 3)
    assert counts["PRIM"] == port_counts.AreaCount("PRIM", 2, 3, 3, 0)
    assert [c.area for c in port_counts.implemented(_report())] == ["CONFIG", "PRIM"]
    assert port_counts.readme_sentence(_report()) == "CONFIG, PRIM: 7 rows, 4 of them passing"
    block = port_counts.port_readme_block(_report())
    assert "| CONFIG | 3 | 4 | 1 | 3 |" in block.splitlines()
    assert "7 scenario rows in 2 areas: 4 PASS, 3 SKIP by id" in block
    assert "The other 2 areas (AUDIT, REF) are skipped whole." in block


@pytest.mark.parametrize("argv", [["{tmp}/missing.ndjson"], ["{tmp}/garbage.ndjson", "--check"]])
def test_a_report_it_cannot_read_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        argv: list[str]) -> None:
    (tmp_path / "garbage.ndjson").write_text("not a report\n", encoding="utf-8")
    assert readme_summary.main([arg.replace("{tmp}", str(tmp_path)) for arg in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith("readme_summary: ")


def test_three_reports_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        readme_summary.main(["a.ndjson", "b.ndjson", "c.ndjson"])
    assert exited.value.code == 2
    assert "give REFERENCE_REPORT NODE_REPORT, or NODE_REPORT alone" in capsys.readouterr().err
