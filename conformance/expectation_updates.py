"""``conformance update-expectations REPORT --write FILE``: a manifest brought up to date by a run.

A failing row (FAIL or ERROR) that no entry covers gets an ``xfail`` entry under
its row id; an ``xfail`` entry whose rows all pass now (PASS or XPASS) is removed, and one whose
rows only partly pass is narrowed to the rows that do not pass. ``skip`` and ``flaky`` entries,
globs, and entries the report has no row for are kept. Entries come out sorted by id, with their
comments (``tomlkit`` keeps them; a comment above an entry moves under its ``[[expectation]]``
line, so it stays with its entry whatever the order). A new entry's comment names the clauses its
row checks (``# checks C2.5-3``). The same report gives the same file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast

import tomlkit
from tomlkit.items import AoT, Comment, Table, Whitespace

from conformance import reports
from conformance.expectations import Expected, ManifestError, load_manifest, parse_manifest
from conformance.row_clauses import CitedClause, cited

BAD_REPORT: Final = "expectations-report"
FAILING: Final = frozenset({"FAIL", "ERROR", "XFAIL"})
PASSING: Final = frozenset({"PASS", "XPASS"})


class UpdateError(Exception):
    """The report or the manifest cannot be used: one line for the user."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Changes:
    """What one update did, for the line it prints."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def line(self, path: Path) -> str:
        return f"{path}: {len(self.added)} added, {len(self.removed)} removed"


def read_report(path: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    """The implementation's name and the result rows by id (:func:`conformance.reports.read_report`)."""
    try:
        report = reports.read_report(path)
    except reports.ReportError as error:
        raise UpdateError(BAD_REPORT, error.message) from None
    return str(report.implementation["name"]), {row["id"]: row for row in report.results}


def _split(document: tomlkit.TOMLDocument) -> tuple[tomlkit.TOMLDocument, list[Table], list[Comment]]:
    """The file without its entries; the ``[[expectation]]`` tables, each with the comments written
    right above it moved inside it; and the comments after the last one (they stay at the end)."""
    body = list(document.body)
    at = next((i for i, (key, _) in enumerate(body) if key is not None and key.key == "expectation"), len(body))
    head_items, entries = body[:at], cast(AoT, body[at][1]) if at < len(body) else AoT([])
    carried: list[Comment] = []
    while head_items and head_items[-1][0] is None and isinstance(head_items[-1][1], Comment):
        carried.insert(0, cast(Comment, head_items.pop()[1]))
    head = tomlkit.document()
    for key, item in head_items:
        if key is None:
            head.add(cast(Comment | Whitespace, item))
        else:
            head.add(key, item)
    moved = []
    for table in entries:
        fresh, carried = _moved(table, carried)
        moved.append(fresh)
    return head, moved, carried


def _moved(table: Table, above: list[Comment]) -> tuple[Table, list[Comment]]:
    """``table`` with the comments ``above`` it first and no blank lines; the comments after its
    last key, which belong to the next entry."""
    items = table.value.body
    last_key = max((i for i, (key, _) in enumerate(items) if key is not None), default=-1)
    fresh = _table(above)
    for key, item in items[: last_key + 1]:
        if key is not None:
            fresh.add(key, item)
        elif isinstance(item, Comment):
            fresh.add(item)
    return fresh, [item for _, item in items[last_key + 1 :] if isinstance(item, Comment)]


def _leading_comments(table: Table) -> list[Comment]:
    body = table.value.body
    first_key = next((i for i, (key, _) in enumerate(body) if key is not None), len(body))
    return [item for _, item in body[:first_key] if isinstance(item, Comment)]


def _table(comments: list[Comment]) -> Table:
    table = tomlkit.table()
    for comment in comments:
        table.add(comment)
    return table


def _xfail(row: str, reason: str, comments: list[Comment] | None = None) -> Table:
    table = _table(comments or [])
    table.add("id", row)
    table.add("status", str(Expected.XFAIL))
    table.add("reason", reason)
    return table


def flaky_entry(row: str, outcomes: Sequence[str], reason: str) -> str:
    """The ``[[expectation]]`` table of a ``flaky`` entry, as TOML text to paste into a manifest."""
    table = _table([])
    table.add("id", row)
    table.add("status", str(Expected.FLAKY))
    table.add("outcomes", list(outcomes))
    table.add("reason", reason)
    document = tomlkit.document()
    document.add("expectation", tomlkit.aot())
    cast(AoT, document["expectation"]).append(table)
    return tomlkit.dumps(document).rstrip("\n")


def _failure_reason(result: dict[str, Any]) -> str:
    """The last line of the failure (pytest's ``E`` margin dropped), as the first guess of a reason."""
    lines = [line.strip() for line in str(result.get("message", "")).splitlines() if line.strip()]
    last = lines[-1].removeprefix("E ").strip() if lines else ""
    return (last or f"{result['status']} in the report")[:200]


def _clause_comment(clauses: Sequence[CitedClause]) -> list[Comment]:
    """``# checks C2.5-3, C2.5-4``: the clauses the row checks, so the entry says which rule the port breaks."""
    return [tomlkit.comment(f"checks {', '.join(clause.id for clause in clauses)}")] if clauses else []


def _covered(entry_id: str, results: dict[str, dict[str, Any]]) -> list[str]:
    return sorted(row for row in results if row == entry_id or row.split("[", 1)[0] == entry_id)


def _update_entries(tables: list[Table], results: dict[str, dict[str, Any]], changes: Changes) -> list[Table]:
    kept: list[Table] = []
    for table in tables:
        entry_id, status = str(table["id"]), str(table["status"])
        rows = _covered(entry_id, results)
        if status != Expected.XFAIL or any(c in entry_id for c in "*?") or not rows:
            kept.append(table)
            continue
        still = [row for row in rows if results[row]["status"] not in PASSING]  # UNSUPPORTED rows too
        if len(still) == len(rows):
            kept.append(table)
            continue
        changes.removed.append(entry_id)
        comments = _leading_comments(table)
        for row in still:  # narrowed to the rows that do not pass, with the entry's reason and comments
            kept.append(_xfail(row, str(table["reason"]), comments))
            changes.added.append(row)
            comments = []
    covered = parse_manifest({"implementation": "x", "expectation": [t.unwrap() for t in kept]}, where="update")
    for row in sorted(results):
        if results[row]["status"] in FAILING and covered.expectation_for(row) is None:
            kept.append(_xfail(row, _failure_reason(results[row]), _clause_comment(cited(results[row]))))
            changes.added.append(row)
    return sorted(kept, key=lambda t: str(t["id"]))


def _document(path: Path, implementation: str) -> tomlkit.TOMLDocument:
    if not path.exists():
        document = tomlkit.document()
        document.add("implementation", implementation)
        return document
    try:
        load_manifest(path)
    except ManifestError as error:
        raise UpdateError(error.code, error.message) from None
    return tomlkit.parse(path.read_text(encoding="utf-8"))


def _write(head: tomlkit.TOMLDocument, tables: list[Table], tail: list[Comment], path: Path) -> None:
    """The head, one blank line, the entries (tomlkit puts one blank line between them), the closing comments."""
    if tables:
        entries = AoT([])
        for table in tables:
            entries.append(table)
        if tail:
            tables[-1].add(tomlkit.nl())
        for comment in tail:
            tables[-1].add(comment)
        if not tomlkit.dumps(head).endswith("\n\n"):
            head.add(tomlkit.nl())
        head.add("expectation", entries)
    try:
        path.write_text(tomlkit.dumps(head).rstrip("\n") + "\n", encoding="utf-8")
    except OSError as exc:
        raise UpdateError("io", f"cannot write {path}: {exc.strerror or exc}") from None


def update_expectations(report: Path, manifest: Path) -> str:
    """Update (or create) ``manifest`` from ``report``; returns the line to print."""
    implementation, results = read_report(report)
    document = _document(manifest, implementation)
    changes = Changes()
    head, tables, tail = _split(document)
    _write(head, _update_entries(tables, results, changes), tail, manifest)
    return changes.line(manifest)
