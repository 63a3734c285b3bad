"""The NDJSON conformance report: one owner for its lines, reading, checking and writing.

A report is a header line, one result line per row (``AREA-NNN`` or ``AREA-NNN[case]``) and a
summary line (``schemas/report/v1/report-line.schema.json``). The runner, ``summary``,
``validate-report`` and ``update-expectations`` all read it through :func:`read_report`, which
checks every line against the schema and the rules a schema cannot say (one header first, one
summary last, ids unique, counts that add up), so no reader trusts a file another one refused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from conformance import schemas
from conformance.judging import is_conformant

REPORT_SCHEMA: Final = "report/v1/report-line.schema.json"
#: The code of a report that cannot be read or does not follow ``schemas/report/v1``.
REPORT_INVALID: Final = "report-invalid"
UNKNOWN_IMPLEMENTATION: Final = {"name": "unknown", "version": "unknown", "language": "unknown"}


class ReportError(Exception):
    """A report that cannot be used: one line for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = REPORT_INVALID
        self.message = message


@dataclass(frozen=True)
class Report:
    """One run's report: its header, its rows in id order, its summary."""

    header: dict[str, Any]
    results: list[dict[str, Any]]
    summary: dict[str, Any]

    @property
    def implementation(self) -> dict[str, str]:
        return dict(self.header["implementation"])

    @property
    def label(self) -> str:
        """``name version``, the column heading of a summary table."""
        impl = self.implementation
        return f"{impl['name']} {impl['version']}".strip()

    def lines(self) -> list[dict[str, Any]]:
        return [self.header, *({"type": "result", **row} for row in self.results), self.summary]


def area_of(row_id: str) -> str:
    """``READER`` of ``READER-021[linear]``."""
    return row_id.split("-", 1)[0]


def counts_of(results: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in results:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    return dict(sorted(counts.items()))


def summary_line(results: list[dict[str, Any]], interrupted: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The summary line of these rows (and why the run ended early, if it did)."""
    counts = counts_of(results)
    line: dict[str, Any] = {"type": "summary", "total": len(results), "counts": counts,
                            "conformant": is_conformant(counts)}
    if interrupted is not None:
        line["interrupted"] = dict(interrupted)
    return line


def write_report(path: Path, report: Report) -> None:
    """Write the report, owner-only (a new file is created 0600; an existing one keeps its mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
        for line in report.lines():
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


def parse_lines(text: str, source: str) -> Report:
    """The report these NDJSON lines make, or :class:`ReportError` naming the first problem."""
    lines: list[dict[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ReportError(f"{source}:{number}: not JSON: {exc.msg}") from None
        if problems := schemas.errors(line, REPORT_SCHEMA):
            raise ReportError(f"{source}:{number}: not a report line: {schemas.describe(problems[0])}")
        lines.append(line)
    if not lines or lines[0]["type"] != "header":
        raise ReportError(f"{source}: the first line is not the header")
    if lines[-1]["type"] != "summary":
        raise ReportError(f"{source}: the last line is not the summary (an unfinished run?)")
    middle = lines[1:-1]
    if any(line["type"] != "result" for line in middle):
        raise ReportError(f"{source}: a header or summary line between the result lines")
    results = [{key: value for key, value in line.items() if key != "type"} for line in middle]
    seen: set[str] = set()
    for row in results:
        if row["id"] in seen:
            raise ReportError(f"{source}: the row {row['id']} appears twice")
        seen.add(row["id"])
    summary = lines[-1]
    if summary["total"] != len(results) or summary["counts"] != counts_of(results):
        raise ReportError(f"{source}: the summary's total or counts do not match its {len(results)} rows")
    if summary["conformant"] != is_conformant(summary["counts"]):
        raise ReportError(f"{source}: the summary's 'conformant' does not follow from its counts")
    return Report(lines[0], sorted(results, key=lambda row: row["id"]), summary)


def read_report(path: Path) -> Report:
    """The report at ``path``, checked (see :func:`parse_lines`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"cannot read the report {path}: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_lines(text, str(path))


#: Why a merged run ended early, most telling first: a port that could not start wins.
_INTERRUPTION_RANK: Final = ("port-start-failed", "SIGTERM", "SIGINT")


def _merged_interruption(summaries: Iterable[Mapping[str, Any]]) -> dict[str, str] | None:
    """The ``interrupted`` of the shards' summaries: any one's, ``port-start-failed`` first."""
    stopped = [dict(summary["interrupted"]) for summary in summaries if "interrupted" in summary]
    if not stopped:
        return None
    rank = {reason: place for place, reason in enumerate(_INTERRUPTION_RANK)}
    return min(stopped, key=lambda line: rank.get(line["reason"], len(rank)))


def merge_reports(shards: list[Report], *, interrupted: Mapping[str, str] | None = None) -> Report:
    """One report of a run split over workers (``-j N``): the first shard's header, the union of
    the rows in id order, the summary recomputed; ``interrupted`` (the runner's own signal) wins
    over the shards' reasons."""
    if not shards:
        raise ReportError("no report to merge")
    results = sorted((row for shard in shards for row in shard.results), key=lambda row: row["id"])
    ids = [row["id"] for row in results]
    if len(set(ids)) != len(ids):
        raise ReportError("the shards of the run report one row twice")
    stopped = dict(interrupted) if interrupted is not None else _merged_interruption(s.summary for s in shards)
    return Report(shards[0].header, results, summary_line(results, stopped))
