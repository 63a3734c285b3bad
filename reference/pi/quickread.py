"""One block read of an ordinary session file into a compact tree, for ``session inspect``.

:func:`reference.pi.exact.session.load_session` keeps a :class:`reference.pi.exact.reader.Record` per line
and hashes every line; on a file Pi wrote that costs several times Pi's own open.  This read
goes through :func:`reference.pi.model.blocks.ordinary_blocks` (which refuses any line the exact
reader would classify as other than an entry object) and refuses more itself, so that what it
accepts reads exactly as the exact reader reads it: every entry has a string type and a string
id, a ``parentId`` that is a string or null or absent, no later line is a session header, and
the header is a version 3 (or newer) one.  Anything else is :class:`NotOrdinary`: the caller
reads the file with the exact reader.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from dataclasses import dataclass
from typing import IO, Any, Final

import msgspec

from reference.pi.model.blocks import Message, NotOrdinary, ordinary_blocks_in
from reference.pi.compacttree import CompactTree, TreeBuilder
from reference.pi.exact.lines import READ_CHUNK_BYTES
from reference.pi.exact.reader import RECORD_LIMIT_BYTES, decode_value, open_session_file
from reference.pi.exact.session import _legacy_version, check_session_path
from reference.pi.exact.toolexchange import Exchanges
from reference.pi.split_work import Forked, collect, fork_bytes
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation


class _CountingStream:
    """Reads through to a file, hashing every byte and counting the lines that end in CR LF
    (in a file of JSON lines a CR can only be whitespace, so each CR LF ends one such line)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.digest = hashlib.sha256()
        self.size = 0
        self.crlf = 0
        self.last = b""

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        if data:
            self.digest.update(data)
            self.size += len(data)
            if self.last == b"\r" or b"\r" in data:
                self.crlf += data.count(b"\r\n") + (self.last == b"\r" and data[:1] == b"\n")
            self.last = data[-1:]
        return data


@dataclass
class QuickSession:
    """What ``session inspect`` needs of an ordinary file, by entry number (file order)."""

    path: str
    size: int
    sha256: str
    header: dict[str, Any]
    unsupported_version: Any
    tree: CompactTree
    types: list[str]
    starts: array[int]
    ends: array[int]  # a line's end, its LF included
    assistant: bytearray  # 1 for a ``message`` entry whose message has role "assistant"
    exchanges: Exchanges
    crlf_lines: int
    unterminated_tail: bool

    def line(self, stream: IO[bytes], number: int) -> bytes:
        """The bytes of an entry's line without its LF, read again by offset."""
        stream.seek(self.starts[number])
        data = stream.read(self.ends[number] - self.starts[number])
        return data[:-1] if data.endswith(b"\n") else data

    def value(self, stream: IO[bytes], number: int) -> Any:
        """An entry's full parsed value, by the JavaScript-faithful parser (as the exact path)."""
        from reference.primitives.jsonbytes import JsonParseError

        try:
            return decode_value(self.line(stream, number))
        except JsonParseError as exc:  # the file changed under us
            raise ContractViolation(  # an ordinary file: line 1 is the header, entry n is line n + 2
                Code.SESSION_CHANGED, f"line {number + 2} no longer parses: {exc}") from None


_STR: Final = frozenset({str})
_PARENT_TYPES: Final = frozenset({str, type(None), msgspec.UnsetType})  # a string, null or absent
#: A file this large is read in two halves at once (:mod:`reference.pi.split_work`).
READ_IN_HALVES_BYTES = 32 * 1024 * 1024


class _Lines(msgspec.Struct, gc=False):
    """The entry table of a run of lines (what one process reads), sendable as msgpack."""

    ids: list[str] = msgspec.field(default_factory=list)
    parent_ids: list[str | None] = msgspec.field(default_factory=list)
    types: list[str] = msgspec.field(default_factory=list)
    starts: bytes = b""  # array("q") bytes, filled in by ``done``
    ends: bytes = b""
    assistant: bytes = b""
    exchanges: list[Any] = msgspec.field(default_factory=list)  # Exchanges' fields, made sendable
    terminated: bool = True
    crlf: int = 0
    last: bytes = b""
    stop: int = 0  # the offset just after the last byte read (a forked copy's half ends there)


class _Reader:
    """Blocks of ordinary lines into a :class:`_Lines` (``NotOrdinary`` for any other line)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.parent_ids: list[str | None] = []
        self.types: list[str] = []
        self.shared: dict[str, str] = {}
        self.starts, self.ends = array("q"), array("q")
        self.assistant = bytearray()
        self.exchanges = Exchanges()
        self.terminated = True

    def add(self, fields: list[Any], starts: list[int], ends: list[int]) -> None:
        ids = [f.id for f in fields]
        types = [f.type for f in fields]
        parent_ids = [f.parentId for f in fields]
        if (not set(map(type, ids)) <= _STR or not set(map(type, types)) <= _STR
                or not set(map(type, parent_ids)) <= _PARENT_TYPES or "session" in types):
            raise NotOrdinary
        first = len(self.types)
        messages = [(number, f.message) for number, f in enumerate(fields, first) if f.type == "message"]
        self.exchanges.add(messages)
        for number, message in messages:
            if message.__class__ is Message and message.role == "assistant":
                self.assistant.extend(bytes(number - len(self.assistant)))
                self.assistant.append(1)
        self.ids += ids
        self.parent_ids += (parent_ids if msgspec.UNSET not in parent_ids
                            else [None if p is msgspec.UNSET else p for p in parent_ids])
        self.types += [self.shared.setdefault(t, t) for t in types]
        self.starts.extend(starts)
        self.ends.extend(ends)

    def done(self, crlf: int, last: bytes) -> _Lines:
        self.assistant.extend(bytes(len(self.types) - len(self.assistant)))
        x = self.exchanges
        return _Lines(self.ids, self.parent_ids, self.types, self.starts.tobytes(), self.ends.tobytes(),
                      bytes(self.assistant), [x.call_numbers.tobytes(), x.call_keys, x.result_numbers.tobytes(),
                                              x.result_keys, x.messageless.tobytes()],
                      self.terminated, crlf, last)


def _read_lines(stream: _CountingStream, *, start: int = 0, size: int | None = None,
                header: list[tuple[int, int]] | None = None) -> _Lines:
    """The entry table of the lines from ``start``; with ``header``, the first line is the
    session header, whose span goes there."""
    reader = _Reader()
    crlf_before = stream.crlf
    for block in ordinary_blocks_in(stream, start=start, size=size, header=header is not None):  # type: ignore[arg-type]
        fields, starts, ends = block.fields, block.starts, block.ends
        if header is not None and not header:
            header.append((starts[0], ends[0]))
            fields, starts, ends = fields[1:], starts[1:], ends[1:]
        reader.add(fields, starts, ends)
        reader.terminated = block.terminated
    return reader.done(stream.crlf - crlf_before, stream.last)


def _second_half(path: str, start: int) -> bytes:
    """The entry table of the lines from ``start`` as msgpack (run in a forked copy)."""
    with open_session_file(path) as raw:
        raw.seek(start)
        stream = _CountingStream(raw)
        lines = _read_lines(stream, start=start)
        lines.stop = start + stream.size
        return msgspec.msgpack.encode(lines)


def _split_point(raw: IO[bytes], size: int) -> int | None:
    """The offset just after the first LF past the middle of the file, if any is near."""
    if size < READ_IN_HALVES_BYTES:
        return None
    raw.seek(size // 2)
    newline = raw.read(RECORD_LIMIT_BYTES).find(b"\n")
    raw.seek(0)
    split = size // 2 + newline + 1
    return split if newline >= 0 and split < size else None


def quick_read(path: str | os.PathLike[str]) -> QuickSession:
    """Read an ordinary session file once, or :class:`NotOrdinary` (read it with the exact
    reader: that also gives every refusal of a bad file its wording).  A large file is read in
    two halves at once."""
    path = os.fspath(path)
    check_session_path(path)
    try:
        raw = open_session_file(path)
    except OSError:
        raise NotOrdinary from None
    header_span: list[tuple[int, int]] = []
    with raw:
        split = _split_point(raw, os.fstat(raw.fileno()).st_size)
        forked = fork_bytes(lambda: [_second_half(path, split)]) if split is not None else None
        stream = _CountingStream(raw)
        halves = [_read_lines(stream, size=split, header=header_span)]
        if not header_span:
            raise NotOrdinary
        if split is not None:
            halves.append(_collected(forked, stream) or _read_lines(stream, start=split))
        raw.seek(header_span[0][0])
        header = decode_value(raw.read(header_span[0][1] - header_span[0][0]).rstrip(b"\n"))
    if not isinstance(header, dict):
        raise NotOrdinary
    legacy, unsupported = _legacy_version(header.get("version"))
    if legacy is not None or any(not isinstance(header.get(name), str) for name in ("cwd", "timestamp")):
        raise NotOrdinary  # legacy files and odd headers: the exact reader's diagnostics
    return _session(path, stream, header, unsupported, halves)


def _collected(forked: Forked | None, stream: _CountingStream) -> _Lines | None:
    """The second half's table from the forked copy, the file's bytes hashed on here; None when
    the copy failed (the caller reads the half itself)."""
    data = collect(forked) if forked is not None else None
    if data is None:
        return None
    lines = msgspec.msgpack.decode(data, type=_Lines)
    while stream.size < lines.stop and (chunk := stream.raw.read(min(READ_CHUNK_BYTES, lines.stop - stream.size))):
        stream.digest.update(chunk)  # the bytes the copy read, and no more (a growing file)
        stream.size += len(chunk)
    return lines


def _session(path: str, stream: _CountingStream, header: dict[str, Any], unsupported: Any,
             halves: list[_Lines]) -> QuickSession:
    """One session from the tables of its halves, in file order."""
    builder = TreeBuilder()
    types: list[str] = []
    starts, ends = array("q"), array("q")
    assistant = bytearray()
    exchanges = Exchanges()
    for half in halves:
        offset = len(types)
        builder.add(half.ids, half.parent_ids)
        half.ids, half.parent_ids = [], []  # the builder has them: no second list to the end
        types += half.types
        starts.frombytes(half.starts)
        ends.frombytes(half.ends)
        assistant += half.assistant
        exchanges.extend(offset, *half.exchanges)
    last = halves[-1]
    crlf = sum(half.crlf for half in halves) + (not last.terminated and last.last == b"\r")
    return QuickSession(
        path=path, size=stream.size, sha256=stream.digest.hexdigest(), header=header,
        unsupported_version=unsupported, tree=builder.build(), types=types, starts=starts, ends=ends,
        assistant=assistant, exchanges=exchanges, crlf_lines=crlf, unterminated_tail=not last.terminated,
    )
