"""Incremental catch-up of one session file into the index (contract §5.1).

The file is opened read-only (or handed open), streamed through ``reference.pi.exact.reader`` and never
loaded whole; each line is decoded in full once.  An unchanged file costs a ``fstat``, a few index queries and at
most 64 KiB of hashing; growth appends from the checkpoint; anything else that could have
rewritten indexed bytes rebuilds the session's rows.  Rows, locators, FTS and the state are written
in one transaction, so a crash leaves either the old projection or the new one.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from typing import IO, Any, Final

from reference.pi.exact.entries import is_pi_entry
from reference.pi.exact.reader import open_session_file
from reference.pi.exact.session import check_session_path
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import date_time_ms
from reference.recall import model_facts
from reference.recall.catchup_source import EntryLine, OpenSession, check_scope, open_source, read_range
from reference.recall.catchup_state import (
    REASON_APPEND_ONLY_VIOLATION,
    IndexState,
    index_state,
    keep_first_stamp,
    key_range,
    new_checkpoint,
    rebuild_reason,
    upsert_sql,
    write_state,
)
from reference.recall.index_schema import ROLE_CODES, TYPE_CODES, write_transaction
from reference.recall.searchable import index_fields
from reference.recall.sqlite_text import storable

#: SQLite's page cache while a catch-up holds the write lock (KiB; the default is 2 MiB): the
#: index pages of a large session stay in memory (measured: 7% off a 1 GB initial index).
CATCH_UP_CACHE_KIB: Final = 64 * 1024
#: A session's FTS keys without their ``entry_filters`` row (written by hand, or lost): a rebuild puts them back.
_FILTERS_MISSING: Final = """
SELECT k.fts_rowid, e.entry_id, e.entry_type, e.role, e.created_at
FROM entries AS e JOIN entries_fts_keys AS k ON k.entry_key = e.entry_key
WHERE e.session_id = ? AND NOT EXISTS (SELECT 1 FROM entry_filters AS f WHERE f.fts_rowid = k.fts_rowid)
"""
_UPSERT_SESSION: Final = upsert_sql("sessions", ("session_id", "session_file", "cwd", "header_hash"))
_COUNT_SESSION_ROWS: Final = "SELECT count(*) FROM entries WHERE session_id = ?"

BATCH_ROWS: Final = 2048
#: The timestamps Pi writes (``Date.toISOString()``): the hour, then minutes 0-59, seconds 0-59, ms.
_PI_TIMESTAMP: Final = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}):([0-5][0-9]):([0-5][0-9])\.([0-9]{3})Z")
_ENTRY_COLUMNS: Final = ("entry_key", "session_id", "entry_id", "parent_id", "entry_type", "role", "created_at",
                         "content_hash", "searchable_text", "token_estimate", "indexed_at")
_INSERT_ENTRY: Final = upsert_sql("entries", _ENTRY_COLUMNS, update=False)
#: A stored row is rewritten only when a column other than ``indexed_at`` differs.
_UPSERT_ENTRY: Final = upsert_sql("entries", _ENTRY_COLUMNS, changed=_ENTRY_COLUMNS[1:-1])
_INSERT_FILTER: Final = upsert_sql("entry_filters", ("fts_rowid", "session_no", "type_code", "role_code", "created_at",
                                                     "entry_id"), update=False)
_LOCATION_COLUMNS: Final = ("entry_key", "start_offset", "end_offset")
_INSERT_LOCATION: Final = upsert_sql("entry_source_locations", _LOCATION_COLUMNS, update=False)
_UPSERT_LOCATION: Final = upsert_sql("entry_source_locations", _LOCATION_COLUMNS, changed=_LOCATION_COLUMNS[1:])
_SELECT_STORED: Final = ("SELECT entry_key, session_id, content_hash FROM entries"
                         " WHERE entry_key IN (SELECT value FROM json_each(?))")
_RANGE_HAS_ENTRY: Final = "SELECT 1 FROM entries WHERE entry_key >= ? AND entry_key < ? LIMIT 1"


class _AppendOnlyViolation(Exception):
    """An appended record carries a stored key with another content hash: the file was rewritten."""


class _Scanner:
    """Turns the records of one pass into index rows, written in batches.

    New rows go in with plain inserts (entry, FTS key with a rowid assigned here, FTS row,
    locator); a row the index already has is upserted, and the update triggers keep FTS in step
    when its text changed.  A repeated id is resolved as Pi's id index resolves it: the later
    line wins and the shadowed one is counted as skipped.
    """

    def __init__(self, conn: sqlite3.Connection, session_id: str, *, appending: bool) -> None:
        self.conn = conn
        self.session_id = session_id
        self.appending = appending
        self.indexed_at = time.time_ns() // 1_000_000
        self.next_rowid = conn.execute("SELECT coalesce(max(fts_rowid), 0) FROM entries_fts_keys").fetchone()[0]
        # The session's integer number in ``entry_filters`` (migration 4); the session row exists.
        conn.execute("INSERT OR IGNORE INTO session_numbers(session_id) VALUES (?)", (session_id,))
        self.session_no: int = conn.execute("SELECT session_no FROM session_numbers WHERE session_id = ?",
                                            (session_id,)).fetchone()[0]
        # Every key that could clash with ours starts with "<sessionId>:": none stored, no lookups.
        self.range_empty = conn.execute(_RANGE_HAS_ENTRY, key_range(session_id)).fetchone() is None
        if self.range_empty:
            model_facts.clear_facts(conn, session_id)  # facts of rows another writer deleted
        self.counts = model_facts.Seal()  # the last entry and the counts of the model facts' seal
        self.keys: set[str] = set()  # keys this pass wrote
        self.hours: dict[str, float | int] = {}  # "YYYY-MM-DDTHH" -> ms at its start (or NaN)
        self.pending: list[tuple[tuple[Any, ...], tuple[str, int, int], bool, tuple[int, str | None] | None]] = []
        self.inserted = 0
        self.rejected = 0  # invalid entries, shadowed repeats, keys another session owns

    def add(self, line: EntryLine) -> None:
        """Queue an entry line, or count it as rejected when it is not a valid Pi entry."""
        entry, slow = line.value, line.slow
        if not is_pi_entry(entry):
            self.rejected += 1
            return
        entry_id: str = entry["id"]
        entry_type: str = entry["type"]
        parent_id: str | None = entry["parentId"]
        text, role, tokens = index_fields(entry)
        fact = self.counts.see(entry, slow)
        if slow:  # only the JavaScript-faithful path can yield lone surrogates
            entry_id, entry_type, text = storable(entry_id), storable(entry_type), storable(text)
            parent_id = storable(parent_id) if parent_id is not None else None
            role = storable(role) if role is not None else None
        key = f"{self.session_id}:{entry_id}"
        repeated = key in self.keys
        if repeated:  # this pass wrote the id already: write that row first, then replace it
            self.rejected += 1
            self.flush()
        created = self._created_ms(entry["timestamp"])
        row = (
            key, self.session_id, entry_id, parent_id, entry_type, role,
            created if isinstance(created, int) else None,
            line.sha256, text, tokens, self.indexed_at,
        )
        self.keys.add(key)
        self.pending.append((row, (key, line.start, line.end), repeated, fact))
        if len(self.pending) >= BATCH_ROWS:
            self.flush()

    def _created_ms(self, timestamp: str) -> float | int:
        """``date_time_ms(timestamp)``, with Pi's own format computed from a cached hour start.

        Minutes and seconds below 60 add exactly what the general parser adds; hour 24 (valid
        only at 24:00:00.000) and anything else goes to the general parser.
        """
        match = _PI_TIMESTAMP.fullmatch(timestamp)
        if match is None or match[1].endswith("T24"):
            return date_time_ms(timestamp)
        hour = match[1]
        start = self.hours.get(hour)
        if start is None:
            start = self.hours[hour] = date_time_ms(hour + ":00:00.000Z")
        if not isinstance(start, int):
            return date_time_ms(timestamp)
        return start + int(match[2]) * 60_000 + int(match[3]) * 1000 + int(match[4])

    def _stored(self) -> dict[str, tuple[str, str]]:
        """``key -> (session_id, content_hash)`` of the pending keys the index already holds."""
        keys = [row[0] for row, _location, repeated, _fact in self.pending if not repeated]
        rows = self.conn.execute(_SELECT_STORED, (json.dumps(keys, ensure_ascii=False),))
        return {key: (session_id, content_hash) for key, session_id, content_hash in rows}

    def flush(self) -> None:
        if not self.pending:
            return
        stored = {} if self.range_empty else self._stored()
        new: list[tuple[int, tuple[Any, ...], tuple[str, int, int]]] = []  # (fts rowid, row, location)
        old: list[tuple[tuple[Any, ...], tuple[str, int, int]]] = []
        facts: list[tuple[str, int, str | None]] = []
        unfacts: list[tuple[str]] = []
        for row, location, repeated, fact in self.pending:
            key = row[0]
            found = None if repeated else stored.get(key)
            if found is not None and found[0] != self.session_id:
                self.keys.discard(key)  # another session owns this key (ids with ":")
                self.rejected += 1
                continue
            if found is not None and self.appending:
                if found[1] != row[7]:
                    raise _AppendOnlyViolation(key)
                self.rejected += 1  # the same line again: the later copy is the entry
            if found is None and not repeated:
                self.next_rowid += 1
                new.append((self.next_rowid, row, location))
            else:
                old.append((row, location))
            if fact is not None:
                facts.append((key, *fact))
            elif not self.range_empty:
                unfacts.append((key,))
        self.pending.clear()
        conn = self.conn
        conn.executemany(_INSERT_ENTRY, [row for _rowid, row, _location in new])
        conn.executemany("INSERT INTO entries_fts_keys(fts_rowid, entry_key) VALUES (?, ?)",
                         [(rowid, row[0]) for rowid, row, _location in new])
        conn.executemany(_INSERT_FILTER, [_filter_row(rowid, self.session_no, (row[2], row[4], row[5], row[6]))
                                          for rowid, row, _location in new])
        conn.executemany("INSERT INTO entries_fts(rowid, searchable_text) VALUES (?, ?)",
                         [(rowid, row[8]) for rowid, row, _location in new])
        conn.executemany(_INSERT_LOCATION, [location for _rowid, _row, location in new])
        conn.executemany(_UPSERT_ENTRY, [row for row, _location in old])
        conn.executemany(_UPSERT_LOCATION, [location for _row, location in old])
        model_facts.write_facts(conn, facts, unfacts)
        self.inserted += len(new)


def _filter_row(fts_rowid: int, session_no: int, entry: tuple[str, str, str | None, int | None]) -> tuple[Any, ...]:
    """The ``entry_filters`` row of ``(entry_id, entry_type, role, created_at)``, with the codes of
    migration 4 (any other type or role is 0)."""
    entry_id, entry_type, role, created_at = entry
    role_code = None if role is None else ROLE_CODES.get(role, 0)
    return fts_rowid, session_no, TYPE_CODES.get(entry_type, 0), role_code, created_at, entry_id


def _read(conn: sqlite3.Connection, source: OpenSession, base: int, *, appending: bool) -> tuple[_Scanner, int, tuple[int, int] | None]:
    """One read of the file from ``base`` into rows: the row writer, the lines skipped, and the
    span of the last complete line read."""
    scanner = _Scanner(conn, source.header.session_id, appending=appending)
    result = read_range(source, base, scanner.add, rebuild=not appending)
    scanner.flush()
    return scanner, result.malformed + scanner.rejected, result.checkpoint


def _rebuild(conn: sqlite3.Connection, source: OpenSession, reason: str) -> IndexState:
    """Upsert every row of the file, delete only stale ones."""
    header = source.header
    session_id = header.session_id
    cwd = header.value.get("cwd")
    conn.execute(_UPSERT_SESSION, (session_id, source.path, storable(cwd) if isinstance(cwd, str) else None,
                                   header.record.sha256))
    scanner, malformed, span = _read(conn, source, 0, appending=False)
    # Every key the pass kept is a row of this session: no other row (a count over it), nothing stale.
    if conn.execute(_COUNT_SESSION_ROWS, (session_id,)).fetchone()[0] != len(scanner.keys):
        stale = [
            (key,)
            for (key,) in conn.execute("SELECT entry_key FROM entries WHERE session_id = ?", (session_id,))
            if key not in scanner.keys
        ]
        conn.executemany("DELETE FROM entries WHERE entry_key = ?", stale)
        model_facts.write_facts(conn, [], stale)
    if not scanner.range_empty:  # an initial index wrote every filter row itself
        missing = conn.execute(_FILTERS_MISSING, (session_id,)).fetchall()
        conn.executemany(_INSERT_FILTER, [_filter_row(row[0], scanner.session_no, row[1:]) for row in missing])
    checkpoint: tuple[int, int | None, str | None] = new_checkpoint(source.raw, span) if span else (0, None, None)
    state = write_state(conn, source, checkpoint, len(scanner.keys), malformed, rebuilt=True, rebuild_reason=reason)
    model_facts.write_seal(conn, state, scanner.counts)
    return state


def _append(conn: sqlite3.Connection, source: OpenSession, state: IndexState,
            seal: model_facts.Seal | None) -> IndexState:
    """Index the records after the checkpoint.  The model facts' seal grows with it, or (none
    before) the facts are backfilled."""
    scanner, skipped, span = _read(conn, source, state.checkpoint_offset, appending=True)
    checkpoint: tuple[int, int | None, str | None] = (
        new_checkpoint(source.raw, span) if span
        else (state.checkpoint_offset, state.checkpoint_hash_start, state.checkpoint_hash)
    )
    appended = write_state(conn, source, checkpoint, state.indexed_entries + scanner.inserted,
                           state.malformed_lines + skipped, appended=scanner.inserted)
    model_facts.extend_seal(conn, source, appended, seal, scanner.counts)
    return appended


def _sync(conn: sqlite3.Connection, source: OpenSession, force: bool) -> IndexState:
    """Nothing, an append, or a rebuild; the caller holds the write transaction."""
    sid, info = source.header.session_id, source.info
    state = index_state(conn, sid)
    seal = model_facts.load_seal(conn, sid)  # a valid seal also proves no row went missing (model_facts)
    reason = rebuild_reason(conn, source, state, force=force, sealed=seal is not None)
    if reason is None:
        assert state is not None
        if info.st_size == state.file_size and info.st_mtime_ns == state.file_mtime_ns:
            keep_first_stamp(conn, sid, info)
            if seal is None:  # an index from before the facts, or written by another implementation
                model_facts.backfill(conn, source, state)
            return state
        conn.execute("SAVEPOINT catch_up_append")
        try:
            appended = _append(conn, source, state, seal)
        except _AppendOnlyViolation:
            conn.execute("ROLLBACK TO catch_up_append")
            reason = REASON_APPEND_ONLY_VIOLATION
        conn.execute("RELEASE catch_up_append")
        if reason is None:
            return appended
    return _rebuild(conn, source, reason)


def catch_up(
    conn: sqlite3.Connection,
    session_file: str,
    *,
    session_id: str | None = None,
    project_path: str | None = None,
    force: bool = False,
    stream: IO[bytes] | None = None,
) -> IndexState:
    """Bring the index up to date with one session file (contract §5.1) and say what it did;
    ``stream``: the file already open at byte 0 (a recall's descriptor, its hits read next), closed here.

    Header checks come first (§2.5 step 1): the header id must be ``session_id`` and its ``cwd``
    the canonical ``project_path`` when they are given, else ``source-scope-mismatch``; legacy and
    newer formats are ``unsupported-source-version``.  The connection must not be inside a
    transaction: the catch-up holds the write lock from reading the state to writing it, so two
    processes never append the same records.
    """
    path = os.fspath(session_file)
    if conn.in_transaction:
        raise ValueError("catch_up needs a connection outside any transaction")
    check_session_path(path, allow_empty=True)
    try:
        raw = open_session_file(path) if stream is None else stream
    except OSError as exc:
        raise ContractViolation(Code.SESSION_UNREADABLE, f"cannot read {path}: {exc.strerror}") from None
    with raw:
        source = open_source(raw, path)
        check_scope(source.header, path, session_id, project_path)
        conn.execute("PRAGMA foreign_keys = ON")
        with write_transaction(conn, cache_kib=CATCH_UP_CACHE_KIB):
            return _sync(conn, source, force)
