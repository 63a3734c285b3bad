"""What the index remembers of a session file between catch-ups (``session_index_state``) and
the full-rebuild triggers read from it, in the order of contract §5.1.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from dataclasses import astuple, dataclass, fields
from typing import IO, Any, Final

from reference.primitives.platform_ops.identity import change_stamp
from reference.recall.catchup_source import OpenSession

CHECKPOINT_HASH_BYTES: Final = 64 * 1024
# Full-rebuild reasons, checked in this order (contract §5.1), plus the append-only violation.
REASON_FORCED: Final = "forced"
REASON_INITIAL: Final = "initial-index"
REASON_LOCATORS_MISSING: Final = "source-locator-projection-missing"
REASON_PATH_CHANGED: Final = "session-file-path-changed"
REASON_HEADER_CHANGED: Final = "header-changed"
REASON_SHRANK: Final = "file-shrank"
REASON_CHANGED_IN_PLACE: Final = "changed-in-place"
REASON_GREW_AFTER_TORN_TAIL: Final = "grew-after-unterminated-tail"
REASON_CHECKPOINT_HASH_MISSING: Final = "checkpoint-hash-missing"
REASON_CHECKPOINT_MISMATCH: Final = "checkpoint-mismatch"
REASON_APPEND_ONLY_VIOLATION: Final = "append-only-violation"
#: Ours (issue 12, D15): the state counts more rows than the index holds (deleted or lost).
REASON_ROWS_MISSING: Final = "index-rows-missing"
#: Ours (issue 12, D15): same size and mtime, but another file or other bytes (``cp -p``).
REASON_FILE_STAMP_CHANGED: Final = "file-stamp-changed"
_SELECT_STAMP: Final = "SELECT stamp FROM recall_rebase_file_stamps WHERE session_id = ?"
_LOCATOR_MISSING: Final = """
SELECT 1 FROM entries AS e
WHERE e.session_id = ?
  AND NOT EXISTS (SELECT 1 FROM entry_source_locations AS l WHERE l.entry_key = e.entry_key)
LIMIT 1
"""


@dataclass(frozen=True)
class IndexState:
    """A session's state row (``session_index_state``), as one catch-up left it (with what it did)
    or as the row says."""

    session_id: str
    session_file: str
    indexed_entries: int
    malformed_lines: int
    checkpoint_offset: int
    file_size: int
    tail_unterminated: bool
    header_hash: str
    file_mtime_ns: int
    checkpoint_hash_start: int | None
    checkpoint_hash: str | None
    rebuilt: bool = False
    rebuild_reason: str | None = None
    appended: int = 0

    @property
    def coverage_partial(self) -> bool:
        """``source-coverage-partial``: skipped lines, or bytes after the last complete line."""
        return self.malformed_lines > 0 or self.checkpoint_offset < self.file_size


def upsert_sql(table: str, columns: tuple[str, ...], *, update: bool = True, changed: tuple[str, ...] = ()) -> str:
    """``INSERT`` of ``columns``; with ``update``, a row whose key (the first column) is stored
    takes the other columns, and only when one of ``changed`` differs, if any are named."""
    sql = f"INSERT INTO {table}({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    if update:
        sql += f" ON CONFLICT({columns[0]}) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
    if changed:
        sql += " WHERE " + " OR ".join(f"{table}.{c} IS NOT excluded.{c}" for c in changed)
    return sql


_STATE_COLUMNS: Final = tuple(f.name for f in fields(IndexState))[:11]  # the row's, in IndexState's order
_UPSERT_STATE: Final = upsert_sql("session_index_state", _STATE_COLUMNS)
_SELECT_STATE: Final = f"SELECT {', '.join(_STATE_COLUMNS)} FROM session_index_state WHERE session_id = ?"
_UPSERT_STAMP: Final = upsert_sql("recall_rebase_file_stamps", ("session_id", "stamp"))
_KEEP_STAMP: Final = "INSERT OR IGNORE INTO recall_rebase_file_stamps(session_id, stamp) VALUES (?, ?)"


def index_state(conn: sqlite3.Connection, session_id: str) -> IndexState | None:
    """The stored state of a session, read-only (the status tool never catches up)."""
    row = conn.execute(_SELECT_STATE, (session_id,)).fetchone()
    if row is None:
        return None
    values = list(row)
    values[6] = bool(values[6])  # tail_unterminated, stored as 0 or 1
    return IndexState(*values)


def _hash_range(raw: IO[bytes], start: int, end: int) -> str:
    raw.seek(start)
    return hashlib.sha256(raw.read(end - start)).hexdigest()


def key_range(session_id: str) -> tuple[str, str]:
    """The entry keys ``"<sessionId>:…"`` (and those of a session whose id starts so)."""
    return f"{session_id}:", f"{session_id};"


def rows_missing(conn: sqlite3.Connection, session_id: str, indexed_entries: int) -> bool:
    """Fewer entry rows than the state counts, or entries without their FTS key: rows deleted by
    hand or lost, so a ``complete`` state would answer with hits missing (issue 12, D15).

    The key range may also hold another session's keys, so only *fewer* rows is certain."""
    entries = _count_range(conn, "entries", session_id)
    return entries < indexed_entries or _count_range(conn, "entries_fts_keys", session_id) < entries


def _locators_missing(conn: sqlite3.Connection, session_id: str) -> bool:
    """Some entry of the session has no locator row (how a database gets its locators back).

    Two index range counts over the keys ``"<sessionId>:…"`` settle the usual case; only when
    they differ does the exact per-entry query run (the range may also hold the keys of a
    session whose id starts with ``"<sessionId>:"``).
    """
    located = _count_range(conn, "entry_source_locations", session_id)
    return located != _count_range(conn, "entries", session_id) and conn.execute(
        _LOCATOR_MISSING, (session_id,)).fetchone() is not None


def _count_range(conn: sqlite3.Connection, table: str, session_id: str) -> int:
    """The rows of ``table`` keyed in the session's :func:`key_range` (an index range count)."""
    count: int = conn.execute(f"SELECT count(*) FROM {table} WHERE entry_key >= ? AND entry_key < ?",
                              key_range(session_id)).fetchone()[0]
    return count


def rebuild_reason(conn: sqlite3.Connection, source: OpenSession, state: IndexState | None, *, force: bool = False,
                   sealed: bool = False) -> str | None:
    """The first full-rebuild trigger that holds, in the order of contract §5.1.  ``sealed``: the
    model facts' seal matches the state, which proves no row went missing since (the two counts,
    about 0.1 s per 100,000 entries, are skipped)."""
    header, info = source.header, source.info
    if force:
        return REASON_FORCED
    if state is None:
        return REASON_INITIAL
    if not sealed and _locators_missing(conn, header.session_id):
        return REASON_LOCATORS_MISSING
    if not sealed and rows_missing(conn, header.session_id, state.indexed_entries):
        return REASON_ROWS_MISSING
    if state.session_file != source.path:
        return REASON_PATH_CHANGED
    if state.header_hash != header.record.sha256:
        return REASON_HEADER_CHANGED
    if info.st_size < state.file_size:
        return REASON_SHRANK
    if info.st_size == state.file_size and info.st_mtime_ns != state.file_mtime_ns:
        return REASON_CHANGED_IN_PLACE
    if info.st_size == state.file_size and stored_stamp(conn, header.session_id) not in (None, change_stamp(info)):
        return REASON_FILE_STAMP_CHANGED
    if info.st_size > state.file_size and state.checkpoint_offset < state.file_size:
        return REASON_GREW_AFTER_TORN_TAIL
    if state.checkpoint_offset > 0:
        if not state.checkpoint_hash or state.checkpoint_hash_start is None:
            return REASON_CHECKPOINT_HASH_MISSING
        if _hash_range(source.raw, state.checkpoint_hash_start, state.checkpoint_offset) != state.checkpoint_hash:
            return REASON_CHECKPOINT_MISMATCH
    return None


def new_checkpoint(raw: IO[bytes], span: tuple[int, int]) -> tuple[int, int, str]:
    """``(offset, hash_start, hash)``: at most the last 64 KiB up to the end of the last full line."""
    start, end = span
    hash_start = max(start, end - CHECKPOINT_HASH_BYTES)
    return end, hash_start, _hash_range(raw, hash_start, end)


def write_state(conn: sqlite3.Connection, source: OpenSession, checkpoint: tuple[int, int | None, str | None],
                indexed: int, malformed: int, **done: Any) -> IndexState:
    """Store the session's state row (and the file's change stamp); the state a catch-up answers."""
    offset, hash_start, digest = checkpoint
    session_id, info = source.header.session_id, source.info
    state = IndexState(session_id, source.path, indexed, malformed, offset, info.st_size, offset < info.st_size,
                       source.header.record.sha256, info.st_mtime_ns, hash_start, digest, **done)
    conn.execute(_UPSERT_STATE, astuple(state)[:11])  # the flag as 0 or 1
    conn.execute(_UPSERT_STAMP, (session_id, change_stamp(info)))
    return state


def stored_stamp(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The change stamp kept with the state (None: a state written before stamps, or by upstream)."""
    row = conn.execute(_SELECT_STAMP, (session_id,)).fetchone()
    return None if row is None else str(row[0])


def keep_first_stamp(conn: sqlite3.Connection, session_id: str, info: os.stat_result) -> None:
    """Give an unchanged state its stamp when it has none (written before stamps, or by upstream)."""
    conn.execute(_KEEP_STAMP, (session_id, change_stamp(info)))
