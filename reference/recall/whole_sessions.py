"""Recall over many whole sessions at once (project scope): for each session the answer
``retrieval.retrieve`` gives it alone, from one FTS statement for all of them instead of one per
session.

A per-session FTS query pays for bm25's statistics (the whole term lists) every time; here they
are paid once.  The exact (substring) queries stay per session: each stops after its window of
newest matches, which a shared statement cannot do (measured: 5-9x slower at 1 GB).  Each
session still gets its own candidate window, FTS order, recency span, caps and dedup
(``retrieval``), so its hits are the same; only the SQL is shared.  When a shared statement
fails (not damage), the per-session queries run instead, so a failure is reported per session
exactly as they report it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from reference.primitives.sqlite_errors import is_damage
from reference.recall.candidate_rows import (
    IndexRow,
    exact_rows,
    filter_clauses,
    fts_match_expression,
    fts_rows_by_session,
)
from reference.recall.match_text import contains_token, fold_for_match
from reference.recall.query_terms import QueryTerms
from reference.recall.ranking import Candidate, merge
from reference.recall.retrieval import (
    RetrievalQuery,
    RetrievalResult,
    SourceEntries,
    candidate_window,
    retrieve,
    whole_session_plan,
    whole_session_result,
)


@dataclass(frozen=True)
class WholeSession:
    """One source that may see every entry of its session; ``fts_ranges`` as in ``retrieve``."""

    session_id: str
    fts_ranges: tuple[tuple[int, int], ...] | None = None


def retrieve_whole_sessions(conn: sqlite3.Connection, sessions: Sequence[WholeSession],
                            query: RetrievalQuery) -> list[RetrievalResult]:
    """``retrieve`` of each session with every entry authorized (and none excluded), in order.

    A session named twice (two files with one id) gets the same answer twice, as it would alone.
    """
    unique = list({session.session_id: session for session in sessions}.values())
    try:
        answers = _shared(conn, unique, query)
    except sqlite3.Error as error:
        if is_damage(error):
            raise  # the index itself is damaged: the service repairs it (D15)
    else:
        by_id = {session.session_id: answer for session, answer in zip(unique, answers, strict=True)}
        return [by_id[session.session_id] for session in sessions]
    return [retrieve(conn, SourceEntries(session.session_id, (), frozenset(), session.fts_ranges, ()), query)
            for session in sessions]


def _shared(conn: sqlite3.Connection, sessions: Sequence[WholeSession], query: RetrievalQuery) -> list[RetrievalResult]:
    """The shared statements; a failing one raises (the caller then asks each session alone)."""
    terms = query.terms
    if not query.searches:
        return [RetrievalResult(status="disabled") for _ in sessions]
    if not terms.terms:
        return [RetrievalResult(status="no-query") for _ in sessions]
    plan = whole_session_plan(query)
    window = candidate_window(query.max_results)
    ids = [session.session_id for session in sessions]
    candidates: dict[str, dict[str, Candidate]] = {session_id: {} for session_id in ids}
    if query.exact:  # per session: each stops at its window of newest matches (one statement would not)
        for session_id in ids:
            found = candidates[session_id]
            for identifier in terms.exact_identifiers:
                for row in exact_rows(conn, session_id, identifier, plan.scope_sql, plan.scope_params, window):
                    merge(found, row).exact.append(identifier)
            for phrase in terms.phrases:
                for row in exact_rows(conn, session_id, phrase, plan.scope_sql, plan.scope_params, window):
                    merge(found, row).phrases.append(phrase)
    if query.fts:
        searched = [session for session in sessions if session.fts_ranges != ()]  # () : no FTS row at all
        if searched:
            filter_sql, filter_params = filter_clauses((), query.types, query.roles, query.before_ms, query.after_ms,
                                                       negate=True, runs=None)
            rows = fts_rows_by_session(conn, [session.session_id for session in searched],
                                       fts_match_expression(terms.terms), filter_sql, filter_params, window,
                                       _hull(searched))
            _add_fts_rows(rows, terms, candidates)
    return [whole_session_result(candidates[session_id], plan, terms, query.max_results) for session_id in ids]


def _add_fts_rows(rows: list[tuple[str, IndexRow]], terms: QueryTerms,
                  candidates: dict[str, dict[str, Candidate]]) -> None:
    """Each session's FTS rows in its order, with the terms each verifiably holds."""
    folded_terms = [(term, fold_for_match(term)) for term in terms.terms]
    order = 0
    previous: str | None = None
    for session_id, row in rows:
        order = order + 1 if session_id == previous else 0
        previous = session_id
        candidate = merge(candidates[session_id], row)
        folded = fold_for_match(row.searchable_text)
        candidate.fts_terms = [term for term, needle in folded_terms if contains_token(folded, needle)]
        candidate.fts_order = order


def _hull(sessions: Sequence[WholeSession]) -> tuple[int, int] | None:
    """One rowid range around every session's ranges; None when one session's are unknown."""
    ranges = [session.fts_ranges for session in sessions]
    if any(known is None for known in ranges):
        return None
    bounds = [bound for known in ranges if known for bound in known]
    return (min(low for low, _high in bounds), max(high for _low, high in bounds))
