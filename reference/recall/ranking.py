"""How the recall engine ranks one source's candidates (contract §2.6, decisions D5).

The diagnostic score, the literal priority and the engine order follow the TypeScript
``HistoricalRetrievalEngine.retrieve``; ``docs/retrieval.md`` lists the facts used and the
decisions taken where the upstream order leaves ties.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Final, Literal

from reference.recall.candidate_rows import IndexRow
from reference.recall.query_terms import QueryTerms

MatchReason = Literal["exact-identifier", "exact-phrase", "lexical-match"]
_ROW_FIELDS: Final = tuple(item.name for item in fields(IndexRow))
_ROLE_BONUS: Final = {"user": 8, "assistant": 5, "toolResult": 4, "bashExecution": 4}  # any other: 1


@dataclass(frozen=True)
class EngineHit(IndexRow):
    """One selected index row, with its diagnostic score and its single match reason."""

    score: float
    match_reason: MatchReason
    literal_priority: int


@dataclass
class Candidate:
    """One entry's row and what matched it: exact identifiers, phrases, FTS terms and order."""

    row: IndexRow
    exact: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    fts_terms: list[str] = field(default_factory=list)
    fts_order: int | None = None


def rank(candidate: Candidate, span: tuple[int, int], terms: QueryTerms) -> EngineHit:
    """The candidate as a hit: its single match reason, literal priority and diagnostic score.

    ``span`` is the oldest and newest ``created_at`` among the eligible candidates (recency).
    """
    return hit_of(candidate, score_of(candidate, span, terms))


def score_of(candidate: Candidate, span: tuple[int, int], terms: QueryTerms) -> float:
    """The candidate's diagnostic score, summed in the upstream order so the floats agree bit for
    bit (``rank`` without making the hit: a source ranks every candidate and keeps twelve)."""
    row = candidate.row
    oldest, newest = span
    score = 0.0
    if candidate.exact:
        score += 100 + min(12, (len(candidate.exact) - 1) * 3)
    if candidate.phrases:
        score += 85 + min(8, (len(candidate.phrases) - 1) * 2)
    if candidate.fts_terms:
        order = 10 if candidate.fts_order is None else candidate.fts_order
        score += 60 + max(0, 10 - order)
        score += min(2, len(candidate.fts_terms) - 1) * 40
    text = row.searchable_text
    score += sum(1 for term in terms.files if term in text) * 12
    score += sum(1 for term in terms.symbols if term in text) * 10
    score += sum(1 for term in terms.errors if term in text) * 12
    score += 15
    score += _ROLE_BONUS.get(row.role or "", 1)
    if row.created_at is not None and newest > oldest:
        score += ((row.created_at - oldest) / (newest - oldest)) * 8
    score -= min(12, max(0, row.token_estimate) / 1000)
    return _round6(score)


def literal_priority(candidate: Candidate) -> int:
    """2 for an exact identifier, 1 for a phrase, else 0."""
    return 2 if candidate.exact else 1 if candidate.phrases else 0


def hit_of(candidate: Candidate, score: float) -> EngineHit:
    """The hit of a candidate with its ``score_of``."""
    row = candidate.row
    reason: MatchReason = (
        "exact-identifier" if candidate.exact else "exact-phrase" if candidate.phrases else "lexical-match"
    )
    return EngineHit(**{name: getattr(row, name) for name in _ROW_FIELDS}, score=score,
                     match_reason=reason, literal_priority=literal_priority(candidate))


def engine_order(hit: EngineHit) -> tuple[int, float, int, str]:
    """Literal priority, score, ``createdAt`` (missing = 0) descending; entry id ascending.

    Upstream breaks the last tie with ``localeCompare``; D5 fixes code point (UTF-8 byte) order.
    """
    return order_key(hit.literal_priority, hit.score, hit.created_at, hit.entry_id)


def order_key(priority: int, score: float, created_at: int | None, entry_id: str) -> tuple[int, float, int, str]:
    """``engine_order`` of a hit from its parts (a candidate is ordered before it is made a hit)."""
    return (-priority, -score, -(created_at or 0), entry_id)


def _round6(value: float) -> float:
    """``Math.round(value * 1e6) / 1e6``: halves round up (Python's ``round`` rounds to even)."""
    scaled = value * 1_000_000
    whole = math.floor(scaled)
    if scaled - whole >= 0.5:
        whole += 1
    return whole / 1_000_000
