"""One engine hit made into a recall hit (contract §2.7): the source verified against the file,
the whole entry classified and sanitized for the current provider before an excerpt is cut
(D3), then a reference drafted for a later read."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.paths import canonical_path
from reference.primitives.textunits import slice_utf16, utf16_length
from reference.privacy.entry import EntryFindings, classify_entry
from reference.privacy.policy import ProviderPolicy
from reference.privacy.public_ids import project_id, public_id
from reference.recall.envelope import RecallHit
from reference.recall.host_facts import HistoryHost
from reference.recall.ranking import EngineHit
from reference.recall.refs import RefTable, SourceRef
from reference.recall.scope import Source
from reference.recall.searchable import searchable_text
from reference.recall.source_verify import SourceFiles, entry_locator, verify_source

EXCERPT_UNITS: Final = 1800
EXCERPT_LEAD: Final = 600
ELLIPSIS: Final = "\u2026"


@dataclass(frozen=True)
class HitContext:
    """What every hit of one recall shares: where refs go, the host, the scope and query terms,
    and the provider policy privacy is judged for."""

    refs: RefTable
    host: HistoryHost
    scope: str
    terms: tuple[str, ...]
    policy: ProviderPolicy
    privacy_config: Mapping[str, Any]
    files: SourceFiles | None = None  # the recall's descriptors of the session files
    findings: EntryFindings | None = None  # the service's remembered privacy findings
    #: Computed once per recall, not once per hit: canonical paths, the project's and each session's public id.
    _known: dict[tuple[str, str], str] = field(default_factory=dict, compare=False, repr=False)

    def _once(self, kind: str, value: str, compute: Callable[[str], str]) -> str:
        key = (kind, value)
        if key not in self._known:
            self._known[key] = compute(value)
        return self._known[key]

    def canonical(self, path: str) -> str:
        """``canonical_path``, once per path and recall (every hit of a source names the same
        header cwd and project path)."""
        return self._once("path", path, canonical_path)

    def public_project_id(self) -> str:
        return self._once("project", self.host.project_path, lambda path: project_id(self.canonical(path)))

    def public_session_id(self, session_id: str) -> str:
        return self._once("session", session_id,
                          lambda value: public_id(value, policy=self.policy, findings=self.findings))


def process_hit(conn: sqlite3.Connection, source: Source, hit: EngineHit, context: HitContext,
                warnings: list[str]) -> RecallHit | None:
    """The hit with its drafted ref, or None with the warning that dropped it."""
    entry = _verified_entry(conn, source, hit, context, warnings)
    if entry is None:
        return None
    text = searchable_text(entry)
    private = classify_entry(entry, text, policy=context.policy, privacy_config=context.privacy_config,
                             content_hash=hit.content_hash, findings=context.findings)
    if private.omitted:
        warnings.append(Code.PRIVACY_OMITTED)
        return None
    excerpt, truncated = excerpt_around(private.text, context.terms)
    ref = _draft(context, source, hit, private.classification)
    return RecallHit(ref, private.classification, excerpt, truncated, hit.match_reason, hit.score)


def _verified_entry(conn: sqlite3.Connection, source: Source, hit: EngineHit, context: HitContext,
                    warnings: list[str]) -> dict[str, Any] | None:
    """The entry parsed from bytes that still hash to what the index recorded (§3.5)."""
    locator = entry_locator(conn, hit.entry_key)
    if locator is None:
        warnings.append(Code.INDEX_SOURCE_MISSING)
        return None
    try:
        return verify_source(
            session_file=source.session_file,
            session_id=source.session_id,
            project_path=context.host.project_path,
            entry_id=hit.entry_id,
            content_hash=hit.content_hash,
            start=locator[0],
            end=locator[1],
            canonical=context.canonical,
            files=context.files,
        )
    except ContractViolation:
        warnings.append(Code.SOURCE_UNAVAILABLE_OR_CHANGED)
        return None


def _draft(context: HitContext, source: Source, hit: EngineHit, classification: str) -> SourceRef:
    """A reference to the hit; ``other-branch`` for a current-session entry off the branch."""
    host = context.host
    relation = source.relation
    if source.branch is not None and hit.entry_id not in source.branch:
        relation = "other-branch"
    return context.refs.draft(
        session_id=source.session_id,
        session_file=source.session_file,
        project_path=host.project_path,
        entry_id=hit.entry_id,
        content_hash=hit.content_hash,
        issuing_session_id=host.session_id,
        scope=context.scope,
        kind=hit.entry_type,
        role=hit.role if isinstance(hit.role, str) else None,
        timestamp=hit.created_at if isinstance(hit.created_at, int) else None,
        relation=relation,
        classification=classification,
        public_project_id=context.public_project_id(),
        public_session_id=context.public_session_id(source.session_id),
        public_entry_id=public_id(hit.entry_id, policy=context.policy, findings=context.findings),
    )


def excerpt_around(text: str, terms: tuple[str, ...]) -> tuple[str, bool]:
    """Up to 1800 UTF-16 units around the earliest query term, never splitting a pair (D3)."""
    length = utf16_length(text)
    if length <= EXCERPT_UNITS:
        return text, False
    lowered = text.lower()
    positions = [lowered.find(term.lower()) for term in terms]
    found = [p for p in positions if p >= 0]
    position = utf16_length(text[: min(found)]) if found else 0
    start = max(0, min(length - EXCERPT_UNITS, position - EXCERPT_LEAD))
    head = slice_utf16(text, start)
    if utf16_length(head) < start and len(head) < len(text):
        head = text[: len(head) + 1]  # do not start inside a pair: step past it
    body = slice_utf16(text[len(head):], EXCERPT_UNITS)
    end_index = len(head) + len(body)
    excerpt = (ELLIPSIS if head else "") + body + (ELLIPSIS if end_index < len(text) else "")
    return excerpt, True
