"""The candidate rows of one source, read from the SQLite session index (contract §2.6, §7.7).

Every scope filter (authorized or excluded ids, entry types, roles, dates) sits in the SQL
``WHERE`` clause before ``ORDER BY ... LIMIT``: filtering after the limit lets rows outside the
scope fill the candidate window and starve the rows the caller may see.  Exact literals are
case-sensitive substring queries, newest first; the lexical query is FTS5 by ``bm25``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference.primitives.sqlite_errors import StoredValueDamaged
from reference.recall.index_schema import ROLE_CODES, TYPE_CODES
from reference.recall.query_terms import QueryTerms, unique_terms

MAX_FTS_TERMS: Final = 16
MAX_RESULTS: Final = 12
MESSAGE_TYPES: Final = ("message", "custom_message")
SUMMARY_TYPES: Final = ("compaction", "branch_summary")


@dataclass(frozen=True)
class IndexRow:
    """One ``entries`` row as the engine reads it."""

    entry_key: str
    entry_id: str
    entry_type: str
    role: str | None
    created_at: int | None
    content_hash: str
    searchable_text: str
    token_estimate: int


def fts_match_expression(terms: Sequence[str]) -> str:
    """OR of the first 16 unique terms, each a double-quoted FTS5 string (quotes doubled)."""
    quoted = ['"' + term.replace('"', '""') + '"' for term in unique_terms(terms, MAX_FTS_TERMS)]
    return " OR ".join(quoted)


_COLUMNS: Final = "e.entry_key, e.entry_id, e.entry_type, e.role, e.created_at, e.content_hash, e.searchable_text, e.token_estimate"
#: The FTS matches with their filter row ``f`` (CROSS JOIN keeps this loop order, FTS then the filter
#: row, whatever the filters: with a date filter the planner could otherwise walk rows by date and
#: run the MATCH once per row).
_MATCHES: Final = (
    "SELECT f.fts_rowid AS fts_rowid, bm25(entries_fts) AS lexical_rank, f.created_at AS created_at,"
    " f.entry_id AS entry_id, f.session_no AS session_no"
    " FROM entries_fts CROSS JOIN entry_filters AS f ON f.fts_rowid = entries_fts.rowid WHERE entries_fts MATCH ?"
)
#: The chosen rows (``top``) joined to their ``entries`` row ``e``.
_TO_ENTRIES: Final = (" CROSS JOIN entries_fts_keys AS k ON k.fts_rowid = top.fts_rowid"
                      " CROSS JOIN entries AS e ON e.entry_key = k.entry_key")


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
class RowScope:
    """Which rows of its session a source's queries name as its own.

    ``ids``: the authorized ids (``IN``), or with ``negate`` the excluded ones (``NOT IN``; none:
    no clause).  ``runs``: FTS rowid runs that hold exactly the excluded rows of the session, named
    instead of the ids.  ``member_of``: a stored branch whose entries are the authorized ``ids``;
    the exact queries probe it instead of the list (the FTS filter lists ``ids``).
    """

    ids: Collection[str] = ()
    negate: bool = False
    runs: Sequence[tuple[int, int]] | None = None
    member_of: int | None = None


@dataclass(frozen=True)
class RowSearch:
    """One candidate query: its ``text`` (a literal, or an FTS5 ``MATCH`` expression), its
    ``AND`` clauses and their parameters, and how many rows it gives at most."""

    text: str
    where: str
    params: Sequence[Any]
    limit: int


def scope_filter(scope: RowScope, query: RetrievalQuery) -> tuple[str, list[Any]]:
    """``AND`` clauses on the ``e`` alias: JSON array parameters, so an empty list matches nothing.

    The runs come last: a correlated test of the entry's key, which SQLite evaluates after the
    other terms (only for rows that passed them).
    """
    clauses: list[str] = []
    params: list[Any] = []
    if scope.member_of is not None:  # an entry of the stored branch: not listed off it (a probe per row)
        clauses.append("NOT EXISTS (SELECT 1 FROM recall_rebase_off_branch AS o"
                       " WHERE o.branch_no = ? AND o.entry_id = e.entry_id)")
        params.append(scope.member_of)
    elif scope.runs is None:
        _add_ids(clauses, params, "e.entry_id", scope.ids, negate=scope.negate)
    clauses.append("e.entry_type IN (SELECT value FROM json_each(?))")
    params.append(_json_array(query.types))
    if query.roles is not None:
        clauses.append("e.role IN (SELECT value FROM json_each(?))")
        params.append(_json_array(query.roles))
    sql, params = _with_dates(clauses, params, "e.created_at", query)
    if scope.runs:
        tests = " OR ".join(["k.fts_rowid BETWEEN ? AND ?"] * len(scope.runs))
        sql += f" AND NOT EXISTS (SELECT 1 FROM entries_fts_keys AS k WHERE k.entry_key = e.entry_key AND ({tests}))"
        params += _run_params(scope.runs)
    return sql, params


def _with_dates(clauses: list[str], params: list[Any], column: str, query: RetrievalQuery) -> tuple[str, list[Any]]:
    """The strict date bounds (D4) added to ``clauses``, all joined as ``AND`` clauses."""
    if query.before_ms is not None:
        clauses.append(f"{column} < ?")
        params.append(query.before_ms)
    if query.after_ms is not None:
        clauses.append(f"{column} > ?")
        params.append(query.after_ms)
    return "".join(f" AND {clause}" for clause in clauses), params


def _add_ids(clauses: list[str], params: list[Any], column: str, ids: Collection[str], *, negate: bool) -> None:
    """``column IN`` the ids, or ``NOT IN`` them with ``negate`` (no ids: no clause at all)."""
    if not negate:
        clauses.append(f"{column} IN (SELECT value FROM json_each(?))")
        params.append(_json_array(ids))
    elif ids:
        clauses.append(f"{column} NOT IN (SELECT value FROM json_each(?))")
        params.append(_json_array(ids))


def _json_array(values: Collection[str]) -> str:
    return json.dumps(list(values), ensure_ascii=False)


def _run_params(runs: Sequence[tuple[int, int]]) -> list[Any]:
    return [bound for run in runs for bound in run]


def filter_clauses(scope: RowScope, query: RetrievalQuery) -> tuple[str, list[Any]]:
    """The scope of ``scope_filter`` as ``AND`` clauses on the narrow ``entry_filters`` row ``f``.

    Types and roles are compared by their migration-4 codes; a role without a code (only the
    six recall roles have one) is looked up in ``entries`` for the rows coded 0 (other).  The ids
    are the authorized ones (``IN``), the excluded ones (``NOT IN``; none: no clause), or, with
    ``runs``, ranges of FTS rowids that hold exactly the excluded rows of the session.
    """
    clauses: list[str] = []
    params: list[Any] = []
    if scope.runs is not None:
        clauses += ["f.fts_rowid NOT BETWEEN ? AND ?"] * len(scope.runs)
        params += _run_params(scope.runs)
    else:
        _add_ids(clauses, params, "f.entry_id", scope.ids, negate=scope.negate)
    clauses.append(f"f.type_code IN ({', '.join(str(TYPE_CODES[kind]) for kind in query.types)})")
    roles = query.roles
    if roles is not None:
        codes = sorted({ROLE_CODES[role] for role in roles if role in ROLE_CODES})
        others = [role for role in roles if role not in ROLE_CODES]
        tests = [f"f.role_code IN ({', '.join(map(str, codes))})"] if codes else []
        if others:
            tests.append(
                "(f.role_code = 0 AND (SELECT e.role FROM entries_fts_keys AS k JOIN entries AS e"
                " ON e.entry_key = k.entry_key WHERE k.fts_rowid = f.fts_rowid)"
                " IN (SELECT value FROM json_each(?)))"
            )
            params.append(_json_array(others))
        clauses.append("(" + " OR ".join(tests) + ")" if tests else "0")
    return _with_dates(clauses, params, "f.created_at", query)


def exact_rows(conn: sqlite3.Connection, session_id: str, search: RowSearch) -> list[IndexRow]:
    """Rows holding the literal ``search.text`` (case-sensitive substring), newest first
    (``created_at DESC, entry_id DESC``); ``search.where`` holds ``scope_filter`` clauses."""
    sql = (
        f"SELECT {_COLUMNS} FROM entries AS e"
        f" WHERE e.session_id = ? AND instr(e.searchable_text, ?) > 0{search.where}"
        " ORDER BY e.created_at DESC, e.entry_id DESC LIMIT ?"
    )
    return [_row(values) for values in conn.execute(sql, [session_id, search.text, *search.params, search.limit])]


def fts_rows(conn: sqlite3.Connection, session_id: str, search: RowSearch,
             ranges: Sequence[tuple[int, int]] | None = None) -> list[IndexRow]:
    """FTS5 rows matching ``search.text`` by ``bm25`` (best first), then newest, then ``entry_id``
    ascending (D5 tie key).

    ``search.where`` holds ``filter_clauses`` on the narrow ``entry_filters`` row ``f`` (keyed by
    FTS rowid, migration 4): the scope is decided, and the window chosen, without reading a
    single ``entries`` row; only the chosen rows are joined to ``entries`` afterwards, in the same
    statement.  SQLite computes ``bm25`` only for the rows that pass the filters.

    With ``ranges`` (inclusive FTS rowid ranges that hold every FTS row of the session), each
    range is its own query under the same order and limit, and the union is ordered and cut
    again.  The order is total within a session (``entry_id`` is unique there) and ``bm25``
    takes its statistics from the whole table whatever the rowid constraint, so the rows are
    the same as one query over the whole table; FTS5 only skips the parts of the term lists
    outside the ranges, which is what makes a large index cheap to search one session of.
    """
    select = (
        f"{_MATCHES} AND f.session_no = (SELECT n.session_no FROM session_numbers AS n WHERE n.session_id = ?)"
        f"{search.where}"
    )
    match, filter_params, limit = search.text, search.params, search.limit
    order = " ORDER BY lexical_rank, created_at DESC, entry_id LIMIT ?"
    if not ranges:
        top = select + order
        params: list[Any] = [match, session_id, *filter_params, limit]
    else:
        part = f"SELECT * FROM ({select} AND entries_fts.rowid BETWEEN ? AND ?{order})"
        top = f"SELECT * FROM ({' UNION ALL '.join([part] * len(ranges))}){order}"
        params = []
        for low, high in ranges:
            params += [match, session_id, *filter_params, low, high, limit]
        params.append(limit)
    sql = (f"SELECT {_COLUMNS} FROM ({top}) AS top{_TO_ENTRIES}"
           " ORDER BY top.lexical_rank, top.created_at DESC, top.entry_id")
    return [_row(values) for values in conn.execute(sql, params)]


def fts_rows_by_session(conn: sqlite3.Connection, session_ids: Sequence[str], search: RowSearch,
                        hull: tuple[int, int] | None = None) -> list[tuple[str, IndexRow]]:
    """``fts_rows`` of every session from one FTS statement: each session's first ``search.limit``
    rows in ``fts_rows``'s order, as ``(session_id, row)`` grouped by session in the given order.

    One statement reads the term lists once and takes bm25's statistics once (from the whole
    table, as ``fts_rows`` does); bm25 is computed once per match of the named sessions that
    passes the filters, the same value for the same row in either form.  ``hull``: an inclusive
    FTS rowid range that holds every FTS row of the sessions.

    Two passes, and no sort of every match: the statement's matches (bm25 and the filter row's
    tie keys) go into a temporary table keyed by session and FTS rowid; each session's window is
    then read from its part of that key under ``fts_rows``'s own ``ORDER BY ... LIMIT`` (SQLite
    keeps only the best rows as it scans), and only the chosen rows are joined to ``entries``.
    The order is total within a session (``entry_id`` is unique there), so the rows are
    ``fts_rows``'s.  The table exists inside a savepoint that is rolled back: one read snapshot
    for both passes, nothing left on the connection.  (Before: a window function sorted every
    match of every session, about twice FTS5's own ranking at 1 GB.)
    """
    bounds = " AND entries_fts.rowid BETWEEN ? AND ?" if hull is not None else ""
    ids = _json_array(list(dict.fromkeys(session_ids)))
    conn.execute(f"SAVEPOINT {_MATCH_TABLE}")
    try:
        conn.execute(f"CREATE TEMP TABLE {_MATCH_TABLE}(session_no, fts_rowid, lexical_rank, created_at, entry_id,"
                     " PRIMARY KEY (session_no, fts_rowid)) WITHOUT ROWID")
        conn.execute(
            f"INSERT INTO temp.{_MATCH_TABLE} SELECT session_no, fts_rowid, lexical_rank, created_at, entry_id"
            f" FROM ({_MATCHES} AND f.session_no IN (SELECT n.session_no FROM session_numbers AS n"
            f" WHERE n.session_id IN (SELECT value FROM json_each(?))){search.where}{bounds})",
            [search.text, ids, *search.params, *(hull or ())],
        )
        window = (
            f"SELECT {_COLUMNS} FROM (SELECT fts_rowid, lexical_rank, created_at, entry_id FROM temp.{_MATCH_TABLE}"
            " WHERE session_no = ? ORDER BY lexical_rank, created_at DESC, entry_id LIMIT ?) AS top"
            f"{_TO_ENTRIES} ORDER BY top.lexical_rank, top.created_at DESC, top.entry_id"
        )
        found: list[tuple[str, IndexRow]] = []
        for session_id, session_no in conn.execute("SELECT value, n.session_no FROM json_each(?) AS j"
                                                   " JOIN session_numbers AS n ON n.session_id = j.value"
                                                   " ORDER BY j.key", (ids,)).fetchall():
            found += [(session_id, _row(values)) for values in conn.execute(window, (session_no, search.limit))]
        return found
    finally:
        conn.execute(f"ROLLBACK TO {_MATCH_TABLE}")
        conn.execute(f"RELEASE {_MATCH_TABLE}")


#: The temporary table (and savepoint) of ``fts_rows_by_session``'s matches.
_MATCH_TABLE: Final = "recall_rebase_fts_matches"


def _row(values: Sequence[Any]) -> IndexRow:
    key, entry_id, entry_type, role, created_at, content_hash, text, tokens = values
    # Spelled out, not as generators over tuples: a project recall reads thousands of rows.
    if not (isinstance(key, str) and isinstance(entry_id, str) and isinstance(entry_type, str)
            and isinstance(content_hash, str) and (role is None or isinstance(role, str))
            and (text is None or isinstance(text, str)) and (created_at is None or type(created_at) is int)
            and (tokens is None or type(tokens) is int)):
        raise StoredValueDamaged(f"the entries row {key!r}")  # the service repairs the index (D15)
    return IndexRow(
        entry_key=key,
        entry_id=entry_id,
        entry_type=entry_type,
        role=role or None,
        created_at=created_at,
        content_hash=content_hash,
        searchable_text=text or "",
        token_estimate=tokens or 0,
    )
