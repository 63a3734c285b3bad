"""The branch of a leaf kept in the index: the fast path of ``active_branch.active_branch``, so
a recall does not walk a whole session to learn its branch.

``recall_rebase_branches`` names a stored branch (a session and a leaf) with the facts the
queries use: the session's FTS rowid ranges and the runs of its rows off the branch, both up to
``top_rowid``; ``recall_rebase_off_branch`` holds the session's entry ids that are *not* on it
(few for a leaf on the main line; a branch entry is one of the session's that is not listed).
Like the stamps table they are ours, outside the migration ledger (docs/index.md, "Stored
branches").

A stored branch stays true while no row of its session is deleted or has its parent changed
(a trigger drops the session's branches then) and, when its walk ended at an id without a row,
that id stays absent.  New rows only add, and are off every stored branch (they cannot be an
ancestor of its leaf): ``prepare_branch`` lists the rows after ``top_rowid``, and moves a branch
to a new leaf that descends from it (Pi's append) or forks from it close by, walking only the
new part.  Anything else is built again inside SQLite, in memory that does not grow with it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Final

from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.primitives.textunits import encodes_as_utf8
from reference.recall.fts_rowids import MAX_FTS_RANGES, fts_rowid_ranges, runs_of_rowids
from reference.recall.index_schema import write_transaction
from reference.recall.model_facts import default_leaf_id

#: Stored branches per session (the least recently used goes first).
_KEPT_PER_SESSION: Final = 4
#: A walk to a stored branch longer than this builds the branch anew instead.
_MAX_EXTENSION_STEPS: Final = 20_000
#: SQLite's page cache while a branch is written (then given back, as the catch-up does).
_BUILD_CACHE_KIB: Final = 32 * 1024
#: Off-branch ids written in one ``executemany`` of a build.
_BATCH: Final = 4096

SCHEMA_SQL: Final = (
    """CREATE TABLE IF NOT EXISTS recall_rebase_branches (
  branch_no INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  leaf_id TEXT NOT NULL,
  stop_parent TEXT,
  cyclic INTEGER NOT NULL DEFAULT 0,
  top_rowid INTEGER NOT NULL,
  ranges TEXT NOT NULL,
  runs TEXT,
  used INTEGER NOT NULL,
  UNIQUE (session_id, leaf_id)
) STRICT""",
    """CREATE TABLE IF NOT EXISTS recall_rebase_off_branch (
  branch_no INTEGER NOT NULL,
  entry_id TEXT NOT NULL,
  PRIMARY KEY (branch_no, entry_id)
) STRICT, WITHOUT ROWID""",
    """CREATE TRIGGER IF NOT EXISTS recall_rebase_branches_after_delete AFTER DELETE ON recall_rebase_branches
BEGIN
  DELETE FROM recall_rebase_off_branch WHERE branch_no = old.branch_no;
END""",
    """CREATE TRIGGER IF NOT EXISTS recall_rebase_branches_entry_deleted AFTER DELETE ON entries
BEGIN
  DELETE FROM recall_rebase_branches WHERE session_id = old.session_id;
END""",
    """CREATE TRIGGER IF NOT EXISTS recall_rebase_branches_entry_changed
AFTER UPDATE OF session_id, entry_id, parent_id ON entries
WHEN old.session_id IS NOT new.session_id OR old.entry_id IS NOT new.entry_id OR old.parent_id IS NOT new.parent_id
BEGIN
  DELETE FROM recall_rebase_branches WHERE session_id IN (old.session_id, new.session_id);
END""",
)

_SELECT: Final = (
    "SELECT branch_no, stop_parent, top_rowid, ranges, runs FROM recall_rebase_branches"
    " WHERE session_id = ? AND leaf_id = ?"
)
_HAS_ENTRY: Final = "SELECT 1 FROM entries WHERE session_id = ? AND entry_id = ?"
_PARENT: Final = "SELECT parent_id FROM entries WHERE session_id = ? AND entry_id = ?"
_TABLE_TOP: Final = "SELECT coalesce(max(fts_rowid), 0) FROM entries_fts_keys"
_INSERT_OFF: Final = "INSERT OR IGNORE INTO recall_rebase_off_branch(branch_no, entry_id) VALUES (?, ?)"
_DELETE_OFF: Final = "DELETE FROM recall_rebase_off_branch WHERE branch_no = ? AND entry_id = ?"
_IS_OFF: Final = "SELECT 1 FROM recall_rebase_off_branch WHERE branch_no = ? AND entry_id = ?"


@dataclass(frozen=True)
class StoredBranch:
    """A current stored branch: its number, the session's FTS rowid ranges, and the runs of the
    session's rows off the branch (None: too many to name)."""

    branch_no: int
    ranges: tuple[tuple[int, int], ...]
    runs: tuple[tuple[int, int], ...] | None


def stored_leaf(leaf: Leaf) -> bool:
    """Whether a leaf can have a stored branch: Pi's default, or an id SQLite stores as it is."""
    return leaf is DEFAULT_LEAF or (isinstance(leaf, str) and encodes_as_utf8(leaf))


def prepare_branch(conn: sqlite3.Connection, session_id: str, leaf: Leaf) -> None:
    """Make the stored branch of the leaf current, in its own write transaction (before the
    recall's read snapshot; the connection must be outside any transaction)."""
    if _current_already(conn, session_id, leaf):
        return  # nothing to write: no write lock, no commit
    with write_transaction(conn, cache_kib=_BUILD_CACHE_KIB):  # a build writes ids in random order
        for statement in SCHEMA_SQL:
            conn.execute(statement)
        default = default_leaf_id(conn, session_id)
        leaf_id = default if leaf is DEFAULT_LEAF else leaf
        if isinstance(leaf_id, str):
            _make_current(conn, session_id, leaf_id, default)


def _current_already(conn: sqlite3.Connection, session_id: str, leaf: Leaf) -> bool:
    """Whether the leaf's stored branch is current and the last one used (read outside a
    transaction: ``prepare_branch`` then writes nothing, the snapshot checks again)."""
    try:
        leaf_id = default_leaf_id(conn, session_id) if leaf is DEFAULT_LEAF else leaf
        stored = load_branch(conn, session_id, leaf_id) if isinstance(leaf_id, str) else None
        return stored is not None and bool(conn.execute(
            "SELECT used = (SELECT max(used) FROM recall_rebase_branches) FROM recall_rebase_branches"
            " WHERE branch_no = ?", (stored.branch_no,)).fetchone()[0])
    except sqlite3.OperationalError:
        return False  # no such table yet


def load_branch(conn: sqlite3.Connection, session_id: str, leaf_id: str) -> StoredBranch | None:
    """The stored branch of the leaf if it is current in this snapshot; None: use the plain path."""
    try:
        row = conn.execute(_SELECT, (session_id, leaf_id)).fetchone()
    except sqlite3.OperationalError:
        return None  # no such table: an index no recall has prepared
    if row is None or not _still_true(conn, session_id, row[1]):
        return None
    if int(conn.execute(_TABLE_TOP).fetchone()[0]) != row[2] and conn.execute(
            "SELECT 1 FROM entry_filters AS f WHERE f.fts_rowid > ?"
            " AND f.session_no = (SELECT session_no FROM session_numbers WHERE session_id = ?) LIMIT 1",
            (row[2], session_id)).fetchone() is not None:
        return None  # rows of the session were added after it was prepared
    try:
        return StoredBranch(int(row[0]), _pairs(row[3]), None if row[4] is None else _pairs(row[4]))
    except (ValueError, TypeError):
        return None  # a damaged row of ours: the plain path (the next preparation drops it)


def _make_current(conn: sqlite3.Connection, session_id: str, leaf_id: str, default: Any) -> None:
    """Keep, move or build the branch of ``leaf_id``; the default leaf's branch is never moved
    to another leaf (a host asks for both in turn)."""
    stored: list[int] = []
    for branch_no, stop_parent, stored_leaf_id, ranges, runs in conn.execute(
        "SELECT branch_no, stop_parent, leaf_id, ranges, runs FROM recall_rebase_branches WHERE session_id = ?"
        " ORDER BY used DESC",
        (session_id,),
    ).fetchall():
        if not _reads_back(ranges, runs) or not _still_true(conn, session_id, stop_parent):
            conn.execute("DELETE FROM recall_rebase_branches WHERE branch_no = ?", (branch_no,))
            continue
        _add_new_rows(conn, session_id, branch_no)
        if stored_leaf_id != default or leaf_id == default:
            stored.append(branch_no)
    row = conn.execute(_SELECT, (session_id, leaf_id)).fetchone()
    if row is not None:
        _touch(conn, int(row[0]))
        return
    walked, met = _walk_up(conn, session_id, leaf_id, stored) if stored else ([], None)
    if met is not None and _move(conn, session_id, leaf_id, met, walked):
        return
    branch_no = _new_branch(conn, session_id, leaf_id)
    stop_parent, cyclic = _build_off_branch(conn, session_id, leaf_id, branch_no)
    top = int(conn.execute(_TABLE_TOP).fetchone()[0])
    conn.execute("UPDATE recall_rebase_branches SET stop_parent = ?, cyclic = ?, top_rowid = ?, ranges = ?"
                 " WHERE branch_no = ?",
                 (stop_parent, int(cyclic), top, json.dumps(fts_rowid_ranges(conn, session_id)), branch_no))
    _recount(conn, session_id, branch_no)


def _move(conn: sqlite3.Connection, session_id: str, leaf_id: str, met: tuple[int, str], ids: list[str]) -> bool:
    """Move the stored branch the walk met to the new leaf: its entries below the meeting point
    go off it (a fork), the walked ones come on.  False: the part below is too long to walk."""
    branch_no, meeting = met
    old_leaf, cyclic = conn.execute(
        "SELECT leaf_id, cyclic FROM recall_rebase_branches WHERE branch_no = ?", (branch_no,)).fetchone()
    dropped: list[str] = []
    if old_leaf != meeting:  # a fork
        if cyclic:
            return False  # the entries below may be above it too
        dropped, below = _walk_up(conn, session_id, old_leaf, [], stop_at=meeting)
        if below is None:
            return False
    conn.executemany(_INSERT_OFF, [(branch_no, entry_id) for entry_id in dropped])
    conn.executemany(_DELETE_OFF, [(branch_no, entry_id) for entry_id in ids])
    conn.execute("UPDATE recall_rebase_branches SET leaf_id = ? WHERE branch_no = ?", (leaf_id, branch_no))
    _recount(conn, session_id, branch_no)
    _touch(conn, branch_no)
    return True


def _new_branch(conn: sqlite3.Connection, session_id: str, leaf_id: str) -> int:
    """A new, empty branch row (the least recently used of the session's others goes)."""
    for (branch_no,) in conn.execute(
        "SELECT branch_no FROM recall_rebase_branches WHERE session_id = ? ORDER BY used DESC LIMIT -1 OFFSET ?",
        (session_id, _KEPT_PER_SESSION - 1),
    ).fetchall():
        conn.execute("DELETE FROM recall_rebase_branches WHERE branch_no = ?", (branch_no,))
    cursor = conn.execute(
        "INSERT INTO recall_rebase_branches(session_id, leaf_id, top_rowid, ranges, used) VALUES (?, ?, 0, '[]', 0)",
        (session_id, leaf_id),
    )
    assert cursor.lastrowid is not None
    _touch(conn, cursor.lastrowid)
    return cursor.lastrowid


def _recount(conn: sqlite3.Connection, session_id: str, branch_no: int) -> None:
    """The runs of the session's rows off the branch, from its list (stopped at too many)."""
    excluded = (rowid for (rowid,) in conn.execute(
        "SELECT k.fts_rowid FROM recall_rebase_off_branch AS o JOIN entries_fts_keys AS k"
        " ON k.entry_key = ? || o.entry_id WHERE o.branch_no = ? ORDER BY k.fts_rowid",
        (f"{session_id}:", branch_no)))
    runs = runs_of_rowids(conn, session_id, excluded, [])
    conn.execute("UPDATE recall_rebase_branches SET runs = ? WHERE branch_no = ?",
                 (None if runs is None else json.dumps(runs), branch_no))


def _add_new_rows(conn: sqlite3.Connection, session_id: str, branch_no: int) -> None:
    """List the session's rows after ``top_rowid`` (an append) off the branch, with the ranges
    and the runs widened to them."""
    top, ranges, runs = conn.execute(
        "SELECT top_rowid, ranges, runs FROM recall_rebase_branches WHERE branch_no = ?", (branch_no,)).fetchone()
    new_top = int(conn.execute(_TABLE_TOP).fetchone()[0])
    if new_top == top:
        return
    session_no = conn.execute("SELECT session_no FROM session_numbers WHERE session_id = ?", (session_id,)).fetchone()
    low, high = conn.execute(
        "SELECT min(fts_rowid), max(fts_rowid) FROM entry_filters WHERE fts_rowid > ? AND session_no = ?",
        (top, session_no[0] if session_no else None)).fetchone()
    widened = _pairs(ranges)
    new_runs: tuple[tuple[int, int], ...] | None = None if runs is None else _pairs(runs)
    if low is not None:
        conn.execute("INSERT OR IGNORE INTO recall_rebase_off_branch(branch_no, entry_id) SELECT ?, entry_id"
                     " FROM entry_filters WHERE fts_rowid > ? AND session_no = ?", (branch_no, top, session_no[0]))
        widened = _widened(widened, low, high, new_top)
        if new_runs is not None:
            rowids = (rowid for (rowid,) in conn.execute(
                "SELECT fts_rowid FROM entry_filters WHERE fts_rowid > ? AND session_no = ? ORDER BY fts_rowid",
                (top, session_no[0])))
            new_runs = runs_of_rowids(conn, session_id, rowids, list(new_runs))
    conn.execute("UPDATE recall_rebase_branches SET top_rowid = ?, ranges = ?, runs = ? WHERE branch_no = ?",
                 (new_top, json.dumps(widened), None if new_runs is None else json.dumps(new_runs), branch_no))


def _widened(ranges: tuple[tuple[int, int], ...], low: int, high: int, total: int) -> tuple[tuple[int, int], ...]:
    """The ranges with the new rows ``[low, high]``: the last range stretched over a narrow gap,
    else one range more; more than ``MAX_FTS_RANGES``: the two closest merge."""
    if not ranges:
        return ((low, high),)
    items = list(ranges)
    if low - items[-1][1] <= max(1, total // 40):
        items[-1] = (items[-1][0], high)
    else:
        items.append((low, high))
    while len(items) > MAX_FTS_RANGES:
        _gap, index = min((items[i + 1][0] - items[i][1], i) for i in range(len(items) - 1))
        items[index : index + 2] = [(items[index][0], items[index + 1][1])]
    return tuple(items)


def _touch(conn: sqlite3.Connection, branch_no: int) -> None:
    conn.execute(
        "UPDATE recall_rebase_branches SET used = (SELECT max(used) + 1 FROM recall_rebase_branches)"
        " WHERE branch_no = ?", (branch_no,))


def _still_true(conn: sqlite3.Connection, session_id: str, stop_parent: str | None) -> bool:
    """A walk that ended at an id without a row holds while that id has none."""
    return stop_parent is None or conn.execute(_HAS_ENTRY, (session_id, stop_parent)).fetchone() is None


def _reads_back(*texts: str | None) -> bool:
    """Whether a stored row's ranges and runs parse (one that does not is dropped)."""
    try:
        for text in texts:
            if text is not None:
                _pairs(text)
    except (ValueError, TypeError):
        return False
    return True


def _pairs(text: str) -> tuple[tuple[int, int], ...]:
    return tuple((int(low), int(high)) for low, high in json.loads(text))


def _walk_up(conn: sqlite3.Connection, session_id: str, leaf: str, stored: Iterable[int],
             stop_at: str | None = None) -> tuple[list[str], tuple[int, str] | None]:
    """The ids from ``leaf`` towards the root, leaf first, up to where the walk met an entry on one
    of the ``stored`` branches (every row of the session is classified for them) or ``stop_at``,
    and that meeting point ``(branch_no, id)`` (branch 0 for ``stop_at``); None: the walk ended
    (a root, a missing entry, a cycle) or passed ``_MAX_EXTENSION_STEPS`` rows first."""
    ids: list[str] = []
    seen: set[str] = set()
    branches = tuple(stored)
    node: Any = leaf
    while isinstance(node, str) and node not in seen:  # a cycle ends the walk, as Pi's does
        if node == stop_at:
            return ids, (0, node)
        row = conn.execute(_PARENT, (session_id, node)).fetchone()
        if row is None:
            break
        for branch_no in branches:
            if conn.execute(_IS_OFF, (branch_no, node)).fetchone() is None:
                return ids, (branch_no, node)
        if len(ids) >= _MAX_EXTENSION_STEPS:
            break
        seen.add(node)
        ids.append(node)
        node = row[0]
    return ids, None


def _build_off_branch(conn: sqlite3.Connection, session_id: str, leaf: str, branch_no: int) -> tuple[str | None, bool]:
    """Write the session's entries off the branch of ``leaf`` as rows of ``branch_no``; the first
    id on it without a row, and whether it ended in a cycle.  The rows are read newest first (Pi
    writes a parent before its child) and every one not wanted is written; any rest of the walk
    (a parent written after its child, a cycle) goes on one indexed row at a time."""
    bounds = conn.execute("SELECT min(rowid), max(rowid) FROM entries WHERE session_id = ?", (session_id,)).fetchone()
    if bounds[0] is None or conn.execute(_PARENT, (session_id, leaf)).fetchone() is None:
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
        row = conn.execute(_PARENT, (session_id, wanted)).fetchone()
        if row is None:
            return wanted, False
        if conn.execute(_IS_OFF, (branch_no, wanted)).fetchone() is None:
            return None, True  # on the branch already: a cycle
        conn.execute(_DELETE_OFF, (branch_no, wanted))
        wanted = row[0] if isinstance(row[0], str) else None
    return None, False


class SessionIds(AbstractSet[str]):
    """The entry ids of one session in the index, or of those on the stored branch ``branch_no``
    (with ``off``: its other entries), read when asked in the recall's one read snapshot: the set
    the eager query would have read, without holding every id in memory."""

    def __init__(self, conn: sqlite3.Connection, session_id: str, branch_no: int | None = None, *,
                 off: bool = False) -> None:
        self._conn = conn
        self._from = " FROM entries AS e WHERE e.session_id = ?"
        self._params: tuple[object, ...] = (session_id,)
        if branch_no is not None:
            self._from += (f" AND {'' if off else 'NOT '}EXISTS (SELECT 1 FROM recall_rebase_off_branch AS o"
                           " WHERE o.branch_no = ? AND o.entry_id = e.entry_id)")
            self._params += (branch_no,)

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and self._conn.execute(
            f"SELECT 1{self._from} AND e.entry_id = ?", (*self._params, value)).fetchone() is not None

    def __iter__(self) -> Iterator[str]:
        return (entry_id for (entry_id,) in self._conn.execute(f"SELECT e.entry_id{self._from}", self._params))

    def __len__(self) -> int:
        return int(self._conn.execute(f"SELECT count(*){self._from}", self._params).fetchone()[0])
