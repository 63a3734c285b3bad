"""The result envelope ``ds4-history-result-v1`` shared by recall, read and status (§2.9), as
typed values: the tools build them, and they become JSON (:meth:`as_json`) only where the CLI
prints and the adapter answers.

Fields are written in the contract's order; ``role`` and ``timestamp`` are omitted when unknown;
an unavailable result carries exactly one code and no content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference.primitives.codes import Code
from reference.primitives.jsonbytes import js_stringify
from reference.primitives.textunits import utf16_length
from reference.recall.refs import SourceRef

SCHEMA: Final = "ds4-history-result-v1"
RESERVE_TOKENS: Final = 96
MAX_WARNINGS: Final = 12

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Unavailable:
    """A content-free answer with its one code: the tools fail open for the conversation."""

    code: str

    def as_json(self) -> JsonObject:
        return {"schema": SCHEMA, "quotedData": True, "status": "unavailable", "coverage": "unknown",
                "warnings": [self.code]}


@dataclass(frozen=True)
class RecallHit:
    """One result hit before it is JSON: its drafted reference (kept only if the hit is
    returned), the classification for the current provider, the excerpt, and the engine's
    reason and score."""

    ref: SourceRef
    classification: str
    excerpt: str
    truncated: bool
    match_reason: str
    score: float

    @property
    def entry_key(self) -> str:
        """One hit per entry (D5): the public session and entry ids."""
        return f"{self.ref.public_session_id}:{self.ref.public_entry_id}"

    def order(self) -> tuple[float, int, bytes, bytes]:
        """D5: score, then newer first, then (sessionId, entryId) by byte order."""
        ref = self.ref
        return (-self.score, -(ref.timestamp or 0), ref.public_session_id.encode("utf-8"),
                ref.public_entry_id.encode("utf-8"))

    def as_json(self) -> JsonObject:
        """The hit's fields in the contract's order (§2.9)."""
        item = source_fields(self.ref, self.classification)
        item["excerpt"] = self.excerpt
        item["matchReasons"] = [self.match_reason]
        item["score"] = self.score
        item["truncated"] = self.truncated
        return item


@dataclass(frozen=True)
class RecallResult:
    """``context_history_recall``'s answer: the hits returned, in D5 order, and the warnings
    (at most 12); partial when any warning but ``no-query-terms`` is among them."""

    scope: str
    warnings: tuple[str, ...]
    hits: tuple[RecallHit, ...]

    @property
    def partial(self) -> bool:
        return any(code != Code.NO_QUERY_TERMS for code in self.warnings)

    def as_json(self) -> JsonObject:
        state = "partial" if self.partial else "complete"
        return {"schema": SCHEMA, "quotedData": True, "status": state, "coverage": state,
                "effectiveScope": self.scope, "warnings": list(self.warnings),
                "hits": [hit.as_json() for hit in self.hits]}


@dataclass(frozen=True)
class ReadResult:
    """``context_history_read``'s answer: the window of the entry's text from ``start_line``;
    ``next_line`` when more lines follow (then partial, with ``more-lines``)."""

    source: SourceRef
    classification: str
    text: str
    start_line: int
    next_line: int | None

    def as_json(self) -> JsonObject:
        """In the TypeScript key order: ``nextLine`` was added after ``truncated`` (D1; READ-016)."""
        more = self.next_line is not None
        result: JsonObject = {
            "schema": SCHEMA, "quotedData": True, "status": "partial" if more else "complete",
            "coverage": "complete", "warnings": [Code.MORE_LINES] if more else [],
            "source": source_fields(self.source, self.classification), "text": self.text,
            "startLine": self.start_line, "truncated": more,
        }
        if more:
            result["nextLine"] = self.next_line
        return result


@dataclass(frozen=True)
class StatusResult:
    """``context_history_status``'s answer: the entries indexed of the current session, None
    while the index does not hold it (partial, ``index-not-yet-synchronized``)."""

    scope: str
    indexed_entries: int | None

    def as_json(self) -> JsonObject:
        if self.indexed_entries is None:
            return {"schema": SCHEMA, "quotedData": True, "status": "partial", "coverage": "unknown",
                    "warnings": [Code.INDEX_NOT_YET_SYNCHRONIZED], "effectiveScope": self.scope, "indexedEntries": 0}
        return {"schema": SCHEMA, "quotedData": True, "status": "complete", "coverage": "complete", "warnings": [],
                "effectiveScope": self.scope, "indexedEntries": self.indexed_entries}


#: What one tool call answers.
HistoryResult = RecallResult | ReadResult | StatusResult | Unavailable


def cost(envelope: JsonObject) -> int:
    """``chars-v1`` tokens of the serialized envelope plus the 96-token reserve."""
    return cost_of(units(envelope))


def units(value: JsonObject) -> int:
    """The UTF-16 units of the value serialized (``JSON.stringify``)."""
    return utf16_length(js_stringify(value))


def cost_of(count: int) -> int:
    """:func:`cost` of an envelope serialized in ``count`` UTF-16 units (``chars-v1``: a quarter, up)."""
    return -(-count // 4) + RESERVE_TOKENS


def source_fields(ref: SourceRef, classification: str) -> JsonObject:
    """The leading hit fields of a reference, also the ``source`` of a read."""
    fields: JsonObject = {
        "sourceRef": ref.ref,
        "projectId": ref.public_project_id,
        "sessionId": ref.public_session_id,
        "entryId": ref.public_entry_id,
        "kind": ref.kind,
    }
    if ref.role is not None:
        fields["role"] = ref.role
    if ref.timestamp is not None:
        fields["timestamp"] = ref.timestamp
    fields["relation"] = ref.relation
    fields["classification"] = classification
    return fields
