"""The per-source lexical engine of explicit recall (contract §2.6), over the SQLite session index.

Every scope filter sits in the SQL before the limit (``candidate_rows``).  The authorized set and
the types are checked again in memory, and every kept row must contain a verified match
(``match_text``), because FTS tokenization can return rows that only look like a match.
Ranking, dedup and the match reason follow the TypeScript ``HistoricalRetrievalEngine.retrieve``
(``ranking``); ``docs/retrieval.md`` lists the facts used, the decisions taken where the
upstream order leaves ties, and the known gaps.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Final, Literal

from reference.primitives.codes import Code
from reference.primitives.sqlite_errors import is_damage
from reference.recall.candidate_rows import (
    exact_rows,
    filter_clauses,
    fts_match_expression,
    fts_rows,
    run_params,
    runs_clause,
    scope_filter,
)
from reference.recall.match_text import contains_token, dedup_key, fold_for_match
from reference.recall.query_terms import QueryTerms
from reference.recall.ranking import Candidate, EngineHit, engine_order, merge, rank, to_hit

MAX_RESULTS: Final = 12
MESSAGE_TYPES: Final = ("message", "custom_message")
SUMMARY_TYPES: Final = ("compaction", "branch_summary")

Status = Literal["ok", "no-query", "failed", "disabled"]


@dataclass(frozen=True)
class RetrievalResult:
    """The engine's answer for one source; ``warnings`` holds contract codes only."""

    status: Status
    hits: tuple[EngineHit, ...] = ()
    warnings: tuple[str, ...] = ()
    alternate_branch_candidates: int = 0
    duplicate_candidates: int = 0
    candidate_count: int = 0


@dataclass(frozen=True)
class _ScopePlan:
    """How the queries name the scope: the authorized ids, or (``complement``) the excluded ids
    or their FTS rowid ``runs``; the ``AND`` clauses of the exact queries on ``e``."""

    complement: bool
    ids: Collection[str]
    runs: Sequence[tuple[int, int]] | None
    types: tuple[str, ...]
    roles: Sequence[str] | None
    before_ms: int | None
    after_ms: int | None
    scope_sql: str
    scope_params: list[Any]
    branch_no: int | None = None  # the authorized ids are this stored branch's entries


def candidate_window(max_results: int) -> int:
    """Rows fetched per query: ``max(maxResults, min(100, maxResults * 6))`` (72 for 12)."""
    return max(max_results, min(100, max_results * 6))


@dataclass(frozen=True)
class RetrievalQuery:
    """What one recall searches each source for (contract §2.6): the query's terms, the request's
    filters, which search kinds the configuration turns on, and how many hits a source gives."""

    terms: QueryTerms
    include_summaries: bool = False
    roles: Sequence[str] | None = None
    before_ms: int | None = None
    after_ms: int | None = None
    exact: bool = True
    fts: bool = True
    max_results: int = MAX_RESULTS

    @property
    def types(self) -> tuple[str, ...]:
        """The entry types searched: messages, and summaries when asked for."""
        return MESSAGE_TYPES + SUMMARY_TYPES if self.include_summaries else MESSAGE_TYPES

    @property
    def searches(self) -> bool:
        """Whether any search runs: a kind is on and a hit may be given (else ``disabled``)."""
        return (self.exact or self.fts) and self.max_results > 0


@dataclass(frozen=True)
class SourceEntries:
    """Which entries of one session a source may see (``authorized_ids``), and facts that only
    make the same answer cheaper.

    ``excluded_ids``: the session's entries that are *not* authorized, when the caller read them
    in the snapshot the queries read (authorized and excluded together are every entry of the
    session); the SQL filter then names the shorter list (``NOT IN`` the excluded ones; nothing at
    all when none is excluded).  ``fts_rowid_ranges``: inclusive FTS rowid ranges holding every FTS
    row of the session; the FTS query then reads only those parts of the term lists.
    ``excluded_runs``: with ``excluded_ids``, inclusive FTS rowid ranges that together hold the FTS
    row of every excluded entry and of no other entry of the session (rows of other sessions may
    fall inside); the SQL then tests these few ranges instead of the list of ids.  ``branch_no``: a
    stored branch whose entries are exactly ``authorized_ids`` (lazy sets read in the same
    snapshot, ``branch_store``); without runs, the SQL joins its rows instead of a list.
    """

    session_id: str
    authorized_ids: Collection[str]
    excluded_ids: Collection[str] | None = None
    fts_rowid_ranges: Sequence[tuple[int, int]] | None = None
    excluded_runs: Sequence[tuple[int, int]] | None = None
    branch_no: int | None = None


def retrieve(conn: sqlite3.Connection, source: SourceEntries, query: RetrievalQuery) -> RetrievalResult:
    """Search one source's index rows for the query's terms within its authorized entries (§2.6).

    ``no-query``: the query gave no terms; ``failed``: an exact query raised (no hits);
    ``disabled``: neither search kind is on, or ``max_results`` is below 1 (as upstream).
    """
    terms, max_results, session_id = query.terms, query.max_results, source.session_id
    if not query.searches:
        return RetrievalResult(status="disabled")
    if not terms.terms:
        return RetrievalResult(status="no-query")
    plan = _scope_plan(source, query)
    window = candidate_window(max_results)
    candidates: dict[str, Candidate] = {}
    warnings: list[str] = []
    if query.exact:
        try:
            _exact_candidates(conn, session_id, terms, plan, window, candidates)
        except sqlite3.Error as error:
            if is_damage(error):
                raise  # the index itself is damaged: the service repairs it (D15)
            return RetrievalResult(status="failed")
    if query.fts:
        _fts_candidates(conn, session_id, terms, plan, window, source.fts_rowid_ranges, candidates, warnings)
    excluded = _as_set(source.excluded_ids) if plan.complement else _as_set(source.authorized_ids)
    eligible, alternate = _eligible(candidates, plan, excluded)
    hits, duplicates = _select(eligible, terms, max_results)
    return RetrievalResult(
        status="ok",
        hits=tuple(hits),
        warnings=tuple(warnings),
        alternate_branch_candidates=alternate,
        duplicate_candidates=duplicates,
        candidate_count=len(candidates),
    )


def _scope_plan(source: SourceEntries, query: RetrievalQuery) -> _ScopePlan:
    """Name the shorter list: the excluded ids (or their runs) when known and fewer, else the
    authorized ones (or the stored branch they are)."""
    authorized_ids, excluded_ids, excluded_runs = source.authorized_ids, source.excluded_ids, source.excluded_runs
    branch_no, types, roles = source.branch_no, query.types, query.roles
    before_ms, after_ms = query.before_ms, query.after_ms
    if branch_no is not None:  # lazy sets: never counted
        complement = excluded_ids is not None and excluded_runs is not None
    else:
        complement = excluded_ids is not None and (
            excluded_runs is not None or not excluded_ids or len(excluded_ids) < len(authorized_ids)
        )
    runs = excluded_runs if complement else None
    ids: Collection[str]
    if branch_no is not None and not complement:
        scope_sql, scope_params = scope_filter((), types, roles, before_ms, after_ms, member_of=branch_no)
        return _ScopePlan(False, authorized_ids, None, types, roles, before_ms, after_ms, scope_sql, scope_params,
                          branch_no)
    if runs is not None:
        scope_sql, scope_params = scope_filter((), types, roles, before_ms, after_ms, negate=True)
        scope_sql, scope_params = scope_sql + runs_clause(runs), scope_params + run_params(runs)
        ids = ()
    elif complement:
        assert excluded_ids is not None
        scope_sql, scope_params = scope_filter(excluded_ids, types, roles, before_ms, after_ms, negate=True)
        ids = excluded_ids
    else:
        scope_sql, scope_params = scope_filter(authorized_ids, types, roles, before_ms, after_ms)
        ids = authorized_ids
    return _ScopePlan(complement, ids, runs, types, roles, before_ms, after_ms, scope_sql, scope_params)


def _exact_candidates(conn: sqlite3.Connection, session_id: str, terms: QueryTerms, plan: _ScopePlan,
                      window: int, candidates: dict[str, Candidate]) -> None:
    """The exact identifiers, then the phrases; a failing query raises (the source fails)."""
    for identifier in terms.exact_identifiers:
        for row in exact_rows(conn, session_id, identifier, plan.scope_sql, plan.scope_params, window):
            merge(candidates, row).exact.append(identifier)
    for phrase in terms.phrases:
        for row in exact_rows(conn, session_id, phrase, plan.scope_sql, plan.scope_params, window):
            merge(candidates, row).phrases.append(phrase)


def _fts_candidates(conn: sqlite3.Connection, session_id: str, terms: QueryTerms, plan: _ScopePlan, window: int,
                    ranges: Sequence[tuple[int, int]] | None, candidates: dict[str, Candidate],
                    warnings: list[str]) -> None:
    """The FTS rows, each with the terms it verifiably holds; a failing query degrades."""
    try:
        filter_sql, filter_params = filter_clauses(
            plan.ids, plan.types, plan.roles, plan.before_ms, plan.after_ms, negate=plan.complement, runs=plan.runs,
            member_of=plan.branch_no,
        )
        rows = fts_rows(
            conn, session_id, fts_match_expression(terms.terms), filter_sql, filter_params, window, ranges,
        )
    except sqlite3.Error as error:
        if is_damage(error):
            raise
        warnings.append(Code.RETRIEVAL_DEGRADED)
        rows = []
    folded_terms = [(term, fold_for_match(term)) for term in terms.terms]
    for order, row in enumerate(rows):
        candidate = merge(candidates, row)
        folded = fold_for_match(row.searchable_text)
        candidate.fts_terms = [term for term, needle in folded_terms if contains_token(folded, needle)]
        candidate.fts_order = order


def _as_set(ids: Collection[str] | None) -> Collection[str]:
    assert ids is not None
    return ids if isinstance(ids, AbstractSet) else set(ids)  # a lazy set stays lazy


def _eligible(candidates: dict[str, Candidate], plan: _ScopePlan,
              listed: Collection[str]) -> tuple[list[Candidate], int]:
    """The candidates in scope with a verified match, and how many fell outside the scope.
    ``listed`` holds the excluded ids (``plan.complement``) or the authorized ones."""
    eligible: list[Candidate] = []
    alternate = 0
    for candidate in candidates.values():
        row = candidate.row
        if row.entry_type not in plan.types or not row.searchable_text:
            continue
        if (row.entry_id in listed) if plan.complement else (row.entry_id not in listed):
            alternate += 1
            continue
        if candidate.exact or candidate.phrases or candidate.fts_terms:
            eligible.append(candidate)
    return eligible, alternate


def _select(eligible: list[Candidate], terms: QueryTerms, max_results: int) -> tuple[list[EngineHit], int]:
    """The best ``max_results`` in engine order, one per dedup key; and how many were dropped as
    duplicates."""
    times = [candidate.row.created_at for candidate in eligible if candidate.row.created_at is not None]
    span = (min(times), max(times)) if times else (0, 0)
    ranked = sorted((rank(candidate, span, terms) for candidate in eligible), key=engine_order)
    hits: list[EngineHit] = []
    seen: set[str] = set()
    duplicates = 0
    for item in ranked:
        if len(hits) >= max_results:
            break
        key = dedup_key(item.candidate.row.searchable_text)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        hits.append(to_hit(item))
    return hits, duplicates


def whole_session_plan(query: RetrievalQuery) -> _ScopePlan:
    """The plan of a source that may see every entry of its session (none excluded)."""
    return _scope_plan(SourceEntries("", (), frozenset(), None, ()), query)


def whole_session_result(candidates: dict[str, Candidate], plan: _ScopePlan, terms: QueryTerms,
                         max_results: int) -> RetrievalResult:
    """``retrieve``'s answer from one whole session's candidates (``whole_sessions``)."""
    eligible, alternate = _eligible(candidates, plan, frozenset())
    hits, duplicates = _select(eligible, terms, max_results)
    return RetrievalResult(status="ok", hits=tuple(hits), alternate_branch_candidates=alternate,
                           duplicate_candidates=duplicates, candidate_count=len(candidates))
