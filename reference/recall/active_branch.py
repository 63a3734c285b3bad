"""The active branch of a session as one recall sees it: Pi's ``getBranch()`` of the leaf as a
set, read from the index (contract §2.5 step 1).  One function callers use, :func:`active_branch`.

Its fast path is the branch kept in the index (``branch_store``; made current by
:func:`keep_branch` before the recall's read snapshot): the ids are read lazily in the snapshot
and the session's rows off the branch are already FTS rowid runs.  Without a current stored
branch (a leaf SQLite cannot store as it is, an index that cannot be written, a row of ours that
does not read back) the branch is SQLite's recursive walk (``branch_sets.branch_ids``).  Both
are tested against Pi's own walk of the session file read by the exact reader
(``tests/recall/test_branch_store.py``, ``tests/oracle/test_branch_store_on_pi.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.primitives.sqlite_errors import is_damage
from reference.recall.branch_sets import all_ids, branch_ids, default_leaf_id
from reference.recall.branch_store import (
    BranchIds,
    OffBranchIds,
    forget_branches,
    load_branch,
    prepare_branch,
    stored_leaf,
)
from reference.recall.fts_rowids import session_runs


@dataclass(frozen=True)
class ActiveBranch:
    """The branch's entry ids, the session's other entries, the FTS rowid runs of those (None:
    too many to name, or not asked for), and the stored branch read (None: walked)."""

    ids: AbstractSet[str]
    off: AbstractSet[str]
    off_runs: tuple[tuple[int, int], ...] | None
    branch_no: int | None = None
    ranges: tuple[tuple[int, int], ...] | None = None  # the session's FTS rowid ranges, when stored


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
    except (ValueError, TypeError):  # a stored row of ours that does not read back
        try:
            forget_branches(conn, session_id)
        except sqlite3.Error as error:
            if is_damage(error):
                raise


def active_branch(conn: sqlite3.Connection, session_id: str, leaf: Leaf, *, runs: bool = True) -> ActiveBranch:
    """Pi's branch of ``leaf`` (an entry id, None, or Pi's default leaf) in the session's rows,
    read in the caller's snapshot; ``runs``: name the rows off it as FTS rowid runs."""
    stored = _stored(conn, session_id, leaf)
    if stored is not None:
        return stored
    ids = frozenset(branch_ids(conn, session_id, leaf))
    off = frozenset(entry_id for entry_id in all_ids(conn, session_id) if entry_id not in ids)
    return ActiveBranch(ids, off, session_runs(conn, session_id, ids, off) if runs else None)


def _stored(conn: sqlite3.Connection, session_id: str, leaf: Leaf) -> ActiveBranch | None:
    """The stored branch of the leaf when it is current in this snapshot; None: walk."""
    if leaf is None or not stored_leaf(leaf):
        return None
    leaf_id = default_leaf_id(conn, session_id) if leaf is DEFAULT_LEAF else leaf
    if not isinstance(leaf_id, str):
        return None
    stored = load_branch(conn, session_id, leaf_id)
    if stored is None:
        return None
    off = OffBranchIds(conn, stored.branch_no)
    return ActiveBranch(BranchIds(conn, session_id, off), off, stored.runs, stored.branch_no, stored.ranges)
