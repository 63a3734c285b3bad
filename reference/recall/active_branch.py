"""The active branch of a session as one recall sees it: Pi's ``getBranch()`` of the leaf as a
set, read from the index (contract §2.5 step 1).  One function callers use, :func:`active_branch`.

Its fast path is the branch kept in the index (``branch_store``; made current by
:func:`keep_branch` before the recall's read snapshot): the ids are read lazily in the snapshot
and the session's rows off the branch are already FTS rowid runs.  Without a current stored
branch (a leaf SQLite cannot store as it is, an index that cannot be written, a row of ours that
does not read back) the branch is SQLite's recursive walk (:func:`branch_ids`).  Both are tested
against Pi's own walk of the session file read by the exact reader
(``tests/recall/test_branch_store.py``, ``tests/oracle/test_branch_store_on_pi.py``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.primitives.sqlite_errors import is_damage
from reference.recall.branch_store import SessionIds, load_branch, prepare_branch, stored_leaf
from reference.recall.model_facts import default_leaf_id
from reference.recall.retrieval import SourceEntries


def keep_branch(conn: sqlite3.Connection, session_id: str, leaf: Leaf) -> None:
    """Make the stored branch of the leaf current (its own write transaction, outside the
    recall's snapshot); when the index cannot be written (read only, locked) or the leaf cannot
    be stored, :func:`active_branch` walks instead."""
    if leaf is None or not stored_leaf(leaf):
        return
    try:
        prepare_branch(conn, session_id, leaf)
    except sqlite3.Error as error:
        if is_damage(error):
            raise


def active_branch(conn: sqlite3.Connection, session_id: str, leaf: Leaf) -> SourceEntries:
    """Pi's branch of ``leaf`` (an entry id, None, or Pi's default leaf) in the session's rows,
    read in the caller's snapshot, as the entries a source may see: the branch's, the session's
    others excluded, their FTS rowid runs (None: too many to name, or walked), and when stored,
    the stored branch and the session's FTS rowid ranges."""
    stored = _stored(conn, session_id, leaf)
    if stored is not None:
        return stored
    ids = frozenset(branch_ids(conn, session_id, leaf))
    off = frozenset(entry_id for entry_id in all_ids(conn, session_id) if entry_id not in ids)
    return SourceEntries(session_id, ids, off, excluded_runs=None if off else ())


def _stored(conn: sqlite3.Connection, session_id: str, leaf: Leaf) -> SourceEntries | None:
    """The stored branch of the leaf when it is current in this snapshot; None: walk."""
    if leaf is None or not stored_leaf(leaf):
        return None
    leaf_id = default_leaf_id(conn, session_id) if leaf is DEFAULT_LEAF else leaf
    stored = load_branch(conn, session_id, leaf_id) if isinstance(leaf_id, str) else None
    if stored is None:
        return None
    ids = SessionIds(conn, session_id, stored.branch_no)
    off = SessionIds(conn, session_id, stored.branch_no, off=True)
    return SourceEntries(session_id, ids, off, stored.ranges, stored.runs, stored.branch_no)


def branch_ids(conn: sqlite3.Connection, session_id: str, leaf: Any) -> list[str]:
    """Pi's ``getBranch()`` from the index: the leaf and its ancestors, root first.

    Any leaf value, compared by SQLite's rules: the walk of :func:`active_branch` when the index
    holds no current stored branch of the leaf.
    """
    if leaf is DEFAULT_LEAF:
        leaf = default_leaf_id(conn, session_id)
    if leaf is None:
        return []
    rows = conn.execute(  # UNION: a parent cycle ends where it meets an entry again
        "WITH RECURSIVE walk(entry_id, parent_id) AS ("
        " SELECT entry_id, parent_id FROM entries WHERE session_id = ?1 AND entry_id = ?2"
        " UNION"
        " SELECT e.entry_id, e.parent_id FROM entries e JOIN walk"
        " ON e.session_id = ?1 AND e.entry_id = walk.parent_id"
        ") SELECT entry_id FROM walk LIMIT 10000001",
        (session_id, leaf),
    ).fetchall()
    seen: list[str] = []
    visited: set[str] = set()
    for (entry_id,) in rows:
        if entry_id in visited:  # a parent cycle: stop, as the tree module does
            break
        visited.add(entry_id)
        seen.append(entry_id)
    seen.reverse()
    return seen


def all_ids(conn: sqlite3.Connection, session_id: str) -> list[str]:
    return [row[0] for row in conn.execute("SELECT entry_id FROM entries WHERE session_id = ?", (session_id,))]
