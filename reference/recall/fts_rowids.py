"""FTS rowid ranges and runs of one session: facts that only make recall's queries cheaper.

``fts_rowid_ranges`` bounds the FTS query to the parts of the term lists that hold a session's
rows; ``runs_of_rowids`` names a stored branch's excluded entries as a few rowid runs instead of
a list of ids (``retrieval.retrieve``).  Each gives the same rows as the plain form it replaces (the
runs' oracle: ``tests/testkit/retrieval_oracle.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Final

#: The excluded entries of a branch go to SQL as FTS rowid runs when they form at most this many.
MAX_EXCLUDED_RUNS: Final = 32
#: ... and when finding them takes at most this many checks of a gap between excluded rowids.
_MAX_GAP_CHECKS: Final = 256
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


def runs_of_rowids(conn: sqlite3.Connection, session_id: str, rowids: Iterable[int],
                   runs: list[tuple[int, int]]) -> tuple[tuple[int, int], ...] | None:
    """``runs`` (the runs of the excluded rows up to some rowid) continued with the excluded
    rowids after it, in ascending order: two excluded rows share a run when no key of the session
    lies between them (one there is a branch row's).  None: too many runs or gaps to check."""
    prefix, end = f"{session_id}:", f"{session_id};"
    start = previous = None
    if runs:
        start, previous = runs.pop()
    checks = 0
    for rowid in rowids:
        if previous is None or start is None:
            start = previous = rowid
            continue
        if rowid != previous + 1:
            checks += 1
            if checks > _MAX_GAP_CHECKS:
                return None
            between = conn.execute(
                "SELECT 1 FROM entries_fts_keys WHERE fts_rowid > ? AND fts_rowid < ?"
                " AND entry_key >= ? AND entry_key < ? LIMIT 1",
                (previous, rowid, prefix, end),
            ).fetchone()
            if between is not None:
                runs.append((start, previous))
                if len(runs) >= MAX_EXCLUDED_RUNS:
                    return None
                start = rowid
        previous = rowid
    if start is not None and previous is not None:
        runs.append((start, previous))
    return tuple(runs)
