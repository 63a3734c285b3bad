"""The lines of a session file, read a chunk at a time: the one chunked line scanner.

Every reader of a session file that splits it into lines reads it here: the streaming reader
(:mod:`reference.pi.exact.reader`), the block read of ordinary files (:mod:`reference.pi.model.blocks`)
and the index's catch-up.  Each chunk's complete lines come out together, the bytes after the
last LF wait for the next chunk, and an unterminated last line comes out alone at the end.  A
line that outgrows the limit before its LF either stops the read (:class:`LineTooLong`: the
caller reads on another way) or, for the streaming reader, is hashed in pieces and never kept
(:class:`LongLine`), so memory stays bounded by the limit plus one chunk.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import IO, Any, Final, Literal, NamedTuple, overload

READ_CHUNK_BYTES: Final = 1024 * 1024


class LineTooLong(Exception):
    """A line outgrew the limit before its LF; ``offset`` is where it starts."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


class LineChunk(NamedTuple):
    """Consecutive lines without their LF; ``start`` is the offset of the first one."""

    start: int
    lines: list[bytes]
    terminated: bool  # the last line ends with a LF (only the file's last line may not)


class LongLine(NamedTuple):
    """A line that outgrew the limit before its LF: its span, SHA-256 (without the LF), whether
    it ends with a LF and whether its last byte before that is a CR."""

    start: int
    end: int
    sha256: str
    terminated: bool
    crlf: bool


@overload
def line_chunks(stream: IO[bytes], limit: int, *, start: int = 0, size: int | None = None,
                long_lines: Literal[False] = False) -> Iterator[LineChunk]: ...
@overload
def line_chunks(stream: IO[bytes], limit: int, *, start: int = 0, size: int | None = None,
                long_lines: Literal[True]) -> Iterator[LineChunk | LongLine]: ...
def line_chunks(stream: IO[bytes], limit: int, *, start: int = 0, size: int | None = None,
                long_lines: bool = False) -> Iterator[LineChunk | LongLine]:
    """The lines of ``stream`` from its position (offset ``start``), at most ``size`` bytes (or
    to the end; a file that ends sooner ends the read).  A line longer than ``limit`` without a
    LF in sight is :class:`LineTooLong`, or with ``long_lines`` a :class:`LongLine`."""
    remaining = size
    consumed = start  # offset just after the bytes read so far
    pending = b""
    long: Any = None  # the running hash of a line that outgrew the limit
    long_start = 0
    long_last = b""
    while True:
        want = READ_CHUNK_BYTES if remaining is None else min(READ_CHUNK_BYTES, remaining)
        chunk = stream.read(want) if want > 0 else b""
        if not chunk:
            break
        if remaining is not None:
            remaining -= len(chunk)
        consumed += len(chunk)
        if long is not None:
            newline = chunk.find(b"\n")
            if newline < 0:
                long.update(chunk)
                long_last = chunk[-1:]
                continue
            piece = chunk[:newline]
            long.update(piece)
            last = piece[-1:] or long_last
            yield LongLine(long_start, consumed - len(chunk) + newline + 1, long.hexdigest(), True, last == b"\r")
            long = None
            chunk = chunk[newline + 1:]
        data = pending + chunk if pending else chunk
        first = consumed - len(data)
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            pending = data
            if len(data) > limit:
                if not long_lines:
                    raise LineTooLong(first)
                long, long_start, long_last, pending = hashlib.sha256(data), first, data[-1:], b""
            continue
        pending = data[cut:]
        yield LineChunk(first, data[: cut - 1].split(b"\n"), True)
    if long is not None:
        yield LongLine(long_start, consumed, long.hexdigest(), False, long_last == b"\r")
    elif pending:
        yield LineChunk(consumed - len(pending), [pending], False)
