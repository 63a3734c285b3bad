"""One block read of an ordinary session file into a compact tree, for ``session inspect``.

:func:`reference.pi.session.load_session` keeps a :class:`reference.pi.reader.Record` per line
and hashes every line; on a file Pi wrote that costs several times Pi's own open.  This read
goes through :func:`reference.pi.blockscan.ordinary_blocks` (which refuses any line the exact
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

from reference.pi.blockscan import Message, NotOrdinary, ordinary_blocks
from reference.pi.compacttree import CompactTree, TreeBuilder
from reference.pi.reader import decode_value, open_session_file
from reference.pi.session import _legacy_version, check_session_path
from reference.pi.toolexchange import Exchanges
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


def quick_read(path: str | os.PathLike[str]) -> QuickSession:
    """Read an ordinary session file once, or :class:`NotOrdinary` (read it with the exact
    reader: that also gives every refusal of a bad file its wording)."""
    path = os.fspath(path)
    check_session_path(path)
    try:
        raw = open_session_file(path)
    except OSError:
        raise NotOrdinary from None
    builder = TreeBuilder()
    types: list[str] = []
    shared: dict[str, str] = {}
    starts, ends = array("q"), array("q")
    assistant = bytearray()
    exchanges = Exchanges()
    header_span: tuple[int, int] | None = None
    terminated = True
    with raw:
        stream = _CountingStream(raw)
        for block in ordinary_blocks(stream):  # type: ignore[arg-type]
            fields = block.fields
            block_starts, block_ends = block.starts, block.ends
            if header_span is None:
                header_span = (block_starts[0], block_ends[0])
                fields, block_starts, block_ends = fields[1:], block_starts[1:], block_ends[1:]
            ids = [f.id for f in fields]
            block_types = [f.type for f in fields]
            parent_ids = [f.parentId for f in fields]
            if (not set(map(type, ids)) <= _STR or not set(map(type, block_types)) <= _STR
                    or not set(map(type, parent_ids)) <= _PARENT_TYPES or "session" in block_types):
                raise NotOrdinary
            first = len(types)
            messages = [(number, f.message) for number, f in enumerate(fields, first) if f.type == "message"]
            exchanges.add(messages)
            for number, message in messages:
                if message.__class__ is Message and message.role == "assistant":
                    assistant.extend(bytes(number - len(assistant)))
                    assistant.append(1)
            builder.add(ids, parent_ids if msgspec.UNSET not in parent_ids
                        else [None if p is msgspec.UNSET else p for p in parent_ids])
            types.extend([shared.setdefault(t, t) for t in block_types])
            starts.extend(block_starts)
            ends.extend(block_ends)
            terminated = block.terminated
        assistant.extend(bytes(len(types) - len(assistant)))
        if header_span is None:
            raise NotOrdinary
        raw.seek(header_span[0])
        header = decode_value(raw.read(header_span[1] - header_span[0]).rstrip(b"\n"))
    if not isinstance(header, dict):
        raise NotOrdinary
    legacy, unsupported = _legacy_version(header.get("version"))
    if legacy is not None or any(not isinstance(header.get(name), str) for name in ("cwd", "timestamp")):
        raise NotOrdinary  # legacy files and odd headers: the exact reader's diagnostics
    return QuickSession(
        path=path, size=stream.size, sha256=stream.digest.hexdigest(), header=header,
        unsupported_version=unsupported, tree=builder.build(), types=types, starts=starts, ends=ends,
        assistant=assistant, exchanges=exchanges, crlf_lines=stream.crlf + (not terminated and stream.last == b"\r"),
        unterminated_tail=not terminated,
    )
