"""``recall-rebase conformance diff OLD NEW``: what changed between two runs' reports, row by row.

Built on :func:`conformance.summary.build` (two columns: the old report and the new), so a row's
status and its telling line (failing step and message headline) are the summary's. A status
*fails* a run when it is not one of :data:`conformance.judging.EXPECTED`. Every row id of either
report falls in one :class:`Change`: regressed (not failing before, failing now), fixed (failing
before, not now), changed (failing in both, with another status, step or message), newly failing
(only in NEW, failing), new (only in NEW, not failing), removed (only in OLD), or unchanged.
Text, Markdown (a pull-request comment) and JSON (``schemas/diff/v1/diff.schema.json``) are pure
functions of the diff; every port-controlled string goes through :mod:`conformance.untrusted_text`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

from conformance import reports
from conformance.commandline import fail
from conformance.judging import EXPECTED
from conformance.protocol import JsonObject
from conformance.summary import Column, RowLine, RowResult, build
from conformance.untrusted_text import for_markdown, for_terminal

DIFF_SCHEMA_ID: Final = "https://recall-rebase.invalid/schemas/diff/v1/diff.schema.json"
EXIT_NO_REGRESSION: Final = 0
EXIT_REGRESSED: Final = 1


class Change(StrEnum):
    """What became of one row id between the old report and the new."""

    REGRESSED = "regressed"
    FIXED = "fixed"
    NEWLY_FAILING = "newly failing"
    CHANGED = "changed in reason"
    NEW = "new"
    REMOVED = "removed"
    OTHER_STATUS = "other status"
    UNCHANGED = "unchanged"

    @property
    def key(self) -> str:
        """The JSON name: ``newly_failing``, ``changed``, ..."""
        return {Change.NEWLY_FAILING: "newly_failing", Change.CHANGED: "changed",
                Change.OTHER_STATUS: "other_status"}.get(self, self.value)


#: What each listed change means, in the order the outputs list them (unchanged rows are only counted).
MEANINGS: Final = {
    Change.REGRESSED: "passed or expected before, failing now",
    Change.FIXED: "failing before, passed or expected now",
    Change.NEWLY_FAILING: "rows only the new report has, failing",
    Change.CHANGED: "failing in both, with another status, step or message",
    Change.NEW: "rows only the new report has, not failing",
    Change.REMOVED: "rows only the old report has",
    Change.OTHER_STATUS: "failing in neither, with another status (PASS now SKIP or UNSUPPORTED: no longer run)",
}


class Format(StrEnum):
    """The forms ``conformance diff --format`` writes."""

    TEXT = "text"
    MARKDOWN = "markdown"
    JSON = "json"


def fails(result: RowResult | None) -> bool:
    """Whether this outcome fails a run (a row the report lacks fails nothing)."""
    return result is not None and result.status not in EXPECTED


def change_of(old: RowResult | None, new: RowResult | None) -> Change:
    """The one change of a row with these outcomes (``None``: not in that report)."""
    if old is None:
        return Change.NEWLY_FAILING if fails(new) else Change.NEW
    if new is None:
        return Change.REMOVED
    if fails(old) != fails(new):
        return Change.REGRESSED if fails(new) else Change.FIXED
    if fails(new) and (old.status, old.message) != (new.status, new.message):
        return Change.CHANGED
    if old.status != new.status:
        return Change.OTHER_STATUS
    return Change.UNCHANGED


@dataclass(frozen=True)
class RowChange:
    """One row id, its title, its change and its outcome in each report."""

    id: str
    title: str
    change: Change
    old: RowResult | None
    new: RowResult | None

    @classmethod
    def of(cls, line: RowLine) -> RowChange:
        old, new = line.results
        return cls(line.id, line.title, change_of(old, new), old, new)


@dataclass(frozen=True)
class ReportDiff:
    """Two reports (as summary columns, so a label appearing twice is numbered) and every row's change."""

    old: Column
    new: Column
    rows: tuple[RowChange, ...]

    def listed(self, change: Change) -> list[RowChange]:
        return [row for row in self.rows if row.change is change]

    def count(self, change: Change) -> int:
        return len(self.listed(change))

    @property
    def exit_code(self) -> int:
        return EXIT_REGRESSED if self.count(Change.REGRESSED) else EXIT_NO_REGRESSION


def diff(old: str, new: str) -> ReportDiff:
    """The diff of the reports at these paths (:class:`conformance.reports.ReportError` for a bad one)."""
    made = build([old, new], [reports.read_report(Path(old)), reports.read_report(Path(new))])
    rows = tuple(RowChange.of(line) for area in made.areas for line in area.rows)
    return ReportDiff(made.columns[0], made.columns[1], rows)


def _tally(found: ReportDiff, strong: Callable[[str], str]) -> str:
    """``1 regressed, 0 fixed, ...`` (the regressions drawn by ``strong`` when there are any)."""
    parts = [f"{found.count(change)} {change}" for change in (*MEANINGS, Change.UNCHANGED)]
    if found.count(Change.REGRESSED):
        parts[0] = strong(parts[0])
    return ", ".join(parts)


def _outcome(result: RowResult | None) -> str:
    """The status, or ``—`` where the report has no such row."""
    return "—" if result is None else str(result.status)


def _reason(row: RowChange) -> str:
    """The telling line worth showing: the new one, else (a fixed or removed row) the old one."""
    shown = row.new if row.new is not None and (fails(row.new) or row.old is None) else row.old
    return "" if shown is None else shown.message


def render_text(found: ReportDiff) -> str:
    """A heading, the tally, and one aligned block per change that has rows."""
    out = [f"old: {for_terminal(found.old.path)} ({for_terminal(found.old.label)})",
           f"new: {for_terminal(found.new.path)} ({for_terminal(found.new.label)})",
           _tally(found, str.upper)]
    for change, meaning in MEANINGS.items():
        rows = found.listed(change)
        if not rows:
            continue
        out += ["", f"{str(change).upper() if change is Change.REGRESSED else change} ({len(rows)}): {meaning}"]
        cells = [[row.id, f"{_outcome(row.old)} -> {_outcome(row.new)}",
                  for_terminal(_reason(row))] for row in rows]
        widths = [max(len(line[i]) for line in cells) for i in range(2)]
        out += [f"  {line[0].ljust(widths[0])}  {line[1].ljust(widths[1])}  {line[2]}".rstrip() for line in cells]
    return "\n".join(out) + "\n"


def render_markdown(found: ReportDiff) -> str:
    """A pull-request comment: a heading, the tally, and one GFM table per change that has rows."""
    out = [f"### Conformance diff: {for_markdown(found.old.label)} → {for_markdown(found.new.label)}", "",
           _tally(found, lambda text: f"**{text}**"), ""]
    if not any(found.listed(change) for change in MEANINGS):
        out += ["No row changed.", ""]
    for change, meaning in MEANINGS.items():
        rows = found.listed(change)
        if not rows:
            continue
        out += [f"#### {str(change).capitalize()} ({len(rows)}): {meaning}", "",
                "| row | before | now | why |", "| --- | --- | --- | --- |"]
        out += [f"| `{row.id}` | {_outcome(row.old)} | {_strong_if_failing(row.new)} "
                f"| {for_markdown(_reason(row))} |" for row in rows]
        out.append("")
    return "\n".join(out)


def _strong_if_failing(result: RowResult | None) -> str:
    text = _outcome(result)
    return f"**{text}**" if fails(result) else text


def _side(column: Column) -> JsonObject:
    return {"report": column.path, "label": column.label, "implementation": column.report.header["implementation"],
            "suite_version": column.report.header["suite_version"], "conformant": column.report.summary["conformant"]}


def _result_json(result: RowResult | None) -> JsonObject | None:
    return None if result is None else {"status": str(result.status), "reason": result.message}


def diff_object(found: ReportDiff) -> JsonObject:
    """The JSON form (``schemas/diff/v1/diff.schema.json``): every changed row, unchanged ones counted."""
    return {
        "$schema": DIFF_SCHEMA_ID,
        "old": _side(found.old),
        "new": _side(found.new),
        "counts": {change.key: found.count(change) for change in Change},
        "regressed": bool(found.count(Change.REGRESSED)),
        "rows": [{"id": row.id, "title": row.title, "change": row.change.key,
                  "old": _result_json(row.old), "new": _result_json(row.new)}
                 for change in MEANINGS for row in found.listed(change)],
    }


def render(found: ReportDiff, form: Format) -> str:
    """The diff in the form ``--format`` names."""
    if form is Format.JSON:
        return json.dumps(diff_object(found), ensure_ascii=False, indent=2) + "\n"
    return render_markdown(found) if form is Format.MARKDOWN else render_text(found)


def run_diff(old: str, new: str, form: Format) -> int:
    """Print the diff; exit 1 when a row regressed, 0 otherwise, 2 (one line) when a file is not a report."""
    try:
        found = diff(old, new)
    except reports.ReportError as error:
        return fail(error.code, error.message, as_json=form is Format.JSON)
    print(render(found, form), end="")
    return found.exit_code
