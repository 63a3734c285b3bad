"""What ``recall-rebase audit`` prints: a line a check for people, the JSON document for scripts.

Samples come from files a user's sessions wrote, so every value is escaped for the terminal
(:func:`conformance.untrusted_text.for_terminal`); the JSON document is valid against
``schemas/audit/findings.schema.json`` and written owner-only with ``--report``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from conformance.audit.checks import CHECKS, CHECKS_BY_ID
from conformance.audit.engine import FINDINGS_SCHEMA, AuditResult
from conformance.audit.inputs import AUDIT_INPUT, AuditInputs
from conformance.commandline import OneLineError
from conformance.outputs import write_owner_only
from conformance.untrusted_text import for_terminal

#: A sample's value is cut here in the text output (the JSON document keeps it whole).
VALUE_CHARS: Final = 120


class UnknownCheck(OneLineError):
    code = AUDIT_INPUT


def selected_checks(ids: Iterable[str]) -> tuple[str, ...]:
    """The ``--check`` ids, each one of the catalogue's."""
    chosen = tuple(dict.fromkeys(item.upper() for item in ids))
    unknown = [item for item in chosen if item not in CHECKS_BY_ID]
    if unknown:
        raise UnknownCheck(f"no check {unknown[0]} (there are {CHECKS[0].id} to {CHECKS[-1].id})")
    return chosen


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = for_terminal(text)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS] + "…"


def render_text(result: AuditResult, inputs: AuditInputs) -> str:
    """One line per check (``ok``, the count found, or why it could not judge), samples under a
    finding, then the verdict."""
    found = {finding.check.id: finding for finding in result.findings}
    skipped = {item.check.id: item.reason for item in result.not_applicable}
    lines = [f"audit of {_count(len(inputs.session_files), 'session file')}, {_count(result.journals, 'journal')} and "
             f"{for_terminal(str(inputs.index))} (mapping: {for_terminal(result.implementation)})"]
    for check in CHECKS:
        if check.id in found:
            finding = found[check.id]
            lines.append(f"{check.id}  {finding.count:>6}  {check.severity.value:<7}  {check.title}")
            lines += ["    " + "  ".join(f"{key}={_value(value)}" for key, value in sample.items())
                      for sample in finding.samples]
            if finding.count > len(finding.samples):
                lines.append(f"    ... {finding.count - len(finding.samples)} more (--samples N shows more)")
        elif check.id in skipped:
            lines.append(f"{check.id}  {'n/a':>6}  {'':<7}  {check.title}: {skipped[check.id]}")
        else:
            lines.append(f"{check.id}  {'ok':>6}  {'':<7}  {check.title}")
    rows = sum(finding.count for finding in result.findings)
    verdict = "clean" if result.clean else \
        f"{_count(len(result.findings), 'check')} with findings ({_count(rows, 'row')})"
    lines.append(f"{len(CHECKS)} checks: {verdict}")
    return "\n".join(lines) + "\n"


def is_audit_report(head: bytes) -> bool:
    """Whether a file beginning with ``head`` is an audit report :func:`write_report` wrote."""
    return head.startswith(b'{\n  "schema": "' + FINDINGS_SCHEMA.encode() + b'"')


def write_report(path: Path, document: dict[str, Any]) -> None:
    write_owner_only(path, json.dumps(document, ensure_ascii=False, default=str, indent=2) + "\n")
