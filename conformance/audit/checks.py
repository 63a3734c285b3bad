"""The audit's checks: a catalogue of stable ids, each with a title, a severity and one SQL file.

A check's SQL (``sql/checks/AUDIT-NNN.sql``) runs on the sealed connection and returns one row per
disagreement between a projection and the canonical files; its columns are what a sample shows
(ids, offsets, hashes: never content). A row the projection has without its line is AUDIT-002's
alone: the checks of a row's locator, hash, fields and FTS key judge only rows that have their
line, so one planted defect is reported by exactly one check (docs/audit.md, "Checks").
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

import duckdb

from conformance.audit.sql_files import sql_text


class Severity(StrEnum):
    """How bad a finding is: every error is a projection saying what the canonical files do not."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class AuditCheck:
    """One check of the catalogue; its SQL is ``sql/checks/<id>.sql``."""

    id: str
    severity: Severity
    title: str

    @property
    def sql_name(self) -> str:
        return f"checks/{self.id}.sql"


#: Every check, in the order they run and are listed (docs/audit.md has the same table).
CHECKS: Final[tuple[AuditCheck, ...]] = (
    AuditCheck("AUDIT-001", Severity.ERROR, "an entry line the projection has caught up with has no entry row"),
    AuditCheck("AUDIT-002", Severity.ERROR, "an entry row has no line in its session file"),
    AuditCheck("AUDIT-003", Severity.ERROR, "a locator is missing or is not exactly its line's bytes"),
    AuditCheck("AUDIT-004", Severity.ERROR, "a stored content hash is not the SHA-256 of its line"),
    AuditCheck("AUDIT-005", Severity.ERROR, "a projected field (id, parent, type, role, timestamp) differs from its line"),
    AuditCheck("AUDIT-006", Severity.ERROR, "a session row differs from its file's header, or has no file"),
    AuditCheck("AUDIT-007", Severity.ERROR, "a catch-up cursor disagrees with its file (ahead, stale hash, torn tail)"),
    AuditCheck("AUDIT-008", Severity.ERROR, "an entry row has no FTS key, or an FTS key has no entry row"),
    AuditCheck("AUDIT-009", Severity.ERROR, "SQLite's or FTS5's own integrity check fails"),
    AuditCheck("AUDIT-010", Severity.ERROR, "a lineage or checkpoint row has no matching checkpoint and link on its "
                                            "target's active branch"),
    AuditCheck("AUDIT-011", Severity.ERROR, "the source prefix a lineage or checkpoint row names differs from its "
                                            "link or checkpoint, or does not hash as recorded"),
    AuditCheck("AUDIT-012", Severity.ERROR, "a journal is unreadable, over 32,000 bytes, or invalid against "
                                            "schemas/rebase/journal.schema.json"),
    AuditCheck("AUDIT-013", Severity.ERROR, "a journal's phase disagrees with the files (target missing or changed, "
                                            "source prefix changed)"),
    AuditCheck("AUDIT-014", Severity.ERROR, "a rebase target file has no journal"),
    AuditCheck("AUDIT-015", Severity.ERROR, "a temporary file of a durable write was left behind"),
    AuditCheck("AUDIT-016", Severity.ERROR, "an operation row differs from its journal, or has no journal"),
    AuditCheck("AUDIT-017", Severity.ERROR, "a projection or journal file is not owner-only"),
)
CHECKS_BY_ID: Final = {check.id: check for check in CHECKS}
#: Rows of a finding beyond its samples are counted this many at a time.
COUNT_BATCH_ROWS: Final = 10_000
#: How many rows of a finding are shown unless asked otherwise.
DEFAULT_SAMPLES: Final = 5


@dataclass(frozen=True)
class Finding:
    """What one check found: how many rows, and the first few of them."""

    check: AuditCheck
    count: int
    samples: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.check.id, "title": self.check.title, "severity": self.check.severity.value,
                "count": self.count, "samples": [dict(sample) for sample in self.samples]}


@dataclass(frozen=True)
class NotApplicable:
    """A check that could not judge these inputs, and why (an OS without permission bits, say)."""

    check: AuditCheck
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.check.id, "title": self.check.title, "reason": self.reason}


def run_check(connection: duckdb.DuckDBPyConnection, check: AuditCheck, *, samples: int) -> Finding | None:
    """Run one check on the sealed connection: its first ``samples`` rows are kept, the others only
    counted (a clean check, the usual case, is one query); ``None`` when it found nothing."""
    cursor = connection.execute(sql_text(check.sql_name))
    columns = [description[0] for description in cursor.description or ()]
    rows = cursor.fetchmany(samples) if samples else []
    count = len(rows)
    if count == samples:  # there may be more: count them without keeping them
        while batch := cursor.fetchmany(COUNT_BATCH_ROWS):
            count += len(batch)
    if count == 0:
        return None
    return Finding(check, count, tuple(dict(zip(columns, row, strict=True)) for row in rows))
