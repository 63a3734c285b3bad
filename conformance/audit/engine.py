"""One audit: load both sides and the facts, seal, run every check, and say what disagrees.

The result is data (:class:`AuditResult`): the command prints it for people or as the JSON
document of ``schemas/audit/findings.schema.json``, and ``conformance run --audit`` fails a
scenario with its check ids. Samples carry ids, offsets and hashes; a line's text is added only
when asked (``show_content``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from conformance.audit.canonical import load_canonical
from conformance.audit.checks import CHECKS, CHECKS_BY_ID, DEFAULT_SAMPLES, Finding, NotApplicable, run_check
from conformance.audit.connection import DEFAULT_MEMORY_LIMIT, offline_connection, seal
from conformance.audit.facts import HAS_PERMISSION_BITS, load_facts, read_range
from conformance.audit.inputs import AuditInputs
from conformance.audit.mapping import ProjectionMapping
from conformance.audit.projection import load_projection
from conformance.audit.sql_files import sql_text
from conformance.audit.views import AuditView

#: The ``schema`` of the JSON document (``schemas/audit/findings.schema.json``).
FINDINGS_SCHEMA: Final = "recall-rebase/audit-findings/1"
#: At most this much of a line is shown with ``--show-content``.
CONTENT_BYTES: Final = 2048
#: Offsets a sample may carry, as (start, end) column pairs, for ``--show-content``.
_SPANS: Final = (("line_start", "line_end"), ("start_offset", "end_offset"))


@dataclass(frozen=True)
class AuditResult:
    """What one audit found, check by check."""

    implementation: str
    findings: tuple[Finding, ...]
    not_applicable: tuple[NotApplicable, ...]
    session_files: int
    journals: int

    @property
    def clean(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": FINDINGS_SCHEMA,
            "implementation": self.implementation,
            "summary": {"clean": self.clean, "checks": len(CHECKS), "findings": len(self.findings),
                        "rows": sum(finding.count for finding in self.findings),
                        "notApplicable": len(self.not_applicable),
                        "sessionFiles": self.session_files, "journals": self.journals},
            "findings": [finding.to_json() for finding in self.findings],
            "notApplicable": [skipped.to_json() for skipped in self.not_applicable],
        }


def _with_content(sample: dict[str, Any]) -> dict[str, Any]:
    """The sample and, when it places a line of a file, that line's text (at most CONTENT_BYTES)."""
    file = sample.get("session_file")
    for start_key, end_key in _SPANS:
        start, end = sample.get(start_key), sample.get(end_key)
        if isinstance(file, str) and isinstance(start, int) and isinstance(end, int) and 0 <= start <= end:
            try:
                data = read_range(file, start, start + min(end - start, CONTENT_BYTES))
            except OSError:
                return sample
            return {**sample, "content": data.removesuffix(b"\n").decode("utf-8", "replace")}
    return sample


def _not_applicable() -> tuple[NotApplicable, ...]:
    if HAS_PERMISSION_BITS:
        return ()
    return (NotApplicable(CHECKS_BY_ID["AUDIT-017"], "this OS has no owner/group/other permission bits"),)


def run_audit(inputs: AuditInputs, mapping: ProjectionMapping, *, samples: int = DEFAULT_SAMPLES,
              show_content: bool = False, memory_limit: str = DEFAULT_MEMORY_LIMIT,
              progress: Callable[[int], None] | None = None,
              only: Sequence[str] = ()) -> AuditResult:
    """Audit ``inputs`` through ``mapping``; ``only`` limits the checks to those ids.

    Raises the one-line errors of the inputs, the mapping and the index (exit 2 for a command).
    ``progress`` is given the bytes of each block of session file read.
    """
    skipped = _not_applicable()
    skipped_ids = {item.check.id for item in skipped}
    findings: list[Finding] = []
    with offline_connection(memory_limit=memory_limit) as connection, \
            tempfile.TemporaryDirectory(prefix="recall-rebase-audit-facts-") as scratch:
        load_canonical(connection, inputs.session_files, progress=progress)
        counts = load_projection(connection, inputs.index, inputs.journal_dirs, mapping)
        load_facts(connection, inputs, mapping.integrity, Path(scratch))
        seal(connection)
        connection.execute(sql_text("checks_scope"))
        for check in CHECKS:
            if check.id in skipped_ids or (only and check.id not in only):
                continue
            found = run_check(connection, check, samples=samples)
            if found is not None:
                if show_content:
                    found = Finding(found.check, found.count, tuple(_with_content(s) for s in found.samples))
                findings.append(found)
    return AuditResult(mapping.implementation, tuple(findings), skipped, len(inputs.session_files),
                       counts[AuditView.JOURNALS])
