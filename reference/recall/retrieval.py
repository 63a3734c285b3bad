"""The lexical engine of explicit recall (contract §2.6), over the SQLite session index:
``retrieve`` answers every source of one recall, each as if searched alone.

Every scope filter sits in the SQL before the limit (``candidate_rows``).  The authorized set and
the types are checked again in memory, and every kept row must contain a verified match
(``match_text``), because FTS tokenization can return rows that only look like a match.
Ranking, dedup and the match reason follow the TypeScript ``HistoricalRetrievalEngine.retrieve``
(``ranking``); ``docs/retrieval.md`` lists the facts used, the decisions taken where the
upstream order leaves ties, and the known gaps.

The fast path (project scope): the sources that may see their whole session share one FTS
statement instead of one per session.  A per-session FTS query pays for bm25's statistics (the
whole term lists) every time; the shared one pays once.  The exact (substring) queries stay per
session: each stops after its window of newest matches, which a shared statement cannot do
(measured: 5-9x slower at 1 GB).  Each session still gets its own candidate window, FTS order,
recency span, caps and dedup, so its hits are the same; only the SQL is shared.  When the shared
statement fails (not damage), each session is searched alone, so a failure is reported per
session exactly as alone.  The test oracle is each source searched alone with only its
authorized ids (``tests/testkit/retrieval_oracle.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Literal

from reference.primitives.codes import Code
from reference.primitives.sqlite_errors import is_damage
from reference.recall.candidate_rows import (
    IndexRow,
    RetrievalQuery,
    RowScope,
    RowSearch,
    exact_rows,
    filter_clauses,
    fts_match_expression,
    fts_rows,
    fts_rows_by_session,
    scope_filter,
)
from reference.recall.match_text import contains_token, dedup_key, fold_for_match
from reference.recall.query_terms import QueryTerms
from reference.recall.ranking import Candidate, EngineHit, hit_of, literal_priority, order_key, score_of

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


def candidate_window(max_results: int) -> int:
    """Rows fetched per query: ``max(maxResults, min(100, maxResults * 6))`` (72 for 12)."""
    return max(max_results, min(100, max_results * 6))


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

    @property
    def whole(self) -> bool:
        """Every entry of the session authorized and known so: none excluded, no runs to test."""
        return self.excluded_ids is not None and not self.excluded_ids and not self.excluded_runs


def retrieve(conn: sqlite3.Connection, sources: Sequence[SourceEntries],
             query: RetrievalQuery) -> list[RetrievalResult]:
    """Each source's answer, in order: its index rows searched for the query's terms within its
    authorized entries (§2.6), as if it were searched alone.

    ``no-query``: the query gave no terms; ``failed``: an exact query raised (no hits);
    ``disabled``: neither search kind is on, or ``max_results`` is below 1 (as upstream).
    Two or more sources that may see their whole session share one FTS statement.
    """
    if not query.searches:
        return [RetrievalResult(status="disabled") for _ in sources]
    if not query.terms.terms:
        return [RetrievalResult(status="no-query") for _ in sources]
    whole = [source for source in sources if source.whole]
    shared = _whole_sessions(conn, whole, query) if len(whole) > 1 else {}
    return [shared[source.session_id] if source.whole and shared else _alone(conn, source, query)
            for source in sources]


def _alone(conn: sqlite3.Connection, source: SourceEntries, query: RetrievalQuery) -> RetrievalResult:
    """One source searched with its own statements."""
    complement, scope = _scope(source)
    where = scope_filter(scope, query)
    candidates: dict[str, Candidate] = {}
    if query.exact:
        try:
            _exact_candidates(conn, source.session_id, query, where, candidates)
        except sqlite3.Error as error:
            if is_damage(error):
                raise  # the index itself is damaged: the service repairs it (D15)
            return RetrievalResult(status="failed")
    warnings: tuple[str, ...] = ()
    if query.fts:
        try:
            search = _fts_search(query, filter_clauses(scope, query))
            rows = fts_rows(conn, source.session_id, search, source.fts_rowid_ranges)
        except sqlite3.Error as error:
            if is_damage(error):
                raise
            warnings, rows = (Code.RETRIEVAL_DEGRADED,), []
        _add_fts_rows(candidates, rows, query.terms)
    listed = source.excluded_ids if complement else source.authorized_ids
    assert listed is not None
    ids = listed if isinstance(listed, AbstractSet) else set(listed)  # a lazy set stays lazy
    return _result(candidates, query, ids.__contains__ if complement else lambda entry_id: entry_id not in ids,
                   warnings)


def _scope(source: SourceEntries) -> tuple[bool, RowScope]:
    """Name the shorter list: the excluded ids (or their runs) when known and fewer, else the
    authorized ones (or the stored branch they are); and whether the excluded ones are named."""
    authorized_ids, excluded_ids, excluded_runs = source.authorized_ids, source.excluded_ids, source.excluded_runs
    if source.branch_no is not None:  # lazy sets: never counted
        complement = excluded_ids is not None and excluded_runs is not None
    else:
        complement = excluded_ids is not None and (
            excluded_runs is not None or not excluded_ids or len(excluded_ids) < len(authorized_ids)
        )
    if not complement:
        return False, RowScope(authorized_ids, member_of=source.branch_no)
    assert excluded_ids is not None
    if excluded_runs is not None:
        return True, RowScope(negate=True, runs=excluded_runs)
    return True, RowScope(excluded_ids, negate=True)


def _exact_candidates(conn: sqlite3.Connection, session_id: str, query: RetrievalQuery,
                      where: tuple[str, list[Any]], candidates: dict[str, Candidate]) -> None:
    """The exact identifiers, then the phrases; a failing query raises (the source fails)."""
    window = candidate_window(query.max_results)
    for identifier in query.terms.exact_identifiers:
        for row in exact_rows(conn, session_id, RowSearch(identifier, *where, window)):
            candidates.setdefault(row.entry_id, Candidate(row)).exact.append(identifier)
    for phrase in query.terms.phrases:
        for row in exact_rows(conn, session_id, RowSearch(phrase, *where, window)):
            candidates.setdefault(row.entry_id, Candidate(row)).phrases.append(phrase)


def _fts_search(query: RetrievalQuery, where: tuple[str, list[Any]]) -> RowSearch:
    return RowSearch(fts_match_expression(query.terms.terms), *where, candidate_window(query.max_results))


def _add_fts_rows(candidates: dict[str, Candidate], rows: Sequence[IndexRow], terms: QueryTerms) -> None:
    """One session's FTS rows in their order, each with the terms it verifiably holds."""
    folded_terms = [(term, fold_for_match(term)) for term in terms.terms]
    for order, row in enumerate(rows):
        candidate = candidates.setdefault(row.entry_id, Candidate(row))
        folded = fold_for_match(row.searchable_text)
        candidate.fts_terms = [term for term, needle in folded_terms if contains_token(folded, needle)]
        candidate.fts_order = order


def _whole_sessions(conn: sqlite3.Connection, sources: Sequence[SourceEntries],
                    query: RetrievalQuery) -> dict[str, RetrievalResult]:
    """The answer of each whole session by its id (two sources of one id: one answer), from one
    shared FTS statement; empty when that statement fails without damage (each is then alone)."""
    sessions = list({source.session_id: source for source in sources}.values())
    candidates: dict[str, dict[str, Candidate]] = {source.session_id: {} for source in sessions}
    whole = RowScope(negate=True)
    try:
        if query.exact:  # per session: each stops at its window of newest matches (one statement would not)
            where = scope_filter(whole, query)
            for session_id, found in candidates.items():
                _exact_candidates(conn, session_id, query, where, found)
        searched = [source for source in sessions if source.fts_rowid_ranges != ()]  # () : no FTS row at all
        if query.fts and searched:
            search = _fts_search(query, filter_clauses(whole, query))
            rows = fts_rows_by_session(conn, [source.session_id for source in searched], search, _hull(searched))
            by_session: dict[str, list[IndexRow]] = {}
            for session_id, row in rows:
                by_session.setdefault(session_id, []).append(row)
            for session_id, found_rows in by_session.items():
                _add_fts_rows(candidates[session_id], found_rows, query.terms)
    except sqlite3.Error as error:
        if is_damage(error):
            raise  # the index itself is damaged: the service repairs it (D15)
        return {}
    return {session_id: _result(found, query, lambda _entry_id: False, ())
            for session_id, found in candidates.items()}


def _hull(sources: Sequence[SourceEntries]) -> tuple[int, int] | None:
    """One rowid range around every session's ranges; None when one session's are unknown."""
    ranges = [source.fts_rowid_ranges for source in sources]
    if any(known is None for known in ranges):
        return None
    bounds = [bound for known in ranges if known for bound in known]
    return (min(low for low, _high in bounds), max(high for _low, high in bounds))


def _result(candidates: dict[str, Candidate], query: RetrievalQuery, outside: Callable[[str], bool],
            warnings: tuple[str, ...]) -> RetrievalResult:
    """The answer from one source's candidates: the eligible ones ranked, capped and deduped."""
    eligible, alternate = _eligible(candidates, query.types, outside)
    hits, duplicates = _select(eligible, query.terms, query.max_results)
    return RetrievalResult(status="ok", hits=tuple(hits), warnings=warnings, alternate_branch_candidates=alternate,
                           duplicate_candidates=duplicates, candidate_count=len(candidates))


def _eligible(candidates: dict[str, Candidate], types: tuple[str, ...],
              outside: Callable[[str], bool]) -> tuple[list[Candidate], int]:
    """The candidates in scope (not ``outside`` it) with a verified match, and how many fell outside."""
    eligible: list[Candidate] = []
    alternate = 0
    for candidate in candidates.values():
        row = candidate.row
        if row.entry_type not in types or not row.searchable_text:
            continue
        if outside(row.entry_id):
            alternate += 1
            continue
        if candidate.exact or candidate.phrases or candidate.fts_terms:
            eligible.append(candidate)
    return eligible, alternate
def _select(eligible: list[Candidate], terms: QueryTerms, max_results: int) -> tuple[list[EngineHit], int]:
    """The best ``max_results`` in engine order, one per dedup key; and how many were dropped as
    duplicates.  Every candidate is scored, only the kept ones are made hits; the oracle is
    ``tests/testkit/retrieval_oracle.select_plain`` (every candidate made a hit by ``ranking.rank``,
    sorted by ``ranking.engine_order``)."""
    times = [candidate.row.created_at for candidate in eligible if candidate.row.created_at is not None]
    span = (min(times), max(times)) if times else (0, 0)
    scored = [(score_of(candidate, span, terms), candidate) for candidate in eligible]
    scored.sort(key=lambda pair: order_key(literal_priority(pair[1]), pair[0], pair[1].row.created_at,
                                           pair[1].row.entry_id))  # engine_order, before any hit is made
    hits: list[EngineHit] = []
    seen: set[str] = set()
    duplicates = 0
    for score, candidate in scored:
        if len(hits) >= max_results:
            break
        key = dedup_key(candidate.row.searchable_text)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        hits.append(hit_of(candidate, score))
    return hits, duplicates
