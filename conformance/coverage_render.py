"""The forms of ``recall-rebase conformance coverage``: text, Markdown, HTML and JSON.

Each is a pure function of a :class:`conformance.coverage.Coverage`: the uncovered clauses first,
then one table per spec section (document and section) and one per area (a scenario id's
prefix). JSON (``schemas/clauses/v1/coverage.schema.json``) and HTML also list every clause with
the rows that check it, the mutants that break it and its reason when it is unobservable. The
Markdown links each clause to its anchor, relative to ``docs/`` (``docs/coverage.md`` holds it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from html import escape
from typing import Final

from conformance.coverage import AreaCoverage, ClauseCoverage, Coverage, SectionCoverage, State, Tally
from conformance.protocol import JsonObject
from conformance.summary_html import STYLE as SUMMARY_STYLE

COVERAGE_SCHEMA_ID: Final = "https://recall-rebase.invalid/schemas/clauses/v1/coverage.schema.json"
#: How much of a clause's text a line of the uncovered list shows.
SHOWN_CHARS: Final = 100
SECTION_COLUMNS: Final = ("document", "section", "clauses", "covered", "unobservable", "uncovered", "mutants")
AREA_COLUMNS: Final = ("area", "scenarios", "citing", "clauses", "mutants")


class Format(StrEnum):
    """The forms ``conformance coverage --format`` writes."""

    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"
    JSON = "json"


def _shortened(text: str, limit: int = SHOWN_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _tally_cells(tally: Tally) -> list[str]:
    return [str(tally.clauses), str(tally.covered), str(tally.unobservable), str(tally.uncovered), str(tally.mutated)]


def _section_lines(report: Coverage) -> list[list[str]]:
    lines = [[section.document, section.section, *_tally_cells(section.tally)] for section in report.sections]
    return [list(SECTION_COLUMNS), *lines, ["total", "", *_tally_cells(report.totals)]]


def _area_lines(report: Coverage) -> list[list[str]]:
    lines = [[area.area, str(area.scenarios), str(area.citing), str(area.clauses), str(area.mutants)]
             for area in report.areas]
    return [list(AREA_COLUMNS), *lines]


def headline(report: Coverage) -> str:
    """One sentence of the totals."""
    totals = report.totals
    return (f"{totals.clauses} clauses of docs/spec/: {totals.covered} covered by a scenario, "
            f"{totals.unobservable} unobservable (with a reason), {totals.uncovered} uncovered; "
            f"{totals.mutated} named by a mutant. {report.citing} of {report.scenarios} scenarios cite a clause.")


def uncovered(report: Coverage) -> list[ClauseCoverage]:
    return [item for item in report.clauses if item.state == State.UNCOVERED]


def _aligned(lines: Sequence[Sequence[str]], numeric_from: int) -> list[str]:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = []
    for number, line in enumerate(lines):
        cells = [text.rjust(width) if column >= numeric_from and number else text.ljust(width)
                 for column, (text, width) in enumerate(zip(line, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
        if number == 0:
            out.append("  ".join("-" * width for width in widths))
    return out


def render_text(report: Coverage) -> str:
    missing = uncovered(report)
    out = [headline(report), "", f"UNCOVERED: {len(missing)} clause(s) no scenario checks and none reasoned unobservable"]
    width = max((len(item.clause.id) for item in missing), default=0)
    out += [f"  {item.clause.id:<{width}}  {item.clause.document} §{item.clause.section}  "
            f"{_shortened(item.clause.text)}" for item in missing]
    out += ["", "per spec section", *_aligned(_section_lines(report), 2)]
    out += ["", "per area (scenario id prefix; citing: scenarios that cite a clause; mutants: entries naming one)",
            *_aligned(_area_lines(report), 1)]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _markdown_table(lines: Sequence[Sequence[str]], numeric_from: int) -> list[str]:
    head, *body = lines
    rule = ["---:" if column >= numeric_from else "---" for column in range(len(head))]
    return [f"| {' | '.join(_cell(text) for text in line)} |" for line in (head, rule, *body)]


def clause_link(item: ClauseCoverage) -> str:
    """``[C6.12-3](spec/contract.md#C6.12-3)``: the clause's anchor, from ``docs/``."""
    return f"[{item.clause.id}](spec/{item.clause.document}#{item.clause.id})"


#: The line of docs/coverage.md after which the page is ``render_markdown``'s output
#: (``python tools/clauses.py page`` rewrites it).
GENERATED: Final = "<!-- generated: recall-rebase conformance coverage --format markdown -->\n"


def render_markdown(report: Coverage) -> str:
    missing = uncovered(report)
    out = [headline(report), "", f"### Uncovered clauses ({len(missing)})", ""]
    out += [f"- {clause_link(item)} {item.clause.document} §{item.clause.section}: {_shortened(item.clause.text)}"
            for item in missing] or ["None: every clause is checked by a scenario or reasoned unobservable."]
    out += ["", "### Per spec section", "", *_markdown_table(_section_lines(report), 2)]
    out += ["", "### Per area", "", "*citing*: the area's scenarios that cite a clause; *clauses*: the distinct "
            "clauses they cite; *mutants*: the area's mutant entries that name a clause.", "",
            *_markdown_table(_area_lines(report), 1)]
    return "\n".join(out) + "\n"


def _tally_json(tally: Tally) -> dict[str, int]:
    return {"clauses": tally.clauses, "covered": tally.covered, "unobservable": tally.unobservable,
            "uncovered": tally.uncovered, "mutated": tally.mutated}


def _clause_json(item: ClauseCoverage) -> JsonObject:
    clause = item.clause
    entry = item.unobservable
    return {"id": clause.id, "document": clause.document, "section": clause.section, "heading": clause.heading,
            "line": clause.line, "text": clause.text, "state": item.state.value, "scenarios": list(item.scenarios),
            "mutants": list(item.mutants), "unobservable": entry.reason if entry is not None else None,
            "testedIn": list(entry.tested_in) if entry is not None else []}


def _section_json(section: SectionCoverage) -> JsonObject:
    return {"document": section.document, "section": section.section, "heading": section.heading,
            **_tally_json(section.tally)}


def _area_json(area: AreaCoverage) -> JsonObject:
    return {"area": area.area, "scenarios": area.scenarios, "citing": area.citing, "clauses": area.clauses,
            "mutants": area.mutants}


def render_json(report: Coverage) -> str:
    """One object: ``clauses``, ``totals``, ``sections``, ``areas``."""
    document = {"$schema": COVERAGE_SCHEMA_ID, "clauses": [_clause_json(item) for item in report.clauses],
                "totals": {**_tally_json(report.totals), "scenarios": report.scenarios, "citing": report.citing},
                "sections": [_section_json(section) for section in report.sections],
                "areas": [_area_json(area) for area in report.areas]}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


#: The summary page's style, and a colour per state of a clause.
STYLE: Final = SUMMARY_STYLE + """
td.n { text-align: right; }
tr.uncovered td { background: #ffebee; }
tr.unobservable td { background: #fff8e1; }
tr.covered td { background: #e8f5e9; }"""


def _html_table(lines: Sequence[Sequence[str]], numeric_from: int) -> list[str]:
    head, *body = lines
    out = ["<table>", "<tr>" + "".join(f"<th>{escape(text)}</th>" for text in head) + "</tr>"]
    out += ["<tr>" + "".join(f'<td class="n">{escape(text)}</td>' if column >= numeric_from else
                             f"<td>{escape(text)}</td>" for column, text in enumerate(line)) + "</tr>" for line in body]
    return [*out, "</table>"]


def _html_clause(item: ClauseCoverage) -> str:
    entry = item.unobservable
    why = "" if entry is None else f"{escape(entry.reason)} (tested in {escape(', '.join(entry.tested_in))})"
    return (f'<tr class="{item.state.value}" id="{escape(item.clause.id)}"><td><code>{escape(item.clause.id)}</code></td>'
            f"<td>{escape(item.clause.document)} §{escape(item.clause.section)}</td><td>{escape(item.state.value)}</td>"
            f"<td>{escape(item.clause.text)}</td><td>{escape(', '.join(item.scenarios))}</td>"
            f"<td>{escape(', '.join(item.mutants))}</td><td>{why}</td></tr>")


def render_html(report: Coverage) -> str:
    """One static, self-contained page: inline CSS, no script, no external reference."""
    missing = uncovered(report)
    body = ["<h1>recall-rebase clause coverage</h1>", f"<p>{escape(headline(report))}</p>",
            f"<h2>Uncovered clauses ({len(missing)})</h2>"]
    body += ["<ul>", *(f"<li><code>{escape(item.clause.id)}</code> {escape(item.clause.document)} "
                       f"§{escape(item.clause.section)}: {escape(_shortened(item.clause.text))}</li>"
                       for item in missing), "</ul>"] if missing else \
        ["<p>None: every clause is checked by a scenario or reasoned unobservable.</p>"]
    body += ["<h2>Per spec section</h2>", *_html_table(_section_lines(report), 2),
             "<h2>Per area</h2>", *_html_table(_area_lines(report), 1), "<h2>Every clause</h2>", "<table>",
             "<tr><th>clause</th><th>where</th><th>state</th><th>text</th><th>rows</th><th>mutants</th>"
             "<th>unobservable because</th></tr>", *map(_html_clause, report.clauses), "</table>"]
    head = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
            "<title>recall-rebase clause coverage</title>", f"<style>\n{STYLE}\n</style>", "</head>"]
    return "\n".join([*head, "<body>", *body, "</body>", "</html>"]) + "\n"


RENDERERS: Final = {Format.TEXT: render_text, Format.MARKDOWN: render_markdown, Format.HTML: render_html,
                    Format.JSON: render_json}


def render(report: Coverage, form: Format) -> str:
    return RENDERERS[form](report)
