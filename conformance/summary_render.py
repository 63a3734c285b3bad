"""The text, Markdown and JSON forms of a :class:`conformance.summary.Summary` (HTML:
:mod:`conformance.summary_html`, the SVG badge: :mod:`conformance.summary_svg`).

Every form is a pure function of the summary, so the same reports give the same bytes. A status
that fails a run stands out: in capitals in text, in bold in Markdown, flagged ``unexpected`` in
JSON. Port-controlled strings go through :mod:`conformance.untrusted_text`.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, Final

from conformance.judging import EXPECTED
from conformance.row_clauses import CitedClause
from conformance.statuses import Status
from conformance.summary import NOT_RUN_THERE, Cell, Part, Summary
from conformance.untrusted_text import for_markdown, for_terminal

SUMMARY_SCHEMA_ID: Final = "https://recall-rebase.invalid/schemas/summary/v1/summary.schema.json"
TEXT_LEGEND: Final = f"A status in CAPITALS fails a run; {NOT_RUN_THERE}: no row of that area in the report."
#: The failure view's clause lines: indented under their row, wrapped at this width.
WRAP: Final = 100
CLAUSE_INDENT: Final = "      "
MARKDOWN_LEGEND: Final = f"A **bold** status fails a run; {NOT_RUN_THERE}: no row of that area in the report."


class Format(StrEnum):
    """The forms ``conformance summary --format`` writes."""

    TEXT = "text"
    MARKDOWN = "markdown"
    JSON = "json"
    HTML = "html"
    SVG = "svg"


def styled(cell: Cell, mark: Callable[[Part], str]) -> str:
    """``38/40 (1 fail, 1 xfail)`` with each part drawn by ``mark``."""
    if not cell.parts:
        return cell.fraction()
    return f"{cell.fraction()} ({', '.join(map(mark, cell.parts))})"


def _capitals(part: Part) -> str:
    return part.words.upper() if part.unexpected else part.words


def _bold(part: Part) -> str:
    return f"**{part.words}**" if part.unexpected else part.words


def _table_lines(summary: Summary, mark: Callable[[Part], str], escape: Callable[[str], str],
                 total: str) -> list[list[str]]:
    """The table as cells: a heading line, one line per area, the total and the verdicts."""
    lines = [["area", *(escape(column.label) for column in summary.columns)]]
    lines += [[area.area, *(styled(cell, mark) for cell in area.cells)] for area in summary.areas]
    lines.append([total, *(styled(cell, mark) for cell in summary.total)])
    lines.append(["verdict", *(column.verdict for column in summary.columns)])
    return lines


def _aligned(lines: Sequence[Sequence[str]]) -> list[str]:
    if not lines:  # a report with no row to list under --show failures
        return []
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return ["  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
            for line in lines]


def render_text(summary: Summary) -> str:
    """Aligned columns for a terminal, a legend, and (``--show failures``) the rows not PASS."""
    table = _table_lines(summary, _capitals, for_terminal, "total")
    table.insert(1, ["-" * len(text) for text in table[0]])
    out = [*_aligned(table), "", TEXT_LEGEND]
    if summary.show_failures:
        out += _text_failures(summary)
    return "\n".join(out) + "\n"


def _text_failures(summary: Summary) -> list[str]:
    """Each report's rows not PASS, aligned, each followed by the clauses it checks, wrapped whole."""
    out: list[str] = []
    for index, column in enumerate(summary.columns):
        failures = summary.failures(index)
        out += ["", f"{for_terminal(column.label)}: {summary.failures_heading(index)}"]
        rows = [[row.id, str(result.status), for_terminal(result.message)]
                for row, result in failures]
        for line, (_, result) in zip(_aligned(rows), failures, strict=True):
            out.append(f"  {line}")
            out += _clause_lines(result.clauses)
    return out


def _clause_lines(clauses: Sequence[CitedClause]) -> list[str]:
    """``C2.5-3: text`` per clause, wrapped at :data:`WRAP` columns, the text's lines indented."""
    out: list[str] = []
    for clause in clauses:
        out += textwrap.wrap(for_terminal(clause.line), WRAP, initial_indent=CLAUSE_INDENT,
                             subsequent_indent=CLAUSE_INDENT + "  ", break_long_words=False, break_on_hyphens=False)
    return out


def _bold_status(status: Status) -> str:
    """A status name, in bold when it fails a run."""
    return f"**{status}**" if status not in EXPECTED else str(status)


def render_markdown(summary: Summary) -> str:
    """A GFM table (for a README), a legend, and (``--show failures``) a table of the rows not PASS."""
    table = _table_lines(summary, _bold, for_markdown, "**total**")
    out = [_md_line(table[0]), _md_line(["---", *("---:" for _ in summary.columns)])]
    out += [_md_line(line) for line in table[1:]]
    out += ["", MARKDOWN_LEGEND]
    if summary.show_failures:
        for index, column in enumerate(summary.columns):
            failures = summary.failures(index)
            out += ["", f"**{for_markdown(column.label)}**: {for_markdown(summary.failures_heading(index))}"]
            if failures:
                out += ["", _md_line(["row", "status", "message"]), _md_line(["---"] * 3)]
                out += [_md_line([f"`{row.id}`", _bold_status(result.status), for_markdown(result.message)])
                        for row, result in failures]
    return "\n".join(out) + "\n"


def _md_line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell_json(cell: Cell) -> dict[str, Any]:
    return {"text": cell.text(), "passed": cell.passed, "total": cell.total,
            "counts": {str(status): n for status, n in cell.counts.items()}, "unexpected": cell.unexpected}


def summary_object(summary: Summary) -> dict[str, Any]:
    """The JSON form (``schemas/summary/v1/summary.schema.json``): every row is in it, always."""
    columns = []
    for column in summary.columns:
        header, report_summary = column.report.header, column.report.summary
        entry = {"label": column.label, "report": column.path, "implementation": header["implementation"],
                 "suite_version": header["suite_version"], "started": header["started"],
                 "conformant": report_summary["conformant"], "verdict": column.verdict}
        if "interrupted" in report_summary:
            entry["interrupted"] = report_summary["interrupted"]
        columns.append(entry)
    return {
        "$schema": SUMMARY_SCHEMA_ID,
        "columns": columns,
        "areas": [{"area": area.area, "cells": [_cell_json(cell) for cell in area.cells]} for area in summary.areas],
        "total": [_cell_json(cell) for cell in summary.total],
        "rows": [{"id": row.id, "area": row.area, "title": row.title,
                  "outcomes": [None if o is None else {"status": str(o.status), "message": o.message}
                               for o in row.results]}
                 for area in summary.areas for row in area.rows],
    }


def render_json(summary: Summary) -> str:
    return json.dumps(summary_object(summary), ensure_ascii=False, indent=2) + "\n"


def render(summary: Summary, form: Format) -> str:
    """The summary in the form ``--format`` names."""
    if form is Format.HTML:
        from conformance.summary_html import render_html

        return render_html(summary)
    if form is Format.SVG:
        from conformance.summary_svg import badge_text

        return badge_text(summary)
    renderers = {Format.TEXT: render_text, Format.MARKDOWN: render_markdown, Format.JSON: render_json}
    return renderers[form](summary)
