"""The HTML form of a :class:`conformance.summary.Summary`: one static, self-contained page.

Inline CSS, no script, no ``src``, so it opens offline and can be published as a CI artifact. The
only ``href`` are the links of a failing row's clauses to their anchors in ``docs/spec/``,
relative to the suite root and made from ids the report's schema restricts; the clause's text
is on the page beside its link. Every string that comes from a report passes through
:func:`conformance.untrusted_text.for_html`: a port's message is text on the page, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.judging import EXPECTED
from conformance.row_clauses import NOT_IN_SPEC, link_of
from conformance.statuses import Status
from conformance.summary import Cell, Column, Part, RowLine, RowResult, Summary
from conformance.untrusted_text import for_html

STYLE: Final = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.cell { text-align: right; white-space: nowrap; }
.all-pass { background: #e8f5e9; }
.unexpected { background: #ffebee; }
.none { color: #888; }
.bad { color: #b71c1c; font-weight: bold; }
.msg { color: #555; font-size: 90%; white-space: pre-wrap; }
details { margin: 0.3em 0; }
summary { cursor: pointer; }
code { font-family: ui-monospace, monospace; }
ul.clauses { margin: 0.3em 0 0; padding-left: 1.2em; font-size: 90%; }
""".strip()


def _part(part: Part) -> str:
    words = for_html(part.words)
    return f'<span class="bad">{words}</span>' if part.unexpected else words


def _cell(cell: Cell) -> str:
    """A table cell, coloured by what it holds: all passing, something unexpected, or nothing."""
    kind = "none" if not cell.total else "unexpected" if cell.unexpected else "all-pass" if not cell.parts else "expected"
    text = for_html(cell.fraction())
    if cell.parts:
        text += f" ({', '.join(_part(part) for part in cell.parts)})"
    return f'<td class="cell {kind}">{text}</td>'


def _headings(columns: Sequence[Column], first: Sequence[str]) -> str:
    names = [*(for_html(text) for text in first), *(for_html(column.label) for column in columns)]
    return "<tr>" + "".join(f"<th>{name}</th>" for name in names) + "</tr>"


def _area_table(summary: Summary) -> list[str]:
    out = ["<table>", _headings(summary.columns, ["area"])]
    for area in summary.areas:
        out.append(f"<tr><th>{for_html(area.area)}</th>{''.join(map(_cell, area.cells))}</tr>")
    out.append(f"<tr><th>total</th>{''.join(map(_cell, summary.total))}</tr>")
    verdicts = "".join(f"<td>{for_html(column.verdict)}</td>" for column in summary.columns)
    out += [f"<tr><th>verdict</th>{verdicts}</tr>", "</table>"]
    return out


def _result_cell(result: RowResult | None) -> str:
    if result is None:
        return '<td class="none">—</td>'
    status = for_html(result.status)
    status = status if result.status in EXPECTED else f'<span class="bad">{status}</span>'
    message = f'<div class="msg">{for_html(result.message)}</div>' if result.message else ""
    return f"<td>{status}{message}</td>"


def _row(row: RowLine) -> str:
    return (f"<tr><td><code>{for_html(row.id)}</code></td><td>{for_html(row.title)}</td>"
            f"{''.join(map(_result_cell, row.results))}</tr>")


def _area_details(summary: Summary) -> list[str]:
    """One ``<details>`` per area: every row, its title and its status in each report."""
    out = ["<h2>Rows per area</h2>"]
    for area in summary.areas:
        cells = "; ".join(f"{for_html(column.label)}: {for_html(cell.text())}"
                          for column, cell in zip(summary.columns, area.cells, strict=True))
        out += [f"<details><summary><strong>{for_html(area.area)}</strong> ({len(area.rows)} rows) {cells}"
                "</summary>", "<table>", _headings(summary.columns, ["row", "title"])]
        out += [_row(row) for row in area.rows]
        out += ["</table>", "</details>"]
    return out


def _clauses(result: RowResult) -> str:
    """The clauses a failing row checks, each its id linked to its anchor and its whole text. The
    link is the one the report's schema allows (``docs/spec/<document>.md#<id>``), made here from
    the id, relative to the suite root: it resolves where the page is published beside the suite."""
    if not result.clauses:
        return ""
    items = "".join(f'<li><a href="{for_html(link_of(clause.id))}"><code>{for_html(clause.id)}</code></a>: '
                    f"{for_html(clause.text or NOT_IN_SPEC)}</li>" for clause in result.clauses)
    return f'<ul class="clauses">{items}</ul>'


def _failures(summary: Summary) -> list[str]:
    out = ["<h2>Rows not PASS</h2>"]
    for index, column in enumerate(summary.columns):
        failures = summary.failures(index)
        out.append(f"<h3>{for_html(column.label)}: {for_html(summary.failures_heading(index))}</h3>")
        if failures:
            out += ["<table>", "<tr><th>row</th><th>title</th><th>status</th></tr>"]
            out += [f"<tr><td><code>{for_html(row.id)}</code></td><td>{for_html(row.title)}{_clauses(result)}</td>"
                    f"{_result_cell(result)}</tr>" for row, result in failures]
            out.append("</table>")
    return out


def _sources(summary: Summary) -> list[str]:
    out = ["<ul>"]
    for column in summary.columns:
        header = column.report.header
        out.append(f"<li><strong>{for_html(column.label)}</strong> ({for_html(header['implementation']['language'])})"
                   f": <code>{for_html(column.path)}</code>, suite {for_html(header['suite_version'])}, "
                   f"started {for_html(header['started'])}</li>")
    return [*out, "</ul>"]


def render_html(summary: Summary) -> str:
    """The whole page."""
    body = ["<h1>recall-rebase conformance summary</h1>", *_sources(summary), *_area_table(summary),
            f'<p>A status in <span class="bad">red</span> fails a run; — : no row of that area in the report '
            f"({for_html(Status.PASS)} rows count as passed).</p>"]
    if summary.show_failures:
        body += _failures(summary)
    body += _area_details(summary)
    head = ['<!DOCTYPE html>', '<html lang="en">', "<head>", '<meta charset="utf-8">',
            "<title>recall-rebase conformance summary</title>", f"<style>\n{STYLE}\n</style>", "</head>"]
    return "\n".join([*head, "<body>", *body, "</body>", "</html>"]) + "\n"
