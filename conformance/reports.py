"""The NDJSON conformance report: one owner for its lines, reading, checking and writing.

A report is a header line, one result line per row (``AREA-NNN`` or ``AREA-NNN[case]``) and a
summary line (``schemas/report/v1/report-line.schema.json``). The runner, ``summary``,
``validate-report`` and ``update-expectations`` all read it through :func:`read_report` (or
:func:`examine_file`, which lists every problem rather than the first). :func:`examine` is the one
keeper of the rules: every line JSON and valid against the schema, and what a schema cannot say
(one header first, one summary last, ids unique, counts and verdict that follow from the rows), so
no reader trusts a file another one refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from conformance import named_inputs, schemas
from conformance.commandline import OneLineError
from conformance.judging import is_conformant
from conformance.outputs import write_owner_only
from conformance.untrusted_text import for_json

REPORT_SCHEMA: Final = "report/v1/report-line.schema.json"
#: The code of a report that cannot be read or does not follow ``schemas/report/v1``.
REPORT_INVALID: Final = "report-invalid"
UNKNOWN_IMPLEMENTATION: Final = {"name": "unknown", "version": "unknown", "language": "unknown"}
#: The suite contract version (docs/INTERPRETING.md) a report's header names; from 4 on, rows carry ``clauses``.
CONTRACT_VERSION: Final = 4
CLAUSES_SINCE: Final = 4


class ReportError(OneLineError):
    """A report that cannot be used: one line for the user."""

    code = REPORT_INVALID


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


def headline(message: str) -> str:
    """A row message's telling line: pytest's first ``E`` line (the exception), else its first line."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    raised = [line[1:].strip() for line in lines if line.startswith("E ") and line[1:].strip()]
    return (raised or lines or [""])[0]


def counts_of(results: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in results:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    return dict(sorted(counts.items()))


def with_expectations(header: Mapping[str, Any]) -> bool:
    """The run was given the implementation's expectations manifest (the header's ``expectations``)."""
    return "expectations" in header


def summary_line(header: Mapping[str, Any], results: list[dict[str, Any]],
                 interrupted: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The summary line of these rows of the run ``header`` describes (and why it ended early, if it did)."""
    counts = counts_of(results)
    line: dict[str, Any] = {"type": "summary", "total": len(results), "counts": counts,
                            "conformant": is_conformant(counts, with_expectations=with_expectations(header))}
    if interrupted is not None:
        line["interrupted"] = dict(interrupted)
    return line


def write_report(path: Path, report: Report) -> None:
    """Write the report, owner-only (:func:`conformance.outputs.write_owner_only`); what the port
    sent is in it as :func:`~conformance.untrusted_text.for_json` writes it (lone surrogates escaped)."""
    write_owner_only(path, "".join(for_json(line) + "\n" for line in report.lines()))


LINE_TYPES: Final = ("header", "result", "summary")


@dataclass(frozen=True)
class Problem:
    """One rule of ``schemas/report/v1`` a report breaks, at a line (1-based; 0: the whole file)."""

    line: int
    message: str

    def where(self, source: str) -> str:
        """``source:line: message``, the form every reader prints."""
        return f"{source}:{self.line}: {self.message}" if self.line else f"{source}: {self.message}"


def _schema_problems(line: Any) -> list[str]:
    """What the schema says of one decoded line, checked against the definition its ``type`` names."""
    if not isinstance(line, dict):
        return [f"a {type(line).__name__}, not a JSON object"]
    kind = line.get("type")
    if kind not in LINE_TYPES:
        return [f"'type' is {kind!r}, not one of {', '.join(LINE_TYPES)}"]
    return [schemas.describe(error) for error in schemas.errors(line, f"{REPORT_SCHEMA}#/$defs/{kind}")]


def _decoded(text: str) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem], list[int]]:
    """The numbered lines that are JSON and follow the schema, the problems of the others, and the
    numbers of every non-blank line."""
    good: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    numbers: list[int] = []
    # NDJSON lines end at LF only: a message may hold U+2028 or U+0085, which splitlines() splits at.
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            continue
        numbers.append(number)
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(Problem(number, f"not JSON: {exc.msg}"))
            continue
        if found := _schema_problems(line):
            problems += [Problem(number, f"not a report line: {message}") for message in found]
        else:
            good.append((number, line))
    return good, problems, numbers


def _placement_problems(good: list[tuple[int, dict[str, Any]]], numbers: list[int]) -> list[Problem]:
    """One header, first; one summary, last."""
    if not numbers:
        return [Problem(0, "the report is empty: no header, no results, no summary")]
    first, last = numbers[0], numbers[-1]
    problems: list[Problem] = []
    for number, line in good:
        kind = line["type"]
        if number == first and kind != "header":
            problems.append(Problem(number, f"the first line is not the header (a {kind} line)"))
        if number == last and kind != "summary":
            problems.append(Problem(number, f"the last line is not the summary (a {kind} line: an unfinished run?)"))
        if kind == "header" and number != first:
            problems.append(Problem(number, "a header line after the first line"))
        if kind == "summary" and number != last:
            problems.append(Problem(number, "a summary line before the last line"))
    return problems


def _id_problems(results: list[tuple[int, dict[str, Any]]]) -> list[Problem]:
    """Every row id once."""
    seen: dict[str, int] = {}
    problems: list[Problem] = []
    for number, row in results:
        if row["id"] in seen:
            problems.append(Problem(number, f"the row {row['id']} appears twice (first at line {seen[row['id']]})"))
        seen.setdefault(row["id"], number)
    return problems


def _clause_problems(version: int, bare: list[tuple[int, str]]) -> list[Problem]:
    """Every row of a report of contract version 4 or later lists its clauses (an older one need
    not): ``bare`` are the line numbers and ids of the rows without ``clauses``."""
    if version < CLAUSES_SINCE:
        return []
    return [Problem(number, f"the row {row_id} has no 'clauses' (every row of contract version "
                            f"{CLAUSES_SINCE} lists them, [] when none)") for number, row_id in bare]


def _summary_problems(header: Mapping[str, Any], number: int, summary: dict[str, Any],
                      results: list[dict[str, Any]] | None) -> list[Problem]:
    """The summary's verdict follows from its counts, and its total and counts from the rows
    (``results`` None: some lines could not be read, so the rows are not known)."""
    problems: list[Problem] = []
    if results is not None and summary["total"] != len(results):
        problems.append(Problem(number, f"the summary's total {summary['total']} does not match "
                                        f"its {len(results)} result rows"))
    if results is not None and summary["counts"] != (counted := counts_of(results)):
        problems.append(Problem(number, f"the summary's counts {json.dumps(summary['counts'], sort_keys=True)} "
                                        f"do not match its rows' {json.dumps(counted, sort_keys=True)}"))
    if summary["conformant"] != is_conformant(summary["counts"], with_expectations=with_expectations(header)):
        problems.append(Problem(number, f"the summary's 'conformant' ({json.dumps(summary['conformant'])}) "
                                        "does not follow from its counts"))
    return problems


def examine(text: str) -> tuple[Report | None, list[Problem]]:
    """Every rule these NDJSON lines break, in line order, and the report they make (None unless
    they break none). The one place the rules of a report are kept. The summary's total and counts
    are judged only when every line could be read: until then the rows are not known."""
    good, problems, numbers = _decoded(text)
    all_read = not problems
    problems += _placement_problems(good, numbers)
    results = [(n, {k: v for k, v in line.items() if k != "type"}) for n, line in good if line["type"] == "result"]
    problems += _id_problems(results)
    version = next((int(line.get("contract_version", 0)) for _, line in good if line["type"] == "header"), 0)
    problems += _clause_problems(version, [(n, row["id"]) for n, row in results if "clauses" not in row])
    summaries = [(n, line) for n, line in good if line["type"] == "summary"]
    if summaries:
        header = next((line for _, line in good if line["type"] == "header"), {})
        problems += _summary_problems(header, *summaries[-1], [row for _, row in results] if all_read else None)
    problems.sort(key=lambda problem: problem.line)
    if problems:
        return None, problems
    rows = sorted((row for _, row in results), key=lambda row: row["id"])
    return Report(good[0][1], rows, good[-1][1]), []


def parse_lines(text: str, source: str) -> Report:
    """The report these NDJSON lines make, or :class:`ReportError` naming the first problem."""
    report, problems = examine(text)
    if report is None:
        raise ReportError(problems[0].where(source))
    return report


def _why_unreadable(exc: OSError | UnicodeDecodeError) -> str:
    return str(getattr(exc, "strerror", None) or exc)


def read_report(path: Path) -> Report:
    """The report at ``path``, checked (see :func:`examine`)."""
    try:
        text = named_inputs.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"cannot read the report {path}: {_why_unreadable(exc)}") from None
    return parse_lines(text, str(path))


def examine_file(path: Path) -> tuple[Report | None, list[Problem]]:
    """:func:`examine` of the file at ``path``; a file that cannot be read is one problem."""
    try:
        text = named_inputs.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(0, f"cannot be read: {_why_unreadable(exc)}")]
    return examine(text)


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
    return Report(shards[0].header, results, summary_line(shards[0].header, results, stopped))
