"""Incremental catch-up of one session file into the index (contract §5.1).

The file is opened read-only, streamed through ``reference.pi.reader`` and never loaded whole; each
line is decoded in full once.  An unchanged file costs a ``fstat``, a few index queries and at
most 64 KiB of hashing; growth appends from the checkpoint; anything else that could have
rewritten indexed bytes rebuilds the session's rows.  Rows, locators, FTS and the state are written
in one transaction, so a crash leaves either the old projection or the new one.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import sqlite3
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, Final, cast

import msgspec

from reference.pi.entries import is_pi_entry
from reference.pi.header import refuse_unindexable_version, same_project
from reference.pi.lines import READ_CHUNK_BYTES, LineTooLong, line_chunks
from reference.pi.reader import (
    RECORD_LIMIT_BYTES,
    Record,
    RecordKind,
    decode_value,
    iter_records,
    open_session_file,
    read_line_bytes,
)
from reference.pi.session import check_session_path, iter_loaded_records
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import UNDEFINED, JsonParseError
from reference.primitives.jsvalues import date_time_ms
from reference.recall.index_schema import ROLE_CODES, TYPE_CODES
from reference.recall.searchable import index_fields

CHECKPOINT_HASH_BYTES: Final = 64 * 1024
BATCH_ROWS: Final = 2048
#: SQLite's page cache while a catch-up holds the write lock (KiB; the default is 2 MiB): the
#: index pages of a large session stay in memory (measured: 7% off a 1 GB initial index).
CATCH_UP_CACHE_KIB: Final = 64 * 1024
# A record of at most the record limit starts within this many of the latest chunks read.
_KEEP_CHUNKS: Final = RECORD_LIMIT_BYTES // READ_CHUNK_BYTES + 2
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
#: The timestamps Pi writes (``Date.toISOString()``): the hour, then minutes 0-59, seconds 0-59, ms.
_PI_TIMESTAMP: Final = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}):([0-5][0-9]):([0-5][0-9])\.([0-9]{3})Z")
_HEADER_SKIPPED: Final = frozenset({RecordKind.BLANK, RecordKind.MALFORMED, RecordKind.FALSY})
_NOT_ENTRIES: Final = frozenset({RecordKind.MALFORMED, RecordKind.FALSY, RecordKind.OVERSIZE})

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

_UPSERT_ENTRY: Final = """
INSERT INTO entries(entry_key, session_id, entry_id, parent_id, entry_type, role, created_at,
                    content_hash, searchable_text, token_estimate, indexed_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(entry_key) DO UPDATE SET
  session_id = excluded.session_id, entry_id = excluded.entry_id, parent_id = excluded.parent_id,
  entry_type = excluded.entry_type, role = excluded.role, created_at = excluded.created_at,
  content_hash = excluded.content_hash, searchable_text = excluded.searchable_text,
  token_estimate = excluded.token_estimate, indexed_at = excluded.indexed_at
WHERE entries.content_hash IS NOT excluded.content_hash
   OR entries.searchable_text IS NOT excluded.searchable_text
   OR entries.session_id IS NOT excluded.session_id
   OR entries.entry_id IS NOT excluded.entry_id
   OR entries.parent_id IS NOT excluded.parent_id
   OR entries.entry_type IS NOT excluded.entry_type
   OR entries.role IS NOT excluded.role
   OR entries.created_at IS NOT excluded.created_at
   OR entries.token_estimate IS NOT excluded.token_estimate
"""
_INSERT_ENTRY: Final = """
INSERT INTO entries(entry_key, session_id, entry_id, parent_id, entry_type, role, created_at,
                    content_hash, searchable_text, token_estimate, indexed_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_INSERT_FILTER: Final = """
INSERT INTO entry_filters(fts_rowid, session_no, type_code, role_code, created_at, entry_id) VALUES (?, ?, ?, ?, ?, ?)
"""
#: A session's FTS keys without their ``entry_filters`` row (written by hand, or lost): a rebuild
#: puts them back, with the codes of migration 4.
_REFILL_FILTERS: Final = """
INSERT INTO entry_filters(fts_rowid, session_no, type_code, role_code, created_at, entry_id)
SELECT k.fts_rowid, ?2,
  CASE e.entry_type WHEN 'message' THEN 1 WHEN 'custom_message' THEN 2 WHEN 'compaction' THEN 3
    WHEN 'branch_summary' THEN 4 ELSE 0 END,
  CASE WHEN e.role IS NULL THEN NULL WHEN e.role = 'user' THEN 1 WHEN e.role = 'assistant' THEN 2
    WHEN e.role = 'toolResult' THEN 3 WHEN e.role = 'bashExecution' THEN 4 WHEN e.role = 'custom' THEN 5
    WHEN e.role = 'summary' THEN 6 ELSE 0 END,
  e.created_at, e.entry_id
FROM entries AS e JOIN entries_fts_keys AS k ON k.entry_key = e.entry_key
WHERE e.session_id = ?1 AND NOT EXISTS (SELECT 1 FROM entry_filters AS f WHERE f.fts_rowid = k.fts_rowid)
"""
_INSERT_LOCATION: Final = "INSERT INTO entry_source_locations(entry_key, start_offset, end_offset) VALUES (?, ?, ?)"
_SELECT_STORED: Final = "SELECT entry_key, session_id, content_hash FROM entries WHERE entry_key IN ({})"
_LOOKUP_KEYS: Final = 500  # bound parameters per lookup, below every SQLite's default limit
_UPSERT_LOCATION: Final = """
INSERT INTO entry_source_locations(entry_key, start_offset, end_offset) VALUES (?, ?, ?)
ON CONFLICT(entry_key) DO UPDATE SET
  start_offset = excluded.start_offset, end_offset = excluded.end_offset
WHERE entry_source_locations.start_offset IS NOT excluded.start_offset
   OR entry_source_locations.end_offset IS NOT excluded.end_offset
"""
_UPSERT_SESSION: Final = """
INSERT INTO sessions(session_id, session_file, cwd, header_hash) VALUES (?, ?, ?, ?)
ON CONFLICT(session_id) DO UPDATE SET
  session_file = excluded.session_file, cwd = excluded.cwd, header_hash = excluded.header_hash
"""
_UPSERT_STATE: Final = """
INSERT INTO session_index_state(session_id, session_file, header_hash, file_size, file_mtime_ns,
  checkpoint_offset, checkpoint_hash_start, checkpoint_hash, indexed_entries, malformed_lines,
  tail_unterminated)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(session_id) DO UPDATE SET
  session_file = excluded.session_file, header_hash = excluded.header_hash,
  file_size = excluded.file_size, file_mtime_ns = excluded.file_mtime_ns,
  checkpoint_offset = excluded.checkpoint_offset,
  checkpoint_hash_start = excluded.checkpoint_hash_start, checkpoint_hash = excluded.checkpoint_hash,
  indexed_entries = excluded.indexed_entries, malformed_lines = excluded.malformed_lines,
  tail_unterminated = excluded.tail_unterminated
"""
_SELECT_STATE: Final = """
SELECT session_file, header_hash, file_size, file_mtime_ns, checkpoint_offset, checkpoint_hash_start,
       checkpoint_hash, indexed_entries, malformed_lines, tail_unterminated
FROM session_index_state WHERE session_id = ?
"""
_RANGE_HAS_ENTRY: Final = "SELECT 1 FROM entries WHERE entry_key >= ? AND entry_key < ? LIMIT 1"
_COUNT_SESSION_ROWS: Final = "SELECT count(*) FROM entries WHERE session_id = ?"
_COUNT_ENTRY_RANGE: Final = "SELECT count(*) FROM entries WHERE entry_key >= ? AND entry_key < ?"
_COUNT_LOCATION_RANGE: Final = "SELECT count(*) FROM entry_source_locations WHERE entry_key >= ? AND entry_key < ?"
_LOCATOR_MISSING: Final = """
SELECT 1 FROM entries AS e
WHERE e.session_id = ?
  AND NOT EXISTS (SELECT 1 FROM entry_source_locations AS l WHERE l.entry_key = e.entry_key)
LIMIT 1
"""


@dataclass(frozen=True)
class IndexState:
    """What one catch-up left in the index for a session (or what the state row says)."""

    session_id: str
    session_file: str
    indexed_entries: int
    malformed_lines: int
    checkpoint_offset: int
    file_size: int
    tail_unterminated: bool
    rebuilt: bool = False
    rebuild_reason: str | None = None
    appended: int = 0

    @property
    def coverage_partial(self) -> bool:
        """``source-coverage-partial``: skipped lines, or bytes after the last complete line."""
        return self.malformed_lines > 0 or self.checkpoint_offset < self.file_size


@dataclass(frozen=True)
class _StoredState:
    session_file: str
    header_hash: str
    file_size: int
    file_mtime_ns: int
    checkpoint_offset: int
    checkpoint_hash_start: int | None
    checkpoint_hash: str | None
    indexed_entries: int
    malformed_lines: int
    tail_unterminated: int


@dataclass(frozen=True)
class _Header:
    record: Record
    value: dict[str, Any]
    session_id: str


@dataclass
class _Pass:
    """Counts and the new checkpoint of one scan over part of the file."""

    malformed: int = 0
    checkpoint: tuple[int, int] | None = None  # (start, end) of the last LF-terminated record


class _AppendOnlyViolation(Exception):
    """An appended record carries a stored key with another content hash: the file was rewritten."""


class _Window:
    """The file from ``base`` to ``size`` as the reader's stream, keeping the latest chunks.

    The reader yields a record right after reading the chunk that ends it, so the record's bytes
    are sliced from memory instead of being read a second time.  Offsets are relative to ``base``.
    """

    def __init__(self, raw: IO[bytes], base: int, size: int) -> None:
        raw.seek(base)
        self.raw = raw
        self.remaining = size - base
        self.position = 0
        self.chunks: list[tuple[int, bytes]] = []

    def read(self, size: int = -1) -> bytes:
        if self.remaining <= 0:
            return b""
        data = self.raw.read(self.remaining if size < 0 else min(size, self.remaining))
        if data:
            self.remaining -= len(data)
            self.chunks.append((self.position, data))
            self.position += len(data)
            if len(self.chunks) > _KEEP_CHUNKS:
                del self.chunks[0]
        else:
            self.remaining = 0  # the file shrank under us: stop at what is there
        return data

    def line(self, record: Record) -> bytes:
        """The record's bytes without its LF (a CR stays)."""
        start = record.start
        stop = record.end - 1 if record.terminated else record.end
        chunks = self.chunks
        while len(chunks) > 1 and chunks[0][0] + len(chunks[0][1]) <= start:
            del chunks[0]
        first_start, first = chunks[0]
        if stop <= first_start + len(first):
            return first[start - first_start : stop - first_start]
        pieces = []
        for chunk_start, chunk in chunks:
            if chunk_start < stop and chunk_start + len(chunk) > start:
                pieces.append(chunk[max(0, start - chunk_start) : stop - chunk_start])
        return b"".join(pieces)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _storable(text: str) -> str:
    """SQLite stores UTF-8: a lone surrogate becomes U+FFFD, as a JavaScript string written to it."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def _decode_entry(data: bytes) -> tuple[Any, bool]:
    """The parsed line and whether the JavaScript-faithful path (which may keep lone surrogates) ran."""
    try:
        return msgspec.json.decode(data), False
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass
    try:
        return decode_value(data), True
    except JsonParseError:
        return UNDEFINED, True


def _read_header(raw: IO[bytes], path: str) -> _Header:
    """The first parsed value must be a session header with a string id (reader R1)."""
    raw.seek(0)
    header: Record | None = None
    for record in iter_loaded_records(raw, path):
        if record.kind in _HEADER_SKIPPED:
            continue
        if record.kind is RecordKind.HEADER and isinstance(record.id, str):
            header = record
        break
    value = decode_value(read_line_bytes(raw, header)) if header is not None else None
    if header is None or not isinstance(value, dict) or not isinstance(value.get("id"), str):
        raise ContractViolation(
            "session-no-header",
            f"the first JSON value of {path} is not a Pi session header "
            '(an object with type "session" and a string id)',
        )
    return _Header(header, value, _storable(value["id"]))


def _check_scope(header: _Header, path: str, session_id: str | None, project_path: str | None) -> None:
    if session_id is not None and header.value["id"] != session_id:
        raise ContractViolation(
            "source-scope-mismatch", f"the header id of {path} is not the session id {session_id!r}"
        )
    if project_path is not None and not same_project(header.value.get("cwd"), project_path):
        raise ContractViolation(
            "source-scope-mismatch", f"the header cwd of {path} is not the project path {project_path!r}"
        )
    refuse_unindexable_version(header.value.get("version", UNDEFINED), path)


def _load_state(conn: sqlite3.Connection, session_id: str) -> _StoredState | None:
    row = conn.execute(_SELECT_STATE, (session_id,)).fetchone()
    return _StoredState(*row) if row is not None else None


def _hash_range(raw: IO[bytes], start: int, end: int) -> str:
    raw.seek(start)
    return hashlib.sha256(raw.read(end - start)).hexdigest()


def _locators_missing(conn: sqlite3.Connection, session_id: str) -> bool:
    """Some entry of the session has no locator row (how a database gets its locators back).

    Two index range counts over the keys ``"<sessionId>:…"`` settle the usual case; only when
    they differ does the exact per-entry query run (the range may also hold the keys of a
    session whose id starts with ``"<sessionId>:"``).
    """
    bounds = (f"{session_id}:", f"{session_id};")
    entries = conn.execute(_COUNT_ENTRY_RANGE, bounds).fetchone()[0]
    located = conn.execute(_COUNT_LOCATION_RANGE, bounds).fetchone()[0]
    return located != entries and conn.execute(_LOCATOR_MISSING, (session_id,)).fetchone() is not None


def _rebuild_reason(
    conn: sqlite3.Connection,
    raw: IO[bytes],
    path: str,
    header: _Header,
    state: _StoredState | None,
    info: os.stat_result,
    force: bool,
) -> str | None:
    """The first full-rebuild trigger that holds, in the order of contract §5.1."""
    if force:
        return REASON_FORCED
    if state is None:
        return REASON_INITIAL
    if _locators_missing(conn, header.session_id):
        return REASON_LOCATORS_MISSING
    if state.session_file != path:
        return REASON_PATH_CHANGED
    if state.header_hash != header.record.sha256:
        return REASON_HEADER_CHANGED
    if info.st_size < state.file_size:
        return REASON_SHRANK
    if info.st_size == state.file_size and info.st_mtime_ns != state.file_mtime_ns:
        return REASON_CHANGED_IN_PLACE
    if info.st_size > state.file_size and state.checkpoint_offset < state.file_size:
        return REASON_GREW_AFTER_TORN_TAIL
    if state.checkpoint_offset > 0:
        if not state.checkpoint_hash or state.checkpoint_hash_start is None:
            return REASON_CHECKPOINT_HASH_MISSING
        if _hash_range(raw, state.checkpoint_hash_start, state.checkpoint_offset) != state.checkpoint_hash:
            return REASON_CHECKPOINT_MISMATCH
    return None


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
        self.indexed_at = _now_ms()
        self.next_rowid = conn.execute("SELECT coalesce(max(fts_rowid), 0) FROM entries_fts_keys").fetchone()[0]
        self.session_no = session_number(conn, session_id)
        # Every key that could clash with ours starts with "<sessionId>:": none stored, no lookups.
        bounds = (f"{session_id}:", f"{session_id};")
        self.range_empty = conn.execute(_RANGE_HAS_ENTRY, bounds).fetchone() is None
        self.keys: set[str] = set()  # keys this pass wrote
        self.hours: dict[str, float | int] = {}  # "YYYY-MM-DDTHH" -> ms at its start (or NaN)
        self.pending: list[tuple[tuple[Any, ...], tuple[str, int, int], bool]] = []
        self.inserted = 0
        self.rejected = 0  # invalid entries, shadowed repeats, keys another session owns

    def add(self, record: Record, data: bytes, base: int) -> None:
        """Queue one entry line, or count it as rejected when it is not a valid Pi entry."""
        entry, slow = _decode_entry(data)
        self.add_value(entry, slow, record.sha256, base + record.start, base + record.end)

    def add_value(self, entry: Any, slow: bool, sha256: str, start: int, end: int) -> None:
        """Queue a decoded entry line at ``[start, end)`` (``slow``: decoded by the JavaScript-faithful
        parser, which may keep lone surrogates), or count it as rejected."""
        if not is_pi_entry(entry):
            self.rejected += 1
            return
        entry_id: str = entry["id"]
        entry_type: str = entry["type"]
        parent_id: str | None = entry["parentId"]
        text, role, tokens = index_fields(entry)
        if slow:  # only the JavaScript-faithful path can yield lone surrogates
            entry_id, entry_type, text = _storable(entry_id), _storable(entry_type), _storable(text)
            parent_id = _storable(parent_id) if parent_id is not None else None
            role = _storable(role) if role is not None else None
        key = f"{self.session_id}:{entry_id}"
        repeated = key in self.keys
        if repeated:  # this pass wrote the id already: write that row first, then replace it
            self.rejected += 1
            self.flush()
        created = self._created_ms(entry["timestamp"])
        row = (
            key, self.session_id, entry_id, parent_id, entry_type, role,
            created if isinstance(created, int) else None,
            sha256, text, tokens, self.indexed_at,
        )
        self.keys.add(key)
        self.pending.append((row, (key, start, end), repeated))
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
        keys = [row[0] for row, _location, repeated in self.pending if not repeated]
        stored: dict[str, tuple[str, str]] = {}
        for first in range(0, len(keys), _LOOKUP_KEYS):
            chunk = keys[first : first + _LOOKUP_KEYS]
            query = _SELECT_STORED.format(", ".join("?" * len(chunk)))
            for key, session_id, content_hash in self.conn.execute(query, chunk):
                stored[key] = (session_id, content_hash)
        return stored

    def flush(self) -> None:
        if not self.pending:
            return
        stored = {} if self.range_empty else self._stored()
        new_rows: list[tuple[Any, ...]] = []
        new_keys: list[tuple[int, str]] = []
        new_filters: list[tuple[Any, ...]] = []
        new_fts: list[tuple[int, str]] = []
        new_locations: list[tuple[str, int, int]] = []
        old_rows: list[tuple[Any, ...]] = []
        old_locations: list[tuple[str, int, int]] = []
        for row, location, repeated in self.pending:
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
                new_rows.append(row)
                new_keys.append((self.next_rowid, key))
                new_filters.append((
                    self.next_rowid, self.session_no, TYPE_CODES.get(row[4], 0),
                    None if row[5] is None else ROLE_CODES.get(row[5], 0), row[6], row[2],
                ))
                new_fts.append((self.next_rowid, row[8]))
                new_locations.append(location)
            else:
                old_rows.append(row)
                old_locations.append(location)
        self.pending.clear()
        conn = self.conn
        conn.executemany(_INSERT_ENTRY, new_rows)
        conn.executemany("INSERT INTO entries_fts_keys(fts_rowid, entry_key) VALUES (?, ?)", new_keys)
        conn.executemany(_INSERT_FILTER, new_filters)
        conn.executemany("INSERT INTO entries_fts(rowid, searchable_text) VALUES (?, ?)", new_fts)
        conn.executemany(_INSERT_LOCATION, new_locations)
        conn.executemany(_UPSERT_ENTRY, old_rows)
        conn.executemany(_UPSERT_LOCATION, old_locations)
        self.inserted += len(new_rows)


def session_number(conn: sqlite3.Connection, session_id: str) -> int:
    """The session's integer number in ``entry_filters`` (migration 4); the session row must exist."""
    conn.execute("INSERT OR IGNORE INTO session_numbers(session_id) VALUES (?)", (session_id,))
    number: int = conn.execute("SELECT session_no FROM session_numbers WHERE session_id = ?", (session_id,)).fetchone()[0]
    return number


def _scan(raw: IO[bytes], base: int, size: int, scanner: _Scanner, header: _Header | None) -> _Pass:
    """Index the records in ``[base, size)``; a rebuild (``header`` given) starts at the header.

    Lines are read in chunks and each entry line is decoded once (:func:`_scan_lines`); a line
    beyond the record limit hands the rest of the file to the streaming reader.
    """
    result = _Pass()
    resume = _scan_lines(raw, base, size, scanner, header, result)
    if resume is not None:
        _scan_records(raw, resume[0], size, scanner, resume[1], result)
    scanner.flush()
    result.malformed += scanner.rejected
    return result


def _take(record: Record, data: bytes, base: int, scanner: _Scanner, header: _Header | None,
          result: _Pass) -> _Header | None:
    """One record of the streaming reader (offsets relative to ``base``); the header still to be
    checked, or ``None`` once it was."""
    if record.terminated:
        result.checkpoint = (base + record.start, base + record.end)
    kind = record.kind
    if kind is RecordKind.BLANK:
        return header
    if kind is RecordKind.HEADER or kind is RecordKind.EXTRA_HEADER:
        if header is not None:
            _check_header(header, record.sha256, base + record.start)
        return None  # a later session line is ignored, as Pi ignores it
    if kind in _NOT_ENTRIES or not record.is_object:
        result.malformed += 1
        return header
    scanner.add(record, data, base)
    return header


def _check_header(header: _Header, sha256: str, start: int) -> None:
    if sha256 != header.record.sha256 or start != header.record.start:
        raise ContractViolation("session-changed", "the session header changed while indexing")


def _scan_records(raw: IO[bytes], base: int, size: int, scanner: _Scanner, header: _Header | None,
                  result: _Pass) -> None:
    """The records in ``[base, size)`` through the streaming reader (any line, however long)."""
    window = _Window(raw, base, size)
    records: Iterator[Record] = iter_records(cast("IO[bytes]", window))  # it only calls read()
    for record in records:
        if record.kind is RecordKind.OVERSIZE or record.kind is RecordKind.BLANK:
            header = _take(record, b"", base, scanner, header, result)
        else:
            header = _take(record, window.line(record), base, scanner, header, result)


def _exact_record(line: bytes, terminated: bool) -> Record:
    """The streaming reader's record of one line (offsets from the line's start)."""
    return next(iter_records(io.BytesIO(line + b"\n" if terminated else line)))


def _scan_lines(raw: IO[bytes], base: int, size: int, scanner: _Scanner, header: _Header | None,
                result: _Pass) -> tuple[int, _Header | None] | None:
    """Index the lines in ``[base, size)`` from chunks of the file, each line hashed and decoded
    once: an object line ``msgspec`` decodes is classified from that value (a ``"session"`` type is
    a header, anything else an entry, as the reader classifies it), any other line goes through
    the streaming reader's classification of that line alone.  ``(offset, header)`` when a line
    outgrows the record limit before its LF: the caller reads on from there with the reader."""
    raw.seek(base)
    decode = msgspec.json.decode
    sha256 = hashlib.sha256
    fits = RECORD_LIMIT_BYTES - 1  # a longer line (its LF counted) is oversize
    chunks = line_chunks(raw, RECORD_LIMIT_BYTES, start=base, size=size - base)
    while True:
        try:
            start, lines, terminated = next(chunks)
        except StopIteration:
            return None
        except LineTooLong as too_long:
            return too_long.offset, header
        if not terminated:  # the last line, without its LF
            header = _take(_exact_record(lines[0], False), lines[0], start, scanner, header, result)
            continue
        for line in lines:
            end = start + len(line) + 1
            value: Any = None
            if line[:1] == b"{" and len(line) <= fits:
                try:
                    value = decode(line)
                except (msgspec.DecodeError, msgspec.ValidationError):
                    value = None  # the reader's own classification decides
            if value is not None:
                result.checkpoint = (start, end)
                digest = sha256(line).hexdigest()
                if value.get("type") == "session":
                    if header is not None:
                        _check_header(header, digest, start)
                        header = None
                else:
                    scanner.add_value(value, False, digest, start, end)
            else:
                header = _take(_exact_record(line, True), line, start, scanner, header, result)
            start = end


def _checkpoint(raw: IO[bytes], span: tuple[int, int]) -> tuple[int, int, str]:
    """``(offset, hash_start, hash)``: at most the last 64 KiB up to the end of the last full line."""
    start, end = span
    hash_start = max(start, end - CHECKPOINT_HASH_BYTES)
    return end, hash_start, _hash_range(raw, hash_start, end)


def _write_state(
    conn: sqlite3.Connection,
    session_id: str,
    path: str,
    header: _Header,
    info: os.stat_result,
    checkpoint: tuple[int, int | None, str | None],
    indexed: int,
    malformed: int,
) -> None:
    offset, hash_start, digest = checkpoint
    conn.execute(_UPSERT_STATE, (
        session_id, path, header.record.sha256, info.st_size, info.st_mtime_ns,
        offset, hash_start, digest, indexed, malformed, int(offset < info.st_size),
    ))


def _rebuild(
    conn: sqlite3.Connection, raw: IO[bytes], path: str, header: _Header, info: os.stat_result
) -> tuple[int, int, int]:
    """Upsert every row of the file, delete only stale ones; (indexed, malformed, checkpoint)."""
    session_id = header.session_id
    cwd = header.value.get("cwd")
    conn.execute(_UPSERT_SESSION, (session_id, path, _storable(cwd) if isinstance(cwd, str) else None,
                                   header.record.sha256))
    scanner = _Scanner(conn, session_id, appending=False)
    result = _scan(raw, 0, info.st_size, scanner, header)
    # Every key the pass kept is a row of this session: when the session has no other row (a count
    # over its index), nothing is stale.
    if conn.execute(_COUNT_SESSION_ROWS, (session_id,)).fetchone()[0] != len(scanner.keys):
        stale = [
            (key,)
            for (key,) in conn.execute("SELECT entry_key FROM entries WHERE session_id = ?", (session_id,))
            if key not in scanner.keys
        ]
        conn.executemany("DELETE FROM entries WHERE entry_key = ?", stale)
    if not scanner.range_empty:  # an initial index wrote every filter row itself
        conn.execute(_REFILL_FILTERS, (session_id, scanner.session_no))
    checkpoint: tuple[int, int | None, str | None] = (
        _checkpoint(raw, result.checkpoint) if result.checkpoint else (0, None, None)
    )
    _write_state(conn, session_id, path, header, info, checkpoint, len(scanner.keys), result.malformed)
    return len(scanner.keys), result.malformed, checkpoint[0]


def _append(
    conn: sqlite3.Connection, raw: IO[bytes], path: str, header: _Header, info: os.stat_result, state: _StoredState
) -> tuple[int, int, int, int]:
    """Index the records after the checkpoint; (indexed, malformed, checkpoint, appended)."""
    scanner = _Scanner(conn, header.session_id, appending=True)
    result = _scan(raw, state.checkpoint_offset, info.st_size, scanner, None)
    checkpoint: tuple[int, int | None, str | None] = (
        _checkpoint(raw, result.checkpoint)
        if result.checkpoint
        else (state.checkpoint_offset, state.checkpoint_hash_start, state.checkpoint_hash)
    )
    indexed = state.indexed_entries + scanner.inserted
    malformed = state.malformed_lines + result.malformed
    _write_state(conn, header.session_id, path, header, info, checkpoint, indexed, malformed)
    return indexed, malformed, checkpoint[0], scanner.inserted


def _sync(
    conn: sqlite3.Connection, raw: IO[bytes], path: str, header: _Header, info: os.stat_result, force: bool
) -> IndexState:
    """Nothing, an append, or a rebuild; the caller holds the write transaction."""
    sid = header.session_id
    state = _load_state(conn, sid)
    reason = _rebuild_reason(conn, raw, path, header, state, info, force)
    if reason is None:
        assert state is not None
        if info.st_size == state.file_size and info.st_mtime_ns == state.file_mtime_ns:
            return _from_state(sid, state)
        conn.execute("SAVEPOINT catch_up_append")
        try:
            indexed, malformed, offset, appended = _append(conn, raw, path, header, info, state)
        except _AppendOnlyViolation:
            conn.execute("ROLLBACK TO catch_up_append")
            reason = REASON_APPEND_ONLY_VIOLATION
        conn.execute("RELEASE catch_up_append")
        if reason is None:
            return IndexState(
                sid, path, indexed, malformed, offset, info.st_size, offset < info.st_size, appended=appended
            )
    indexed, malformed, offset = _rebuild(conn, raw, path, header, info)
    return IndexState(
        sid, path, indexed, malformed, offset, info.st_size, offset < info.st_size,
        rebuilt=True, rebuild_reason=reason,
    )


def catch_up(
    conn: sqlite3.Connection,
    session_file: str,
    *,
    session_id: str | None = None,
    project_path: str | None = None,
    force: bool = False,
) -> IndexState:
    """Bring the index up to date with one session file (contract §5.1) and say what it did.

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
        raw = open_session_file(path)
    except OSError as exc:
        raise ContractViolation("session-unreadable", f"cannot read {path}: {exc.strerror}") from None
    with raw:
        info = os.fstat(raw.fileno())  # the size and mtime of the very file read below
        if not stat.S_ISREG(info.st_mode):
            raise ContractViolation("session-not-a-file", f"not a regular file: {path}")
        if info.st_size == 0:
            raise ContractViolation("session-empty", f"the session file is empty (0 bytes): {path}")
        header = _read_header(raw, path)
        _check_scope(header, path, session_id, project_path)
        conn.execute("PRAGMA foreign_keys = ON")
        cache_size = int(conn.execute("PRAGMA cache_size").fetchone()[0])
        conn.execute(f"PRAGMA cache_size = {-CATCH_UP_CACHE_KIB:d}")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = _sync(conn, raw, path, header, info, force)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.execute(f"PRAGMA cache_size = {cache_size:d}")
    return result


def _from_state(session_id: str, state: _StoredState) -> IndexState:
    return IndexState(
        session_id, state.session_file, state.indexed_entries, state.malformed_lines,
        state.checkpoint_offset, state.file_size, bool(state.tail_unterminated),
    )


def coverage_partial(state: IndexState | None) -> bool:
    """``source-coverage-partial`` (contract §2.5): no state, skipped lines, or a torn tail."""
    return state is None or state.coverage_partial


def index_state(conn: sqlite3.Connection, session_id: str) -> IndexState | None:
    """The stored state of a session, read-only (the status tool never catches up)."""
    state = _load_state(conn, session_id)
    return _from_state(session_id, state) if state is not None else None
