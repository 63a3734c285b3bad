"""The per-source lexical engine of explicit recall (contract §2.6), over the SQLite session index.

Every scope filter (authorized ids, entry types, roles, dates) sits in the SQL ``WHERE`` clause
before ``ORDER BY ... LIMIT``: filtering after the limit lets rows outside the scope fill the
candidate window and starve the rows the caller may see (contract §7.7). The authorized set and
the types are checked again in memory, and every kept row must contain a verified match, because
FTS tokenization can return rows that only look like a match. Ranking, dedup and the match reason
follow the TypeScript ``HistoricalRetrievalEngine.retrieve``; ``docs/retrieval.md`` lists the
facts used, the decisions taken where the upstream order leaves ties, and the known gaps.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import sqlite3
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from reference.primitives.jsvalues import JS_WHITESPACE, trim
from reference.recall.index_schema import ROLE_CODES, TYPE_CODES
from reference.recall.query_terms import QueryTerms, js_lower, unique_terms

MAX_RESULTS: Final = 12
MAX_FTS_TERMS: Final = 16
MESSAGE_TYPES: Final = ("message", "custom_message")
SUMMARY_TYPES: Final = ("compaction", "branch_summary")
RETRIEVAL_DEGRADED: Final = "retrieval-degraded"

Status = Literal["ok", "no-query", "failed", "disabled"]
MatchReason = Literal["exact-identifier", "exact-phrase", "lexical-match"]

#: ``\p{Script=Latin}`` as Node 24 (ICU, Unicode 17) reports it: inclusive code point ranges.
_LATIN_RANGES: Final = (
    (0x41, 0x5A), (0x61, 0x7A), (0xAA, 0xAA), (0xBA, 0xBA), (0xC0, 0xD6), (0xD8, 0xF6),
    (0xF8, 0x2B8), (0x2E0, 0x2E4), (0x1D00, 0x1D25), (0x1D2C, 0x1D5C), (0x1D62, 0x1D65),
    (0x1D6B, 0x1D77), (0x1D79, 0x1DBE), (0x1E00, 0x1EFF), (0x2071, 0x2071), (0x207F, 0x207F),
    (0x2090, 0x209C), (0x212A, 0x212B), (0x2132, 0x2132), (0x214E, 0x214E), (0x2160, 0x2188),
    (0x2C60, 0x2C7F), (0xA722, 0xA787), (0xA78B, 0xA7DC), (0xA7F1, 0xA7FF), (0xAB30, 0xAB5A),
    (0xAB5C, 0xAB64), (0xAB66, 0xAB69), (0xFB00, 0xFB06), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A),
    (0x10780, 0x10785), (0x10787, 0x107B0), (0x107B2, 0x107BA), (0x1DF00, 0x1DF1E),
    (0x1DF25, 0x1DF2A),
)  # fmt: skip
_LATIN_STARTS: Final = tuple(start for start, _ in _LATIN_RANGES)
_JS_SPACE_RUN: Final = re.compile("[" + "".join(f"\\u{ord(char):04x}" for char in JS_WHITESPACE) + "]+")


@dataclass(frozen=True)
class EngineHit:
    """One selected index row, with its diagnostic score and its single match reason."""

    entry_id: str
    entry_key: str
    entry_type: str
    role: str | None
    created_at: int | None
    content_hash: str
    searchable_text: str
    token_estimate: int
    score: float
    match_reason: MatchReason
    literal_priority: int


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
class _Row:
    entry_key: str
    entry_id: str
    entry_type: str
    role: str | None
    created_at: int | None
    content_hash: str
    searchable_text: str
    token_estimate: int


@dataclass
class _Candidate:
    row: _Row
    exact: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    fts_terms: list[str] = field(default_factory=list)
    fts_order: int | None = None


@dataclass(frozen=True)
class _Ranked:
    candidate: _Candidate
    score: float
    literal_priority: int


def candidate_window(max_results: int) -> int:
    """Rows fetched per query: ``max(maxResults, min(100, maxResults * 6))`` (72 for 12)."""
    return max(max_results, min(100, max_results * 6))


def fold_for_match(text: str) -> str:
    """The upstream ``lexicalMatchText``: NFD, drop marks after a Latin letter, lower-case.

    It approximates the index's ``unicode61 remove_diacritics 2`` folding so that an FTS row
    can be checked for the term it was returned for (gaps: docs/retrieval.md).
    """
    if text.isascii():  # NFD leaves ASCII alone and it holds no marks
        return js_lower(text)
    decomposed = unicodedata.normalize("NFD", text)
    kept: list[str] = []
    after_latin = False
    for char in decomposed:
        if after_latin and unicodedata.category(char)[0] == "M":
            continue
        kept.append(char)
        after_latin = _is_latin(char)
    return js_lower("".join(kept))


def has_whole_token(folded_text: str, term: str) -> bool:
    """Whether the folded ``term`` occurs in ``folded_text`` between non-token characters.

    Token characters are letters, numbers, marks and private-use characters, as in the upstream
    pattern ``(?:^|[^\\p{L}\\p{N}\\p{M}\\p{Co}])term(?=$|[^...])``.
    """
    return _contains_token(folded_text, fold_for_match(term))


def _contains_token(folded_text: str, needle: str) -> bool:
    start = folded_text.find(needle)
    while start >= 0:
        end = start + len(needle)
        before_ok = start == 0 or not _is_token_char(folded_text[start - 1])
        after_ok = end == len(folded_text) or not _is_token_char(folded_text[end])
        if before_ok and after_ok:
            return True
        start = folded_text.find(needle, start + 1)
    return False


def dedup_key(text: str) -> str:
    """Trimmed, whitespace runs collapsed to one space, lower-cased (JavaScript ``\\s`` set)."""
    return js_lower(_JS_SPACE_RUN.sub(" ", trim(text)))


def fts_match_expression(terms: Sequence[str]) -> str:
    """OR of the first 16 unique terms, each a double-quoted FTS5 string (quotes doubled)."""
    quoted = ['"' + term.replace('"', '""') + '"' for term in unique_terms(terms, MAX_FTS_TERMS)]
    return " OR ".join(quoted)


def retrieve(
    conn: sqlite3.Connection,
    *,
    session_id: str,
    authorized_ids: Collection[str],
    terms: QueryTerms,
    include_summaries: bool,
    roles: Sequence[str] | None,
    before_ms: int | None,
    after_ms: int | None,
    exact: bool,
    fts: bool,
    max_results: int = MAX_RESULTS,
    excluded_ids: Collection[str] | None = None,
    fts_rowid_ranges: Sequence[tuple[int, int]] | None = None,
    excluded_runs: Sequence[tuple[int, int]] | None = None,
) -> RetrievalResult:
    """Search one source's index rows for ``terms`` within the authorized scope (contract §2.6).

    ``no-query``: the query gave no terms; ``failed``: an exact query raised (no hits);
    ``disabled``: neither search kind is on, or ``max_results`` is below 1 (as upstream).

    Two optional facts only make the same answer cheaper.  ``excluded_ids``: the session's
    entries that are *not* authorized, when the caller read them in the snapshot the queries
    read (authorized and excluded together are every entry of the session); the SQL filter then
    names the shorter list (``NOT IN`` the excluded ones; nothing at all when none is excluded).
    ``fts_rowid_ranges``: inclusive FTS rowid ranges holding every FTS row of the session
    (``fts_rowid_ranges``); the FTS query then reads only those parts of the term lists.
    ``excluded_runs``: with ``excluded_ids``, inclusive FTS rowid ranges that together hold the
    FTS row of every excluded entry and of no other entry of the session (rows of other sessions
    may fall inside); the SQL then tests these few ranges instead of the list of ids.
    """
    if (not exact and not fts) or max_results <= 0:
        return RetrievalResult(status="disabled")
    if not terms.terms:
        return RetrievalResult(status="no-query")
    types = MESSAGE_TYPES + SUMMARY_TYPES if include_summaries else MESSAGE_TYPES
    complement = excluded_ids is not None and (
        excluded_runs is not None or not excluded_ids or len(excluded_ids) < len(authorized_ids)
    )
    runs = excluded_runs if complement else None
    if runs is not None:
        scope_sql, scope_params = _scope_filter((), types, roles, before_ms, after_ms, negate=True)
        scope_sql, scope_params = scope_sql + _runs_clause(runs), scope_params + _run_params(runs)
        ids: Collection[str] = ()
    elif complement:
        assert excluded_ids is not None
        scope_sql, scope_params = _scope_filter(excluded_ids, types, roles, before_ms, after_ms, negate=True)
        ids = excluded_ids
    else:
        scope_sql, scope_params = _scope_filter(authorized_ids, types, roles, before_ms, after_ms)
        ids = authorized_ids
    window = candidate_window(max_results)
    candidates: dict[str, _Candidate] = {}
    warnings: list[str] = []
    if exact:
        try:
            for identifier in terms.exact_identifiers:
                for row in _exact_rows(conn, session_id, identifier, scope_sql, scope_params, window):
                    _merge(candidates, row).exact.append(identifier)
            for phrase in terms.phrases:
                for row in _exact_rows(conn, session_id, phrase, scope_sql, scope_params, window):
                    _merge(candidates, row).phrases.append(phrase)
        except sqlite3.Error:
            return RetrievalResult(status="failed")
    if fts:
        try:
            filter_sql, filter_params = _filter_clauses(
                ids, types, roles, before_ms, after_ms, negate=complement, runs=runs
            )
            rows = _fts_rows(
                conn, session_id, fts_match_expression(terms.terms), filter_sql, filter_params, window,
                fts_rowid_ranges,
            )
        except sqlite3.Error:
            warnings.append(RETRIEVAL_DEGRADED)
            rows = []
        folded_terms = [(term, fold_for_match(term)) for term in terms.terms]
        for order, row in enumerate(rows):
            candidate = _merge(candidates, row)
            folded = fold_for_match(row.searchable_text)
            candidate.fts_terms = [term for term, needle in folded_terms if _contains_token(folded, needle)]
            candidate.fts_order = order

    if complement:
        assert excluded_ids is not None
        excluded = excluded_ids if isinstance(excluded_ids, (set, frozenset)) else set(excluded_ids)
    else:
        authorized = authorized_ids if isinstance(authorized_ids, (set, frozenset)) else set(authorized_ids)
    eligible: list[_Candidate] = []
    alternate = 0
    for candidate in candidates.values():
        row = candidate.row
        if row.entry_type not in types or not row.searchable_text:
            continue
        if (row.entry_id in excluded) if complement else (row.entry_id not in authorized):
            alternate += 1
            continue
        if candidate.exact or candidate.phrases or candidate.fts_terms:
            eligible.append(candidate)

    times = [candidate.row.created_at for candidate in eligible if candidate.row.created_at is not None]
    span = (min(times), max(times)) if times else (0, 0)
    ranked = sorted((_rank(candidate, span, terms) for candidate in eligible), key=_engine_order)
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
        hits.append(_hit(item))
    return RetrievalResult(
        status="ok",
        hits=tuple(hits),
        warnings=tuple(warnings),
        alternate_branch_candidates=alternate,
        duplicate_candidates=duplicates,
        candidate_count=len(candidates),
    )


_COLUMNS: Final = "e.entry_key, e.entry_id, e.entry_type, e.role, e.created_at, e.content_hash, e.searchable_text, e.token_estimate"


def _scope_filter(
    authorized_ids: Collection[str],
    types: Sequence[str],
    roles: Sequence[str] | None,
    before_ms: int | None,
    after_ms: int | None,
    *,
    negate: bool = False,
) -> tuple[str, list[Any]]:
    """``AND`` clauses on the ``e`` alias: JSON array parameters, so an empty list matches nothing.

    ``negate``: the ids are the excluded ones (``NOT IN``; an empty list excludes nothing, so no
    clause at all).
    """
    clauses: list[str] = []
    params: list[Any] = []
    if not negate:
        clauses.append("e.entry_id IN (SELECT value FROM json_each(?))")
        params.append(_json_array(authorized_ids))
    elif authorized_ids:
        clauses.append("e.entry_id NOT IN (SELECT value FROM json_each(?))")
        params.append(_json_array(authorized_ids))
    clauses.append("e.entry_type IN (SELECT value FROM json_each(?))")
    params.append(_json_array(types))
    if roles is not None:
        clauses.append("e.role IN (SELECT value FROM json_each(?))")
        params.append(_json_array(roles))
    return _with_dates(clauses, params, "e.created_at", before_ms, after_ms)


def _with_dates(clauses: list[str], params: list[Any], column: str, before_ms: int | None,
                after_ms: int | None) -> tuple[str, list[Any]]:
    """The strict date bounds (D4) added to ``clauses``, all joined as ``AND`` clauses."""
    if before_ms is not None:
        clauses.append(f"{column} < ?")
        params.append(before_ms)
    if after_ms is not None:
        clauses.append(f"{column} > ?")
        params.append(after_ms)
    return "".join(f" AND {clause}" for clause in clauses), params


def _json_array(values: Collection[str]) -> str:
    return json.dumps(list(values), ensure_ascii=False)


def _runs_clause(runs: Sequence[tuple[int, int]]) -> str:
    """Exclusion by FTS rowid runs on the ``e`` alias: a correlated test of the entry's key, which
    SQLite evaluates after the other terms (only for rows that passed them)."""
    if not runs:
        return ""
    tests = " OR ".join(["k.fts_rowid BETWEEN ? AND ?"] * len(runs))
    return f" AND NOT EXISTS (SELECT 1 FROM entries_fts_keys AS k WHERE k.entry_key = e.entry_key AND ({tests}))"


def _run_params(runs: Sequence[tuple[int, int]]) -> list[Any]:
    return [bound for run in runs for bound in run]


def _filter_clauses(
    ids: Collection[str],
    types: Sequence[str],
    roles: Sequence[str] | None,
    before_ms: int | None,
    after_ms: int | None,
    *,
    negate: bool,
    runs: Sequence[tuple[int, int]] | None,
) -> tuple[str, list[Any]]:
    """The scope of ``_scope_filter`` as ``AND`` clauses on the narrow ``entry_filters`` row ``f``.

    Types and roles are compared by their migration-4 codes; a role without a code (only the
    six recall roles have one) is looked up in ``entries`` for the rows coded 0 (other).  The ids
    are the authorized ones (``IN``), the excluded ones (``NOT IN``; none: no clause), or, with
    ``runs``, ranges of FTS rowids that hold exactly the excluded rows of the session.
    """
    clauses: list[str] = []
    params: list[Any] = []
    if runs is not None:
        clauses += ["f.fts_rowid NOT BETWEEN ? AND ?"] * len(runs)
        params += _run_params(runs)
    elif not negate:
        clauses.append("f.entry_id IN (SELECT value FROM json_each(?))")
        params.append(_json_array(ids))
    elif ids:
        clauses.append("f.entry_id NOT IN (SELECT value FROM json_each(?))")
        params.append(_json_array(ids))
    clauses.append(f"f.type_code IN ({', '.join(str(TYPE_CODES[kind]) for kind in types)})")
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
    return _with_dates(clauses, params, "f.created_at", before_ms, after_ms)


def _exact_rows(
    conn: sqlite3.Connection,
    session_id: str,
    literal: str,
    scope_sql: str,
    scope_params: list[Any],
    limit: int,
) -> list[_Row]:
    """Case-sensitive substring rows, newest first (``created_at DESC, entry_id DESC``)."""
    sql = (
        f"SELECT {_COLUMNS} FROM entries AS e"
        f" WHERE e.session_id = ? AND instr(e.searchable_text, ?) > 0{scope_sql}"
        " ORDER BY e.created_at DESC, e.entry_id DESC LIMIT ?"
    )
    return [_row(values) for values in conn.execute(sql, [session_id, literal, *scope_params, limit])]


def _fts_rows(
    conn: sqlite3.Connection,
    session_id: str,
    match: str,
    filter_sql: str,
    filter_params: list[Any],
    limit: int,
    ranges: Sequence[tuple[int, int]] | None = None,
) -> list[_Row]:
    """FTS5 rows by ``bm25`` (best first), then newest, then ``entry_id`` ascending (D5 tie key).

    ``filter_sql`` holds ``_filter_clauses`` on the narrow ``entry_filters`` row ``f`` (keyed by
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
    # CROSS JOIN keeps this loop order (FTS, then the filter row) whatever the filters: with a
    # date filter the planner could otherwise walk rows by date and run the MATCH once per row.
    select = (
        "SELECT f.fts_rowid AS fts_rowid, bm25(entries_fts) AS lexical_rank, f.created_at AS created_at,"
        " f.entry_id AS entry_id FROM entries_fts CROSS JOIN entry_filters AS f ON f.fts_rowid = entries_fts.rowid"
        " WHERE entries_fts MATCH ?"
        " AND f.session_no = (SELECT n.session_no FROM session_numbers AS n WHERE n.session_id = ?)"
        f"{filter_sql}"
    )
    order = " ORDER BY lexical_rank, created_at DESC, entry_id LIMIT ?"
    if not ranges:
        top = select + order
        params: list[Any] = [match, session_id, *filter_params, limit]
    elif len(ranges) == 1:
        top = select + " AND entries_fts.rowid BETWEEN ? AND ?" + order
        params = [match, session_id, *filter_params, ranges[0][0], ranges[0][1], limit]
    else:
        part = f"SELECT * FROM ({select} AND entries_fts.rowid BETWEEN ? AND ?{order})"
        top = f"SELECT * FROM ({' UNION ALL '.join([part] * len(ranges))}){order}"
        params = []
        for low, high in ranges:
            params += [match, session_id, *filter_params, low, high, limit]
        params.append(limit)
    sql = (
        f"SELECT {_COLUMNS} FROM ({top}) AS top"
        " CROSS JOIN entries_fts_keys AS k ON k.fts_rowid = top.fts_rowid"
        " CROSS JOIN entries AS e ON e.entry_key = k.entry_key"
        " ORDER BY top.lexical_rank, top.created_at DESC, top.entry_id"
    )
    return [_row(values) for values in conn.execute(sql, params)]


MAX_FTS_RANGES: Final = 8
#: A gap between two runs of a session's rowids is worth its own query (each FTS query reads
#: the whole term lists once for bm25's statistics) when it is wider than this part of the table.
_GAP_SHARE: Final = 40


def fts_rowid_ranges(
    conn: sqlite3.Connection, session_id: str, max_ranges: int = MAX_FTS_RANGES
) -> tuple[tuple[int, int], ...]:
    """At most ``max_ranges`` inclusive FTS rowid ranges that hold every FTS row of the session.

    Rowids are given out in file order as a session is indexed, so a session is one run plus a
    run per later append; only gaps wider than a fortieth of the table split the ranges, the
    widest first (a split costs a query, a gap costs reading its matches).  The keys are read by
    their ``"<sessionId>:"`` prefix, which may also hold another session's keys (ids with ``:``):
    the ranges are then wider than needed, never narrower.  No rows: no ranges.
    """
    bounds = (f"{session_id}:", f"{session_id};")
    low, high, count = conn.execute(
        "SELECT min(fts_rowid), max(fts_rowid), count(*) FROM entries_fts_keys WHERE entry_key >= ? AND entry_key < ?",
        bounds,
    ).fetchone()
    if not count:
        return ()
    if high - low + 1 == count or max_ranges <= 1:
        return ((low, high),)
    total = conn.execute("SELECT max(fts_rowid) FROM entries_fts_keys").fetchone()[0]
    worth = max(1, total // _GAP_SHARE)
    rowids = sorted(
        rowid
        for (rowid,) in conn.execute(
            "SELECT fts_rowid FROM entries_fts_keys WHERE entry_key >= ? AND entry_key < ?", bounds
        )
    )
    gaps = sorted(
        (rowids[index] - rowids[index - 1], index)
        for index in range(1, len(rowids))
        if rowids[index] - rowids[index - 1] > worth
    )
    cuts = sorted(index for _gap, index in gaps[len(gaps) - (max_ranges - 1) :]) if gaps else []
    ranges: list[tuple[int, int]] = []
    start = 0
    for cut in cuts:
        ranges.append((rowids[start], rowids[cut - 1]))
        start = cut
    ranges.append((rowids[start], rowids[-1]))
    return tuple(ranges)


def _row(values: Sequence[Any]) -> _Row:
    key, entry_id, entry_type, role, created_at, content_hash, text, tokens = values
    return _Row(
        entry_key=key,
        entry_id=entry_id,
        entry_type=entry_type,
        role=role or None,
        created_at=created_at,
        content_hash=content_hash,
        searchable_text=text or "",
        token_estimate=tokens or 0,
    )


def _merge(candidates: dict[str, _Candidate], row: _Row) -> _Candidate:
    """One candidate per entry id; the first row seen is kept (rows of one entry are identical)."""
    candidate = candidates.get(row.entry_id)
    if candidate is None:
        candidate = candidates[row.entry_id] = _Candidate(row)
    return candidate


def _rank(candidate: _Candidate, span: tuple[int, int], terms: QueryTerms) -> _Ranked:
    """The diagnostic score, summed in the upstream order so the floats agree bit for bit.

    ``span`` is the oldest and newest ``created_at`` among the eligible candidates (recency).
    """
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
    score += _role_bonus(row.role)
    if row.created_at is not None and newest > oldest:
        score += ((row.created_at - oldest) / (newest - oldest)) * 8
    score -= min(12, max(0, row.token_estimate) / 1000)
    priority = 2 if candidate.exact else 1 if candidate.phrases else 0
    return _Ranked(candidate, _round6(score), priority)


def _engine_order(item: _Ranked) -> tuple[int, float, int, str]:
    """Literal priority, score, ``createdAt`` (missing = 0) descending; entry id ascending.

    Upstream breaks the last tie with ``localeCompare``; D5 fixes code point (UTF-8 byte) order.
    """
    row = item.candidate.row
    return (-item.literal_priority, -item.score, -(row.created_at or 0), row.entry_id)


def _hit(item: _Ranked) -> EngineHit:
    candidate = item.candidate
    row = candidate.row
    reason: MatchReason = (
        "exact-identifier" if candidate.exact else "exact-phrase" if candidate.phrases else "lexical-match"
    )
    return EngineHit(
        entry_id=row.entry_id,
        entry_key=row.entry_key,
        entry_type=row.entry_type,
        role=row.role,
        created_at=row.created_at,
        content_hash=row.content_hash,
        searchable_text=row.searchable_text,
        token_estimate=row.token_estimate,
        score=item.score,
        match_reason=reason,
        literal_priority=item.literal_priority,
    )


def _role_bonus(role: str | None) -> int:
    if role == "user":
        return 8
    if role == "assistant":
        return 5
    if role in ("toolResult", "bashExecution"):
        return 4
    return 1


def _round6(value: float) -> float:
    """``Math.round(value * 1e6) / 1e6``: halves round up (Python's ``round`` rounds to even)."""
    scaled = value * 1_000_000
    whole = math.floor(scaled)
    if scaled - whole >= 0.5:
        whole += 1
    return whole / 1_000_000


def _is_latin(char: str) -> bool:
    code = ord(char)
    index = bisect.bisect_right(_LATIN_STARTS, code) - 1
    return index >= 0 and code <= _LATIN_RANGES[index][1]


def _is_token_char(char: str) -> bool:
    """``[\\p{L}\\p{N}\\p{M}\\p{Co}]``."""
    category = unicodedata.category(char)
    return category[0] in "LNM" or category == "Co"
