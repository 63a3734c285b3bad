"""Designs of project recall's FTS pass, each timed beside FTS5's floor in the same child (issue 29).

    python bench/run.py history --recall-only project --designs     # the 1 GB project
    python bench/run.py history --scale 0.05 --recall-only project --designs

Issue 29 asks project recall's p95 to be at most 1.5x FTS5's own ``ORDER BY bm25 LIMIT 72`` of
the same queries on the same index, and asks for a better design than per-query SQL to be
measured if one exists.  Every design here gives (or bounds) what the contract needs of the FTS
pass: each session's 72 best rows by ``bm25``, then ``created_at DESC``, then ``entry_id``, among
its rows that pass the filters (the default types: messages and custom messages), every session
of the project at once.  Each is timed in CPU seconds of this process (the figure a loaded
machine does not move), the median of ``rounds`` runs, for every query, beside the floor:

floor          the bare ``SELECT rowid ... ORDER BY bm25 LIMIT 72`` (what the ratio divides by);
bm25 of every  ``bm25`` of every match, nothing kept: the share of the floor that is scoring;
filtered       the same, each match joined to its ``entry_filters`` row (session, type) and the
               type filter applied: what any design pays before it can keep a row per session;
shipped        ``reference.recall.candidate_rows.fts_rows_by_session``, the code a recall runs:
               matches into a temporary table keyed by session and rowid, a window per session,
               the chosen rows joined to ``entries``;
rank-only      the issue's "rank-only first pass with an exact tie-break pass": ``shipped``
               (its filters, session list and rows) keeping only ``(session, bm25, rowid)`` per
               match, then per session only the rows at or under its 72nd bm25 joined to their
               filter rows for the exact tie-break;
append bound   the matches (session, bm25, rowid) appended to a table with no key: a bound under
               every design that keeps the matches in SQL (no window can be read from it yet);
no-join bound  ``bm25`` and ``rowid >> 20`` appended with no filter join: the bound if the session
               and type were encoded in the FTS rowid (a schema change), still with no window.

Figures, never assertions: the floor of the ratio is measured, not assumed.
"""

from __future__ import annotations

import math
import sqlite3
import statistics
import time
from collections.abc import Callable
from typing import Any, Final

#: The floor's LIMIT and every design's window: the candidate window of a 12-result recall
#: (``reference.recall.retrieval.candidate_window``).
FLOOR_TOP: Final = 72
#: The floor of issue 29, the same statement ``bench/history.py`` times beside each project recall.
FLOOR_SQL: Final = f"SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY bm25(entries_fts) LIMIT {FLOOR_TOP}"
_MATCH: Final = ("FROM entries_fts CROSS JOIN entry_filters AS f ON f.fts_rowid = entries_fts.rowid"
                 " WHERE entries_fts MATCH ? AND f.type_code IN (1, 2)")
_TABLE: Final = "bench_fts_design"
DESIGNS: Final = ("floor", "bm25 of every", "filtered", "shipped", "rank-only", "append bound", "no-join bound")


def _count(conn: sqlite3.Connection, sql: str, match: str) -> int:
    return int(conn.execute(f"SELECT count(*) FROM ({sql} LIMIT -1)", (match,)).fetchone()[0])


def _in_savepoint(conn: sqlite3.Connection, body: Callable[[], int]) -> int:
    conn.execute(f"SAVEPOINT {_TABLE}")
    try:
        return body()
    finally:
        conn.execute(f"ROLLBACK TO {_TABLE}")
        conn.execute(f"RELEASE {_TABLE}")


def _shipped(conn: sqlite3.Connection, sessions: list[str], match: str) -> int:
    from reference.recall.candidate_rows import RowSearch, fts_rows_by_session

    return len(fts_rows_by_session(conn, sessions, RowSearch(match, *_filters(), FLOOR_TOP)))


def _rank_only(conn: sqlite3.Connection, sessions: list[str], match: str) -> int:
    """``shipped`` with a rank-only first pass: its filters, its session list, its rows."""
    import json

    from reference.recall import candidate_rows as rows

    where, params = _filters()

    def body() -> int:
        conn.execute(f"CREATE TEMP TABLE {_TABLE}(session_no, rank, fts_rowid, PRIMARY KEY (session_no, fts_rowid))"
                     " WITHOUT ROWID")
        conn.execute(f"INSERT INTO temp.{_TABLE} SELECT session_no, lexical_rank, fts_rowid FROM ({rows._MATCHES}"
                     " AND f.session_no IN (SELECT n.session_no FROM session_numbers AS n"
                     f" WHERE n.session_id IN (SELECT value FROM json_each(?))){where})",
                     [match, json.dumps(sessions), *params])
        window = (f"SELECT {rows._COLUMNS} FROM (SELECT m.fts_rowid AS fts_rowid, m.rank AS lexical_rank,"
                  f" f.created_at AS created_at, f.entry_id AS entry_id FROM temp.{_TABLE} AS m"
                  " CROSS JOIN entry_filters AS f ON f.fts_rowid = m.fts_rowid WHERE m.session_no = ?1"
                  f" AND m.rank <= IFNULL((SELECT c.rank FROM temp.{_TABLE} AS c WHERE c.session_no = ?1"
                  f" ORDER BY c.rank LIMIT 1 OFFSET {FLOOR_TOP - 1}), 9e999)"
                  f" ORDER BY m.rank, f.created_at DESC, f.entry_id LIMIT {FLOOR_TOP}) AS top{rows._TO_ENTRIES}"
                  " ORDER BY top.lexical_rank, top.created_at DESC, top.entry_id")
        kept = 0
        for (number,) in conn.execute("SELECT n.session_no FROM json_each(?) AS j JOIN session_numbers AS n"
                                      " ON n.session_id = j.value ORDER BY j.key", (json.dumps(sessions),)).fetchall():
            kept += len([rows._row(values) for values in conn.execute(window, (number,))])
        return kept
    return _in_savepoint(conn, body)


def _filters() -> tuple[str, list[Any]]:
    """The recall's default filters on the filter row (whole sessions, messages and custom messages)."""
    from reference.recall.candidate_rows import RetrievalQuery, RowScope, filter_clauses
    from reference.recall.query_terms import describe_query

    return filter_clauses(RowScope(negate=True), RetrievalQuery(terms=describe_query("x")))


def _appended(conn: sqlite3.Connection, select: str, match: str) -> int:
    def body() -> int:
        conn.execute(f"CREATE TEMP TABLE {_TABLE}(session_no, rank, fts_rowid)")
        return conn.execute(f"INSERT INTO temp.{_TABLE} {select}", (match,)).rowcount
    return _in_savepoint(conn, body)


def work_designs(params: dict[str, Any]) -> dict[str, Any]:
    """Per query with terms: each design's CPU and wall milliseconds (median of ``rounds``) and
    the rows it gave; the child of ``bench/run.py history --designs``."""
    from reference.recall.candidate_rows import fts_match_expression
    from reference.recall.query_terms import describe_query

    conn = sqlite3.connect(f"file:{params['db']}?mode=ro", uri=True, isolation_level=None)  # temp tables only
    sessions = [row[0] for row in conn.execute("SELECT session_id FROM session_numbers ORDER BY session_no")]
    runs: dict[str, Callable[[str], int]] = {
        "floor": lambda match: len(conn.execute(FLOOR_SQL, (match,)).fetchall()),
        "bm25 of every": lambda match: _count(conn, "SELECT bm25(entries_fts) FROM entries_fts WHERE entries_fts"
                                                   " MATCH ?", match),
        "filtered": lambda match: _count(conn, f"SELECT f.session_no, bm25(entries_fts) {_MATCH}", match),
        "shipped": lambda match: _shipped(conn, sessions, match),
        "rank-only": lambda match: _rank_only(conn, sessions, match),
        "append bound": lambda match: _appended(conn, f"SELECT f.session_no, bm25(entries_fts), f.fts_rowid {_MATCH}",
                                                match),
        "no-join bound": lambda match: _appended(conn, "SELECT rowid >> 20, bm25(entries_fts), rowid FROM entries_fts"
                                                       " WHERE entries_fts MATCH ?", match),
    }
    queries = []
    for query in params["queries"]:
        match = fts_match_expression(describe_query(query).terms)
        if not match:
            continue
        row: dict[str, Any] = {"query": query}
        for name in DESIGNS:
            cpu, wall, rows = [], [], 0
            for _ in range(max(1, params["rounds"])):
                started, began = time.process_time(), time.perf_counter()
                rows = runs[name](match)
                cpu.append((time.process_time() - started) * 1000)
                wall.append((time.perf_counter() - began) * 1000)
            row[name] = {"cpu_ms": statistics.median(cpu), "wall_ms": statistics.median(wall), "rows": rows}
        queries.append(row)
    conn.close()
    return {"queries": queries, "sessions": len(sessions)}


def summary(designs: dict[str, Any]) -> dict[str, float]:
    """Each design's CPU time over the floor's on the query whose floor is highest (the broadest:
    the one the p95 of a recall is made of)."""
    if not designs["queries"]:
        return {name: math.nan for name in DESIGNS}
    broadest = max(designs["queries"], key=lambda row: row["floor"]["cpu_ms"])
    floor = broadest["floor"]["cpu_ms"]
    return {name: broadest[name]["cpu_ms"] / floor if floor else math.nan for name in DESIGNS}  # nothing matched


def render(designs: dict[str, Any]) -> list[str]:
    lines = [f"designs of the FTS pass over {designs['sessions']} sessions: CPU ms, median of the rounds"
             " (the ratio is to the floor of the same query)"]
    lines.append(f"  {'query':<36}" + "".join(f"{name:>15}" for name in DESIGNS))
    for row in sorted(designs["queries"], key=lambda row: -row["floor"]["cpu_ms"]):
        lines.append(f"  {row['query'][:34]:<36}" + "".join(f"{row[name]['cpu_ms']:>15,.0f}" for name in DESIGNS))
    ratios = summary(designs)
    lines.append(f"  {'broadest query, x floor':<36}" + "".join(f"{ratios[name]:>14.2f}x" for name in DESIGNS))
    return lines
