"""Pi's default leaf of a session (the last entry in file order) read from the index: the one
leaf a host asks for most, so the stored branch (``branch_store``) and the walk
(``active_branch``) both start from here.
"""

from __future__ import annotations

import json
import sqlite3
from typing import IO, Any, Final

from reference.pi.exact.reader import open_session_file
from reference.primitives.textunits import encodes_as_utf8
from reference.recall.model_facts import sealed_default_leaf

#: The default leaf is read from the file's last line when that line is at most this long.
_LAST_LINE_LIMIT: Final = 16 * 1024 * 1024
_BLOCK: Final = 64 * 1024


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
