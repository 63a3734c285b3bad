"""The read side of a catch-up (contract §5.1): the session header checks (§2.5 step 1) and the
scan of a byte range of the file into the catch-up's rows (a :class:`RowSink`).

Lines are read in chunks (:func:`reference.pi.exact.lines.line_chunks`) and each entry line is decoded
once; a line beyond the record limit hands the rest of the range to the streaming reader, whose
records are sliced from the chunks it has just read (:class:`_Window`).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Final, Protocol, cast

import msgspec

from reference.pi.exact.header import refuse_unindexable_version, same_project
from reference.pi.exact.lines import READ_CHUNK_BYTES, LineTooLong, line_chunks
from reference.pi.exact.reader import (
    RECORD_LIMIT_BYTES,
    Record,
    RecordKind,
    decode_value,
    iter_records,
    read_line_bytes,
)
from reference.pi.exact.session import iter_loaded_records
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import UNDEFINED
from reference.recall.progress import scanning
from reference.recall.sqlite_text import storable

# A record of at most the record limit starts within this many of the latest chunks read.
_KEEP_CHUNKS: Final = RECORD_LIMIT_BYTES // READ_CHUNK_BYTES + 2
_HEADER_SKIPPED: Final = frozenset({RecordKind.BLANK, RecordKind.MALFORMED, RecordKind.FALSY})
_NOT_ENTRIES: Final = frozenset({RecordKind.MALFORMED, RecordKind.FALSY, RecordKind.OVERSIZE})


class RowSink(Protocol):
    """Where a scan puts the entry lines it reads (the catch-up's row writer)."""

    rejected: int

    def add(self, record: Record, data: bytes, base: int) -> None: ...
    def add_value(self, entry: Any, slow: bool, sha256: str, start: int, end: int) -> None: ...
    def flush(self) -> None: ...


@dataclass(frozen=True)
class SourceHeader:
    record: Record
    value: dict[str, Any]
    session_id: str


@dataclass
class _Pass:
    """Counts and the new checkpoint of one scan over part of the file."""

    malformed: int = 0
    checkpoint: tuple[int, int] | None = None  # (start, end) of the last LF-terminated record


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


def read_header(raw: IO[bytes], path: str) -> SourceHeader:
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
            Code.SESSION_NO_HEADER,
            f"the first JSON value of {path} is not a Pi session header "
            '(an object with type "session" and a string id)',
        )
    return SourceHeader(header, value, storable(value["id"]))


def check_scope(header: SourceHeader, path: str, session_id: str | None, project_path: str | None) -> None:
    if session_id is not None and header.value["id"] != session_id:
        raise ContractViolation(
            Code.SOURCE_SCOPE_MISMATCH, f"the header id of {path} is not the session id {session_id!r}"
        )
    if project_path is not None and not same_project(header.value.get("cwd"), project_path):
        raise ContractViolation(
            Code.SOURCE_SCOPE_MISMATCH, f"the header cwd of {path} is not the project path {project_path!r}"
        )
    refuse_unindexable_version(header.value.get("version", UNDEFINED), path)


def scan_range(raw: IO[bytes], base: int, size: int, scanner: RowSink, header: SourceHeader | None) -> _Pass:
    """Index the records in ``[base, size)``; a rebuild (``header`` given) starts at the header.

    Lines are read in chunks and each entry line is decoded once (:func:`_scan_lines`); a line
    beyond the record limit hands the rest of the file to the streaming reader.
    """
    result = _Pass()
    with scanning(base, size) as report:
        resume = _scan_lines(raw, base, size, scanner, header, result, report)
        if resume is not None:
            _scan_records(raw, resume[0], size, scanner, resume[1], result)
    scanner.flush()
    result.malformed += scanner.rejected
    return result


def _take(record: Record, data: bytes, base: int, scanner: RowSink, header: SourceHeader | None,
          result: _Pass) -> SourceHeader | None:
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


def _check_header(header: SourceHeader, sha256: str, start: int) -> None:
    if sha256 != header.record.sha256 or start != header.record.start:
        raise ContractViolation(Code.SESSION_CHANGED, "the session header changed while indexing")


def _scan_records(raw: IO[bytes], base: int, size: int, scanner: RowSink, header: SourceHeader | None,
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


def _scan_lines(raw: IO[bytes], base: int, size: int, scanner: RowSink, header: SourceHeader | None,
                result: _Pass, report: Callable[[int], None]) -> tuple[int, SourceHeader | None] | None:
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
        report(start)
        if not terminated:  # the last line, without its LF
            header = _take(_exact_record(lines[0], False), lines[0], start, scanner, header, result)
            continue
        for line in lines:
            end = start + len(line) + 1
            value: Any = None
            if line[:1] == b"{" and len(line) <= fits:
                try:
                    value = decode(line)
                except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
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
