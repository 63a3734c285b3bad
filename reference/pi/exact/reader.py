"""Streaming canonical reader of a Pi session file.

Yields every physical record with its byte locator ``[start, end)`` (``end`` includes the LF,
or is the file size for an unterminated last line) and the SHA-256 of the line bytes without
the LF (a CR stays).  Records are classified the way Pi 0.84.3's loader treats them, and only
the few fields the session tree needs are decoded, with ``msgspec`` on the fast path and a
JavaScript-faithful ``JSON.parse`` when msgspec refuses a line.  The file is opened read-only,
never whole in memory; a line longer than the record limit is hashed in pieces and not decoded.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from enum import StrEnum
from typing import IO, Any, Final, NamedTuple

import msgspec

from reference.pi.exact.lines import LongLine, line_chunks
from reference.primitives.jsonbytes import UNDEFINED, JsonObject, JsonParseError, js_parse
from reference.primitives.jsvalues import JS_WHITESPACE, truthy

RECORD_LIMIT_BYTES: Final = 4 * 1024 * 1024
HEADER_SCAN_LIMIT_BYTES: Final = 1024 * 1024


class RecordKind(StrEnum):
    """How Pi's loader treats a physical line."""

    HEADER = "header"  # the first parsed value, a valid session header
    ENTRY = "entry"  # kept by Pi as a session entry (even when not a proper object)
    EXTRA_HEADER = "extra-header"  # a later type:"session" line, which Pi ignores
    BLANK = "blank"  # empty or whitespace only: skipped
    MALFORMED = "malformed"  # JSON.parse rejects it: skipped silently by Pi
    FALSY = "falsy"  # null, false, 0 or "": parsed, then skipped by Pi
    OVERSIZE = "oversize"  # longer than the record limit: hashed, never decoded


class _TreeFields(msgspec.Struct):
    """The fields the tree needs; everything else in a line is skipped unparsed."""

    type: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    parentId: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET


_FAST_DECODER: Final = msgspec.json.Decoder(_TreeFields)


class Record(NamedTuple):
    """One physical line of a session file, located, hashed and classified.

    A named tuple: millions are made per large file, and tuple construction is the cheapest.
    """

    line: int  # 1-based physical line number
    start: int
    end: int
    sha256: str
    kind: RecordKind
    terminated: bool  # ends with LF
    crlf: bool  # the byte before the LF (or the end) is CR
    is_object: bool = False
    # Absent fields are UNDEFINED (not None): Pi treats a missing id and a null id differently.
    type: Any = UNDEFINED
    id: Any = UNDEFINED
    parent_id: Any = UNDEFINED
    # Only whether ``timestamp`` is a string (a valid Pi entry needs one); the value is not kept.
    timestamped: bool = False

    @property
    def span(self) -> int:
        return self.end - self.start


def _is_blank(data: bytes) -> bool:
    if data[:1] == b"{":
        return False
    if not data.strip(b" \t\n\r\v\f"):
        return True
    if data.isascii():
        return False
    return not data.decode("utf-8", "replace").strip(JS_WHITESPACE)


def decode_value(data: bytes) -> Any:
    """``JSON.parse`` of a line as Pi reads it: UTF-8 with U+FFFD for invalid bytes."""
    return js_parse(data.decode("utf-8", "replace"))


def _classify(data: bytes) -> tuple[RecordKind, _TreeFields | None, bool]:
    """Kind, tree fields and object-ness of one line of at most the record limit."""
    if _is_blank(data):
        return RecordKind.BLANK, None, False
    try:
        fields = _FAST_DECODER.decode(data)
        return RecordKind.ENTRY, fields, True
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        pass
    try:
        value = decode_value(data)
    except JsonParseError:
        return RecordKind.MALFORMED, None, False
    if not truthy(value):
        return RecordKind.FALSY, None, False
    if isinstance(value, dict):
        unset = msgspec.UNSET
        return RecordKind.ENTRY, _TreeFields(
            type=value.get("type", unset),
            id=value.get("id", unset),
            parentId=value.get("parentId", unset),
            timestamp=value.get("timestamp", unset),
        ), True
    return RecordKind.ENTRY, None, False


def _sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _no_digest(data: bytes) -> str:
    return ""


def _physical_lines(stream: IO[bytes], limit: int, hashed: bool = True) -> Iterator[tuple[int, int, bytes | None, str, bool, bool]]:
    """``(start, end, data_or_None, sha256, terminated, crlf)`` per physical line, bounded memory
    (:func:`reference.pi.exact.lines.line_chunks`); a line longer than the limit (its LF counted) has no data.

    ``hashed=False``: the per-line SHA-256 is ``""`` (a caller that needs no locator hashes).
    """
    digest_of = _sha256_hex if hashed else _no_digest
    for item in line_chunks(stream, limit, long_lines=True):
        if isinstance(item, LongLine):
            yield item.start, item.end, None, (item.sha256 if hashed else ""), item.terminated, item.crlf
            continue
        start, lines, terminated = item
        last = len(lines) - 1
        for index, data in enumerate(lines):
            ended = terminated or index < last
            end = start + len(data) + ended
            yield start, end, (None if len(data) + ended > limit else data), digest_of(data), ended, data.endswith(b"\r")
            start = end


def iter_records(stream: IO[bytes], *, limit: int = RECORD_LIMIT_BYTES, hashed: bool = True) -> Iterator[Record]:
    """Every physical record of an open binary stream, in file order.

    ``hashed=False`` skips the per-line SHA-256 (``Record.sha256`` is ``""``): for a reader that
    needs no index locators, such as the rebase's source scan.
    """
    header_seen = False
    decode = _FAST_DECODER.decode
    for number, (start, end, data, digest, terminated, crlf) in enumerate(_physical_lines(stream, limit, hashed), 1):
        if data is None:
            yield Record(number, start, end, digest, RecordKind.OVERSIZE, terminated, crlf)
            continue
        fields: _TreeFields | None = None
        kind = RecordKind.ENTRY
        is_object = True
        if data[:1] == b"{":  # the fast path: nearly every line of a real session
            try:
                fields = decode(data)
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                kind, fields, is_object = _classify(data)
        else:
            kind, fields, is_object = _classify(data)
        if kind is not RecordKind.ENTRY:
            yield Record(number, start, end, digest, kind, terminated, crlf)
            continue
        if fields is None:
            header_seen = True  # a truthy non-object still counts as Pi's "first entry"
            yield Record(number, start, end, digest, kind, terminated, crlf, is_object)
            continue
        if fields.type == "session":
            kind = RecordKind.EXTRA_HEADER if header_seen else RecordKind.HEADER
        header_seen = True
        yield Record(
            number, start, end, digest, kind, terminated, crlf, is_object,
            defined(fields.type), defined(fields.id), defined(fields.parentId), isinstance(fields.timestamp, str),
        )


def read_header_line(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The first line of a session file as an object, read within the 1 MiB header scan limit.

    For discovery and identity checks that must not scan the whole file; ``ValueError`` (or
    :class:`JsonParseError`) when the first line is not an object.
    """
    with open_session_file(path) as stream:
        return header_line(stream)


def header_line(stream: IO[bytes]) -> JsonObject:
    """:func:`read_header_line` of a file already open (read from where ``stream`` stands)."""
    value = decode_value(stream.read(HEADER_SCAN_LIMIT_BYTES).split(b"\n", 1)[0])
    if not isinstance(value, dict):
        raise ValueError("the first line is not a JSON object")
    return value


def defined(value: Any) -> Any:
    """A typed decode's absent field (``msgspec.UNSET``) as the exact reader's ``UNDEFINED``."""
    return UNDEFINED if value is msgspec.UNSET else value


def open_session_file(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a session read-only; this is the only way the reference opens one."""
    return open(path, "rb")


def read_line_bytes(stream: IO[bytes], record: Record) -> bytes:
    """The bytes of a record without its LF, read again by locator from the same handle."""
    stream.seek(record.start)
    data = stream.read(record.end - record.start)
    return data[:-1] if record.terminated else data
