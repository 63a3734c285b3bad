"""A session's rows in the index as a branch needs them (contract §2.5 step 1; Pi's
``getBranch()``): Pi's default leaf, the branch walked by SQLite's recursive query, every id, and
the session's FTS rowid ranges, which a host process remembers between calls while the
session's fingerprint holds (the index incarnation and the stored index state, of which the rows
are a projection).  ``active_branch`` is the one function a scope asks for a branch.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import OrderedDict
from dataclasses import dataclass
from typing import IO, Any, Final

from reference.pi.exact.reader import open_session_file
from reference.pi.leaf import DEFAULT_LEAF
from reference.primitives.platform_ops.identity import file_identity
from reference.primitives.textunits import encodes_as_utf8
from reference.recall.fts_rowids import fts_rowid_ranges
from reference.recall.model_facts import sealed_default_leaf

#: Sessions whose FTS rowid ranges are remembered.
_KNOWN_SESSIONS: Final = 1024
#: The default leaf is read from the file's last line when that line is at most this long.
_LAST_LINE_LIMIT: Final = 16 * 1024 * 1024
_BLOCK: Final = 64 * 1024
_STATE_FINGERPRINT: Final = """
SELECT session_file, header_hash, file_size, file_mtime_ns, checkpoint_offset, checkpoint_hash_start,
       checkpoint_hash, indexed_entries, malformed_lines, tail_unterminated
FROM session_index_state WHERE session_id = ?
"""


@dataclass
class KnownSession:
    """What one session's rows gave, valid while its fingerprint (index incarnation and stored
    index state) stays the same: the rows are a projection of the file that state describes."""

    fingerprint: tuple[Any, ...]
    fts_ranges: tuple[tuple[int, int], ...] | None = None


class SessionSets:
    """The remembered sets of up to 1024 sessions, least recently used first out."""

    def __init__(self) -> None:
        self._known: OrderedDict[str, KnownSession] = OrderedDict()

    def forget(self, session_id: str) -> None:
        """The session's rows were rebuilt: nothing remembered of them holds."""
        self._known.pop(session_id, None)

    def known(self, conn: sqlite3.Connection, session_id: str, incarnation: Any) -> KnownSession | None:
        """The remembered sets of a session while its fingerprint holds; None: do not remember."""
        row = conn.execute(_STATE_FINGERPRINT, (session_id,)).fetchone()
        if row is None or incarnation is None:
            self._known.pop(session_id, None)
            return None
        fingerprint = (incarnation, *row)
        known = self._known.get(session_id)
        if known is None or known.fingerprint != fingerprint:
            known = self._known[session_id] = KnownSession(fingerprint)
        self._known.move_to_end(session_id)
        while len(self._known) > _KNOWN_SESSIONS:
            self._known.popitem(last=False)
        return known


def session_fts_ranges(
    conn: sqlite3.Connection, session_id: str, known: KnownSession | None
) -> tuple[tuple[int, int], ...]:
    """The session's FTS rowid ranges, remembered with its sets."""
    if known is None:
        return fts_rowid_ranges(conn, session_id)
    if known.fts_ranges is None:
        known.fts_ranges = fts_rowid_ranges(conn, session_id)
    return known.fts_ranges


def index_incarnation(conn: sqlite3.Connection, index_path: str) -> Any:
    """Which database this is: its file and when its first migration ran (None: unknown).

    A deleted and recreated index has other FTS rowids for the same files; this tells them apart.
    """
    try:
        info = os.stat(index_path)
    except OSError:
        return None
    row = conn.execute("SELECT applied_at FROM schema_migrations WHERE version = 1").fetchone()
    return None if row is None else (*file_identity(info), row[0])


def default_leaf_id(conn: sqlite3.Connection, session_id: str) -> Any:
    """Pi's default leaf: the last entry in file order; None when the session has none.

    The catch-up's seal records it (:func:`reference.recall.model_facts.sealed_default_leaf`);
    without a seal that proves it, the entry of the last indexed line when the index holds one
    whose line ends at the state's checkpoint (nothing indexed follows it): its id read from the
    file's last line, checked against the index; else the entry with the greatest offset (a
    query over the session)."""
    sealed = sealed_default_leaf(conn, session_id)
    if sealed is not None:
        return sealed[0]
    leaf = _last_line_leaf(conn, session_id)
    if leaf is not None:
        return leaf
    row = conn.execute(
        "SELECT e.entry_id FROM entries e JOIN entry_source_locations l ON l.entry_key = e.entry_key "
        "WHERE e.session_id = ? ORDER BY l.start_offset DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return None if row is None else row[0]


def _last_line_leaf(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The id of the entry of the last indexed line, or None (not known so): the line that ends
    at the checkpoint, or, after an unterminated tail (indexed when it is a whole entry), the tail
    that starts there; either checked against the entry's stored locator."""
    state = conn.execute(
        "SELECT session_file, checkpoint_offset, file_size, tail_unterminated FROM session_index_state"
        " WHERE session_id = ?", (session_id,)
    ).fetchone()
    if state is None or not isinstance(state[0], str) or not all(isinstance(value, int) for value in state[1:]):
        return None
    path, checkpoint, size, unterminated = state
    try:
        with open_session_file(path) as raw:
            if unterminated:  # the tail's entry, or nothing known (it may be indexed, unread here)
                if not 0 < size - checkpoint <= _LAST_LINE_LIMIT:
                    return None
                raw.seek(checkpoint)
                tail = raw.read(size - checkpoint)
                return _checked(conn, session_id, tail, "l.start_offset", checkpoint)
            if checkpoint <= 0:
                return None
            return _checked(conn, session_id, _line_before(raw, checkpoint), "l.end_offset", checkpoint)
    except (OSError, ValueError, RecursionError):
        return None


def _checked(conn: sqlite3.Connection, session_id: str, line: bytes | None, column: str, offset: int) -> str | None:
    """The line's entry id when the index holds that entry at ``offset`` (its start or end)."""
    value = json.loads(line) if line is not None else None
    entry_id = value.get("id") if isinstance(value, dict) else None
    if not isinstance(entry_id, str) or not encodes_as_utf8(entry_id):
        return None
    row = conn.execute(
        "SELECT 1 FROM entries e JOIN entry_source_locations l ON l.entry_key = e.entry_key"
        f" WHERE e.session_id = ? AND e.entry_id = ? AND {column} = ?",
        (session_id, entry_id, offset),
    ).fetchone()
    return entry_id if row is not None else None


def _line_before(raw: IO[bytes], end: int) -> bytes | None:
    """The line that ends with its LF at ``end``, read backwards in blocks; None: no such line,
    or longer than ``_LAST_LINE_LIMIT``."""
    position, size = end, _BLOCK
    while position > 0 and size <= 2 * _LAST_LINE_LIMIT:
        position = max(0, end - size)
        size *= 2
        raw.seek(position)
        data = raw.read(end - position)
        if not data.endswith(b"\n") or len(data) != end - position:
            return None
        cut = data.rfind(b"\n", 0, len(data) - 1)
        if cut >= 0 or position == 0:
            return data[cut + 1 : -1]
    return None


def branch_ids(conn: sqlite3.Connection, session_id: str, leaf: Any) -> list[str]:
    """Pi's ``getBranch()`` from the index: the leaf and its ancestors, root first.

    Any leaf value, compared by SQLite's rules: the walk of ``active_branch`` when the index
    holds no current stored branch of the leaf.
    """
    if leaf is None:
        return []
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
