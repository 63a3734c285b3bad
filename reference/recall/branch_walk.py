"""Pi's ``getBranch()`` walked inside SQLite, with memory that does not grow with the session.

The stored branch's own walks (``active_branch`` walks with SQLite's recursive query when no
stored branch is current).  The session's entries *off* the branch (usually few: the main line
is most of a session) go straight into ``recall_rebase_off_branch`` (``branch_store``): a full build reads the
session's rows newest first (Pi appends a child after its parent, so the one id still wanted is
usually met further down the scan) and writes every other row it passes; any rest of the walk (a
parent written after its child, a cycle) goes on one indexed row at a time.  A short walk
(``walk_up``) serves the move of a stored branch after an append.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

_BATCH: Final = 4096
_INSERT_OFF: Final = "INSERT OR IGNORE INTO recall_rebase_off_branch(branch_no, entry_id) VALUES (?, ?)"
_IS_OFF: Final = "SELECT 1 FROM recall_rebase_off_branch WHERE branch_no = ? AND entry_id = ?"
_STEP: Final = """
SELECT e.parent_id, k.fts_rowid FROM entries AS e LEFT JOIN entries_fts_keys AS k ON k.entry_key = e.entry_key
WHERE e.session_id = ? AND e.entry_id = ?
"""


@dataclass
class Walk:
    """Ids met leaf first, and why the walk stopped: ``stop_parent`` is the first id on it with no
    row (the walk would go on if that entry appeared); None: a root, a cycle, or not finished."""

    ids: list[str] = field(default_factory=list)
    rowids: list[int | None] = field(default_factory=list)
    stop_parent: str | None = None
    met: tuple[int, str] | None = None  # (branch_no, id) of the stored branch the walk reached
    finished: bool = False
    cyclic: bool = False  # it ended where it had passed before


def walk_up(conn: sqlite3.Connection, session_id: str, leaf: str, stored: Iterable[int], max_steps: int,
            stop_at: str | None = None) -> Walk:
    """Walk from ``leaf`` towards the root until a root, a missing entry, a cycle, an entry on
    one of the ``stored`` branches (every row of the session is classified for them) or
    ``stop_at`` (``met``; branch 0 for ``stop_at``), or ``max_steps`` rows (not ``finished``)."""
    walk = Walk()
    seen: set[str] = set()
    branches = tuple(stored)
    node: str | None = leaf
    while node is not None:
        if node in seen:  # a cycle: the walk ends, as Pi's does
            walk.cyclic = True
            break
        if node == stop_at:
            walk.met = (0, node)
            walk.finished = True
            return walk
        row = conn.execute(_STEP, (session_id, node)).fetchone()
        if row is None:
            walk.stop_parent = node
            break
        for branch_no in branches:
            if conn.execute(_IS_OFF, (branch_no, node)).fetchone() is None:
                walk.met = (branch_no, node)
                walk.finished = True
                return walk
        if len(walk.ids) >= max_steps:
            return walk
        seen.add(node)
        walk.ids.append(node)
        walk.rowids.append(row[1])
        parent = row[0]
        node = parent if isinstance(parent, str) else None
    walk.finished = True
    return walk


def build_off_branch(conn: sqlite3.Connection, session_id: str, leaf: str, branch_no: int) -> tuple[str | None, bool]:
    """Write the session's entries off the branch of ``leaf`` as rows of ``branch_no``; its
    ``stop_parent``, and whether it ended in a cycle."""
    bounds = conn.execute("SELECT min(rowid), max(rowid) FROM entries WHERE session_id = ?", (session_id,)).fetchone()
    if bounds[0] is None or conn.execute(_STEP, (session_id, leaf)).fetchone() is None:
        conn.execute("INSERT OR IGNORE INTO recall_rebase_off_branch(branch_no, entry_id)"
                     " SELECT ?, entry_id FROM entries WHERE session_id = ? ORDER BY entry_id", (branch_no, session_id))
        return leaf, False  # no such entry: an empty branch, until it appears
    wanted: str | None = leaf
    batch: list[tuple[int, str]] = []
    rows = conn.execute(  # "+": the rowid order, not the (session_id, entry_id) index and a sort
        "SELECT rowid, entry_id, parent_id FROM entries WHERE rowid BETWEEN ? AND ? AND +session_id = ?"
        " ORDER BY rowid DESC",
        (bounds[0], bounds[1], session_id),
    )
    for rowid, entry_id, parent_id in rows:
        if entry_id != wanted:
            batch.append((branch_no, entry_id))
            if len(batch) >= _BATCH:
                conn.executemany(_INSERT_OFF, batch)
                batch.clear()
            continue
        wanted = parent_id if isinstance(parent_id, str) else None
        if wanted is None:  # the root: every row before it is off the branch
            conn.execute("INSERT OR IGNORE INTO recall_rebase_off_branch(branch_no, entry_id) SELECT ?, entry_id"
                         " FROM entries WHERE rowid >= ? AND rowid < ? AND +session_id = ?",
                         (branch_no, bounds[0], rowid, session_id))
            break
    conn.executemany(_INSERT_OFF, batch)
    while wanted is not None:  # a parent after its child in the file, or a cycle: row by row
        row = conn.execute(_STEP, (session_id, wanted)).fetchone()
        if row is None:
            return wanted, False
        if conn.execute(_IS_OFF, (branch_no, wanted)).fetchone() is None:
            return None, True  # on the branch already: a cycle
        conn.execute("DELETE FROM recall_rebase_off_branch WHERE branch_no = ? AND entry_id = ?", (branch_no, wanted))
        wanted = row[0] if isinstance(row[0], str) else None
    return None, False
