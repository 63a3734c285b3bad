"""Several implementations' reports side by side, per area, as ``bowtie summary`` lays them out.

The table model that :mod:`conformance.summary_render` and :mod:`conformance.summary_html` draw:
one column per report (its implementation's name and version; the same one twice gets ``#1``,
``#2``), one line per area in id order plus a total, and every row with its status in each
report. A row one report has and another lacks was not run there: its cell is empty (``—``).
Reports are read only through :func:`conformance.reports.read_report`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from conformance import reports
from conformance.judging import EXPECTED
from conformance.row_clauses import CitedClause, cited
from conformance.statuses import Status
from conformance.untrusted_text import first_line

NOT_RUN_THERE: Final = "—"
#: How to have ``--show failures`` list the UNSUPPORTED rows too.
SHOW_UNSUPPORTED: Final = "--show failures,unsupported"
STATUS_ORDER: Final = tuple(Status)


@dataclass(frozen=True)
class Column:
    """One report: where it was read from, and the unique heading of its column."""

    label: str
    path: str
    report: reports.Report

    @property
    def verdict(self) -> str:
        """``conformant``, ``NOT conformant``, or ``interrupted (SIGINT): …`` as the run said."""
        summary = self.report.summary
        verdict = "conformant" if summary["conformant"] else "NOT conformant"
        stopped = summary.get("interrupted")
        return f"interrupted ({stopped['reason']}): {verdict}" if stopped else verdict


@dataclass(frozen=True)
class Part:
    """One status of a cell other than PASS, how many rows had it, and whether it fails a run."""

    status: Status
    count: int

    @property
    def unexpected(self) -> bool:
        return self.status not in EXPECTED

    @property
    def words(self) -> str:
        """``1 fail``: the count and the status in lower case."""
        return f"{self.count} {self.status.lower()}"


@dataclass(frozen=True)
class Cell:
    """One area (or the total) of one report: how many of its rows had each status."""

    counts: dict[Status, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> int:
        return self.counts.get(Status.PASS, 0)

    @property
    def parts(self) -> list[Part]:
        """The statuses other than PASS, in :class:`Status` order."""
        return [Part(s, self.counts[s]) for s in STATUS_ORDER if s != Status.PASS and self.counts.get(s)]

    @property
    def unexpected(self) -> int:
        """How many rows had a status that fails a run (FAIL, ERROR, XPASS, TIMEOUT, CRASH, NOTRUN)."""
        return sum(part.count for part in self.parts if part.unexpected)

    def fraction(self) -> str:
        """``38/40``, or ``—`` when the report has no row here."""
        return f"{self.passed}/{self.total}" if self.total else NOT_RUN_THERE

    def text(self) -> str:
        """``40/40``, ``38/40 (1 fail, 1 xfail)``, or ``—``."""
        if not self.parts:
            return self.fraction()
        return f"{self.fraction()} ({', '.join(part.words for part in self.parts)})"


@dataclass(frozen=True)
class RowResult:
    """What became of one row in one report: its status, its message's first line and the clauses
    the row checks (as that report gives them; none in a report older than contract version 4)."""

    status: Status
    message: str
    clauses: tuple[CitedClause, ...] = ()


@dataclass(frozen=True)
class RowLine:
    """One row id across the reports (``None``: not in that report)."""

    id: str
    area: str
    title: str
    results: tuple[RowResult | None, ...]


@dataclass(frozen=True)
class AreaLine:
    """One area across the reports, with its rows."""

    area: str
    cells: tuple[Cell, ...]
    rows: tuple[RowLine, ...]


@dataclass(frozen=True)
class Summary:
    """The whole table: columns, areas in id order, the total line, and whether to list failures."""

    columns: tuple[Column, ...]
    areas: tuple[AreaLine, ...]
    total: tuple[Cell, ...]
    show_failures: bool = False
    show_unsupported: bool = False

    def _not_pass(self, column: int) -> list[tuple[RowLine, RowResult]]:
        return [(row, result) for area in self.areas for row in area.rows
                if (result := row.results[column]) is not None and result.status != Status.PASS]

    def failures(self, column: int) -> list[tuple[RowLine, RowResult]]:
        """The rows of one report that are not PASS, in id order; UNSUPPORTED ones only when
        ``show_unsupported`` (``--show failures,unsupported``)."""
        return [(row, result) for row, result in self._not_pass(column)
                if self.show_unsupported or result.status != Status.UNSUPPORTED]

    def failures_heading(self, column: int) -> str:
        """``3 rows not PASS``, and how many UNSUPPORTED rows were left out of the list."""
        listed = len(self.failures(column))
        left_out = len(self._not_pass(column)) - listed
        return f"{listed} rows not PASS" + (f", {left_out} UNSUPPORTED not listed ({SHOW_UNSUPPORTED})"
                                            if left_out else "")


def column_labels(found: Sequence[reports.Report]) -> list[str]:
    """``name version`` of each report; one that appears more than once gets ``#1``, ``#2``, ..."""
    plain = [report.label for report in found]
    seen: Counter[str] = Counter()
    labels = []
    for label in plain:
        seen[label] += 1
        labels.append(f"{label} #{seen[label]}" if plain.count(label) > 1 else label)
    return labels


def _cell(rows: Sequence[dict[str, Any]]) -> Cell:
    counted = Counter(Status(row["status"]) for row in rows)
    return Cell({status: counted[status] for status in STATUS_ORDER if counted[status]})


def _telling(row: dict[str, Any]) -> str:
    """The failing step (when the report names it) and the message's headline."""
    step = row.get("step")
    said = reports.headline(row["message"])
    return f"{step['keyword']} {step['text']}: {said}" if step else said


def _row_line(row_id: str, columns: Sequence[dict[str, dict[str, Any]]]) -> RowLine:
    found = [rows.get(row_id) for rows in columns]
    title = next((row["title"] for row in found if row is not None), "")
    results = tuple(None if row is None else RowResult(Status(row["status"]), first_line(_telling(row)), cited(row))
                    for row in found)
    return RowLine(row_id, reports.area_of(row_id), title, results)


def build(paths: Sequence[str], found: Sequence[reports.Report], *, show_failures: bool = False,
          show_unsupported: bool = False) -> Summary:
    """The summary of these reports (read from ``paths``), columns in the order given."""
    columns = tuple(Column(label, path, report)
                    for label, path, report in zip(column_labels(found), paths, found, strict=True))
    by_id = [{row["id"]: row for row in report.results} for report in found]
    ids = sorted({row_id for rows in by_id for row_id in rows})
    areas = []
    for area in sorted({reports.area_of(row_id) for row_id in ids}):
        lines = tuple(_row_line(row_id, by_id) for row_id in ids if reports.area_of(row_id) == area)
        cells = tuple(_cell([row for row in report.results if reports.area_of(row["id"]) == area])
                      for report in found)
        areas.append(AreaLine(area, cells, lines))
    total = tuple(_cell(report.results) for report in found)
    return Summary(columns, tuple(areas), total, show_failures, show_unsupported)


def summarize(paths: Sequence[str], *, show_failures: bool = False, show_unsupported: bool = False) -> Summary:
    """Read each report (:class:`conformance.reports.ReportError` for the first bad one) and build
    the summary."""
    return build(paths, [reports.read_report(Path(path)) for path in paths], show_failures=show_failures,
                 show_unsupported=show_unsupported)
