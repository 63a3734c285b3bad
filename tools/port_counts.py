"""The example Node port's numbers as its run reports them, for the docs that state them.

``README.md`` says which areas the port passes and with how many rows; its own README has a table
per area and says how many rows pass, how many are skipped by id and which areas are skipped whole.
Those numbers went stale by hand (98, then 157, while the run said 163): here they are written from a
report of the port's run with its manifest, and ``tools/readme_summary.py`` puts them between markers
and checks them (``tests/examples/test_node_port.py`` against the run it makes anyway).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from conformance.expectations import row_base
from conformance.reports import Report, area_of

#: The status of a row the port passes, and of one its manifest skips (whole area or by id).
PASS: Final = "PASS"
SKIP: Final = "SKIP"


@dataclass(frozen=True)
class AreaCount:
    """One area of the port's run: its scenarios and rows, how many pass, how many are skipped."""

    area: str
    scenarios: int
    rows: int
    passed: int
    skipped: int

    @property
    def implemented(self) -> bool:
        """The port passes rows of this area (the rest are skipped by id); not skipped whole."""
        return self.passed > 0


def area_counts(report: Report) -> list[AreaCount]:
    """Every area of the report, by name."""
    by_area: dict[str, list[Mapping[str, Any]]] = {}
    for row in report.results:
        by_area.setdefault(area_of(row["id"]), []).append(row)
    return [AreaCount(area, len({row_base(r["id"]) for r in rows}), len(rows),
                      sum(r["status"] == PASS for r in rows), sum(r["status"] == SKIP for r in rows))
            for area, rows in sorted(by_area.items())]


def implemented(report: Report) -> list[AreaCount]:
    """The areas the port implements, by name."""
    return [count for count in area_counts(report) if count.implemented]


def readme_sentence(report: Report) -> str:
    """README.md's parenthesis: ``PRIM, READER, …: N rows, M of them passing``."""
    areas = implemented(report)
    rows, passed = sum(c.rows for c in areas), sum(c.passed for c in areas)
    return f"{', '.join(c.area for c in areas)}: {rows} rows, {passed} of them passing"


def port_readme_block(report: Report) -> str:
    """The port README's table of the areas it implements and the sentence after it."""
    areas = implemented(report)
    others = [c.area for c in area_counts(report) if not c.implemented]
    lines = ["| area | scenarios | rows | PASS | SKIP by id |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {c.area} | {c.scenarios} | {c.rows} | {c.passed} | {c.skipped} |" for c in areas]
    rows, passed, skipped = (sum(c.rows for c in areas), sum(c.passed for c in areas), sum(c.skipped for c in areas))
    lines += ["", f"{rows} scenario rows in {len(areas)} areas: {passed} PASS, {skipped} SKIP by id (each names the "
              f"operation it also needs in `expectations.toml`). The other {len(others)} areas ({', '.join(others)}) "
              "are skipped whole."]
    return "\n".join(lines)
