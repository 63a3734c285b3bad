"""The read side of a catch-up (contract §5.1): the session header checks (§2.5 step 1) and the
entry lines of a byte range of the file, read through the exact reader.

The session model's block read keeps only an entry's tree fields and refuses a file with any
odd line; a catch-up needs every entry line's whole JavaScript value (its searchable text), the
SHA-256 of its bytes, and Pi's classification of every odd line, which it counts and skips.  So
the range is read by the exact reader's one line scanner (:func:`reference.pi.exact.lines.line_chunks`,
a line beyond the record limit hashed in pieces and never kept), each line hashed and decoded
once; a line ``msgspec`` does not decode as an object is classified by the exact reader alone.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any, Final

import msgspec

from reference.pi.exact.header import refuse_unindexable_version, same_project
from reference.pi.exact.lines import LongLine, line_chunks
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
from reference.primitives.jsonbytes import UNDEFINED, JsonParseError
from reference.recall.progress import scanning
from reference.recall.sqlite_text import storable

_HEADER_SKIPPED: Final = frozenset({RecordKind.BLANK, RecordKind.MALFORMED, RecordKind.FALSY})
_NOT_ENTRIES: Final = frozenset({RecordKind.MALFORMED, RecordKind.FALSY, RecordKind.OVERSIZE})
_DECODE_ERRORS: Final = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


@dataclass(frozen=True)
class SourceHeader:
    record: Record
    value: dict[str, Any]
    session_id: str


class EntryLine(msgspec.Struct, frozen=True, gc=False):
    """An object line of the range: its value (``slow``: decoded by the JavaScript-faithful
    parser, which may keep lone surrogates), the SHA-256 of its bytes and its span."""

    value: Any
    slow: bool
    sha256: str
    start: int
    end: int


@dataclass(frozen=True)
class OpenSession:
    """The session file a catch-up reads: its descriptor, path, ``fstat`` and checked header."""

    raw: IO[bytes]
    path: str
    info: os.stat_result
    header: SourceHeader


@dataclass
class RangeRead:
    """Counts and the new checkpoint of one read over part of the file."""

    malformed: int = 0
    checkpoint: tuple[int, int] | None = None  # (start, end) of the last LF-terminated line


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


def open_source(raw: IO[bytes], path: str) -> OpenSession:
    """The open file as a catch-up reads it: a regular, non-empty file with a session header."""
    info = os.fstat(raw.fileno())  # the size and mtime of the very file read after
    if not stat.S_ISREG(info.st_mode):
        raise ContractViolation(Code.SESSION_NOT_A_FILE, f"not a regular file: {path}")
    if info.st_size == 0:
        raise ContractViolation(Code.SESSION_EMPTY, f"the session file is empty (0 bytes): {path}")
    return OpenSession(raw, path, info, read_header(raw, path))


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


def decode_entry(data: bytes) -> tuple[Any, bool]:
    """The parsed line and whether the JavaScript-faithful path (which may keep lone surrogates) ran."""
    try:
        return msgspec.json.decode(data), False
    except _DECODE_ERRORS:
        pass
    try:
        return decode_value(data), True
    except JsonParseError:
        return UNDEFINED, True


def read_range(source: OpenSession, base: int, add: Callable[[EntryLine], None], *, rebuild: bool) -> RangeRead:
    """Hand ``add`` every object line from ``base`` to the size ``fstat`` saw that is not a
    session line, in file order; blank lines are skipped, any other line Pi does not keep is
    counted as malformed.  A ``rebuild`` checks that the first session line is the indexed header."""
    raw, size = source.raw, source.info.st_size
    header: SourceHeader | None = source.header if rebuild else None
    result = RangeRead()
    raw.seek(base)
    decode = msgspec.json.decode
    with scanning(source.path, base, size) as report:
        for chunk in line_chunks(raw, RECORD_LIMIT_BYTES, start=base, size=size - base, long_lines=True):
            if isinstance(chunk, LongLine):  # oversize: hashed in pieces, never decoded
                if chunk.terminated:
                    result.checkpoint = (chunk.start, chunk.end)
                result.malformed += 1
                continue
            start, lines, terminated = chunk
            report(start)
            last = len(lines) - 1
            for index, line in enumerate(lines):
                ended = terminated or index < last
                end = start + len(line) + ended
                if ended:
                    result.checkpoint = (start, end)
                value: Any = None
                slow = False
                if line[:1] == b"{" and len(line) + ended <= RECORD_LIMIT_BYTES:
                    try:
                        value = decode(line)
                    except _DECODE_ERRORS:
                        value = None  # the exact reader's own classification decides
                kind = RecordKind.ENTRY
                if value is None:
                    record = next(iter_records(io.BytesIO(line + b"\n" if ended else line)))
                    kind = record.kind if record.is_object or record.kind is not RecordKind.ENTRY else RecordKind.MALFORMED
                    if kind is RecordKind.ENTRY:
                        value, slow = decode_entry(line)
                elif value.get("type") == "session":
                    kind = RecordKind.HEADER
                if kind is RecordKind.ENTRY:
                    add(EntryLine(value, slow, hashlib.sha256(line).hexdigest(), start, end))
                elif kind is RecordKind.HEADER or kind is RecordKind.EXTRA_HEADER:
                    if header is not None:
                        if (hashlib.sha256(line).hexdigest(), start) != (header.record.sha256, header.record.start):
                            raise ContractViolation(Code.SESSION_CHANGED, "the session header changed while indexing")
                        header = None  # a later session line is ignored, as Pi ignores it
                elif kind in _NOT_ENTRIES:
                    result.malformed += 1
                start = end
    return result
