"""A fast read of an ordinary session file: blocks of lines decoded by one ``msgspec`` call.

The streaming reader (:mod:`reference.pi.exact.reader`) classifies every physical line the way Pi does,
one line at a time; its Python work per line, not hashing, is what a rebase of a large source
spends.  Pi itself never writes a blank, malformed, non-object or oversize line, so for the files
Pi writes the classification is trivial: the first line is the header, every other line is an
entry object.  :func:`ordinary_blocks` reads such a file in blocks and decodes each block of lines
as one JSON array; a line ``msgspec`` refuses (a lone surrogate escape, say) is decoded alone
with the JavaScript-faithful parser.  The moment a line is anything but an object within the
record limit it raises :class:`NotOrdinary`, and the caller reads the file again with the exact
reader, so every unusual file gets exactly the exact reader's answer.

Besides the fields of the entry table, the same decode reads the tool-exchange fields of a
message (contract §6.4: the role, the ids of assistant ``toolCall`` blocks, a result's
``toolCallId``, or that the message is absent).  A line whose message does not fit that typed
shape is decoded by the JavaScript-faithful parser and reduced by :func:`exact_fields` to exactly
what the plain analysis looks at.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from itertools import accumulate
from typing import IO, Any, Final, NamedTuple

import msgspec

from reference.pi.exact.lines import LineTooLong, line_chunks
from reference.pi.exact.reader import HEADER_SCAN_LIMIT_BYTES, RECORD_LIMIT_BYTES, decode_value, defined
from reference.primitives.jsonbytes import JsonParseError

_BLOCK_LINES: Final = 512


class NotOrdinary(Exception):
    """The file holds a line the fast read does not classify; use the exact reader."""


class ContentBlock(msgspec.Struct, gc=False):
    type: Any = msgspec.UNSET
    id: Any = msgspec.UNSET


class Message(msgspec.Struct, gc=False):
    """The fields of a message that a tool exchange has (contract §6.4)."""

    role: Any = msgspec.UNSET
    content: list[ContentBlock] | str | msgspec.UnsetType | None = msgspec.UNSET
    toolCallId: Any = msgspec.UNSET


class Fields(msgspec.Struct, gc=False):
    type: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    parentId: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    message: Message | msgspec.UnsetType | None = msgspec.UNSET


_BLOCK: Final = msgspec.json.Decoder(list[Fields])
_SPANS: Final = msgspec.json.Decoder(list[msgspec.Raw])
_JSON_WHITESPACE: Final = b" \t\r\n"
_ONE: Final = msgspec.json.Decoder(Fields)


class Row(NamedTuple):
    """One entry line: its 1-based line number, byte span, whether it ends with a LF, and the
    fields a rebase scan keeps (absent fields are ``UNDEFINED``)."""

    line: int
    start: int
    end: int
    terminated: bool
    type: Any
    id: Any
    parent_id: Any
    timestamped: bool


class Block(NamedTuple):
    """Consecutive lines: the first one's number, each line's byte span and decoded fields
    (``msgspec.UNSET`` where absent), and whether the last line ends with a LF."""

    first_line: int
    starts: list[int]
    ends: list[int]
    fields: list[Fields]
    terminated: bool

    def row(self, index: int) -> Row:
        fields = self.fields[index]
        return Row(self.first_line + index, self.starts[index], self.ends[index],
                   self.terminated or index < len(self.fields) - 1, defined(fields.type), defined(fields.id),
                   defined(fields.parentId), isinstance(fields.timestamp, str))


def exact_fields(value: dict[str, Any]) -> Fields:
    """The fields of an entry decoded by the JavaScript-faithful parser: what the typed read
    keeps, with a message reduced to what ``toolexchange.exchange_issues`` looks at (a message
    that is not an object has no role; content blocks that are not objects are never calls)."""
    unset = msgspec.UNSET
    message = value.get("message", unset)
    if isinstance(message, dict):
        content = message.get("content", unset)
        blocks = ([ContentBlock(block.get("type", unset), block.get("id", unset))
                   for block in content if isinstance(block, dict)] if isinstance(content, list) else unset)
        message = Message(message.get("role", unset), blocks, message.get("toolCallId", unset))
    elif message is not None and message is not unset:
        message = Message()
    return Fields(value.get("type", unset), value.get("id", unset), value.get("parentId", unset),
                  value.get("timestamp", unset), message)


def line_fields(data: bytes) -> Fields:
    """The fields of one line: the typed read, else the JavaScript-faithful parser (its
    :class:`JsonParseError` propagates; a value that is not an object is :class:`NotOrdinary`)."""
    try:
        return _ONE.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        pass
    value = decode_value(data)
    if not isinstance(value, dict):
        raise NotOrdinary
    return exact_fields(value)


def _one(data: bytes) -> Fields:
    try:
        return line_fields(data)
    except JsonParseError:
        raise NotOrdinary from None


def _decode(lines: list[bytes]) -> list[Fields]:
    """The fields of each line.  A block is decoded as one array only when its elements are
    exactly its lines: a line such as ``{"a":[{}`` must never pair with the next one."""
    if max(map(len, lines), default=0) + 1 > RECORD_LIMIT_BYTES:
        raise NotOrdinary
    joined = b"[" + b",".join(lines) + b"]"
    if len(lines) > 1 and _SURROGATE_ESCAPE.search(joined) is not None:
        return _decode_around(lines, _escaping_lines(lines, joined))
    try:
        spans = _SPANS.decode(joined)
        if len(spans) == len(lines) and (
                list(map(bytes, spans)) == lines
                or all(bytes(span) == line.strip(_JSON_WHITESPACE) for span, line in zip(spans, lines, strict=True))):
            return _BLOCK.decode(joined)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        odd = _refused_lines(exc, lines)
        if odd:
            return _decode_around(lines, odd)
    return [_one(line) for line in lines]


_AT_ELEMENT: Final = re.compile(r"- at `\$\[(\d+)\]")
_AT_BYTE: Final = re.compile(r"\(byte (\d+)\)$")
_SURROGATE_ESCAPE: Final = re.compile(rb"\\u[dD]")


def _refused_lines(error: Exception, lines: list[bytes]) -> list[int]:
    """The lines of a block that its one-array decode refused for, in order: the
    element or byte its error names (a block with a surrogate escape is split before it is
    decoded: :func:`_escaping_lines`); empty when none is named."""
    message = str(error)
    odd: set[int] = set()
    element = _AT_ELEMENT.search(message)
    if element is not None:
        odd.add(int(element.group(1)))
    at_byte = _AT_BYTE.search(message)
    ends = list(accumulate(len(line) + 1 for line in lines))  # in ``joined``: the "," or "]" after each line
    if at_byte is not None:
        odd.add(bisect.bisect_left(ends, int(at_byte.group(1))))
    return sorted(index for index in odd if index < len(lines))


def _escaping_lines(lines: list[bytes], joined: bytes) -> list[int]:
    """The lines with a surrogate escape (msgspec refuses a lone one), each read alone before a
    block is decoded as one array: files that have one tend to have many."""
    ends = list(accumulate(len(line) + 1 for line in lines))
    return sorted({bisect.bisect_left(ends, match.start()) for match in _SURROGATE_ESCAPE.finditer(joined)})


def _decode_around(lines: list[bytes], odd: list[int]) -> list[Fields]:
    """What :func:`_decode` gives line by line, with the runs between the ``odd`` lines
    decoded as arrays again (each line's fields are the same either way)."""
    fields: list[Fields] = []
    start = 0
    for index in odd:
        if index > start:
            fields += _decode(lines[start:index])
        fields.append(_one(lines[index]))
        start = index + 1
    if start < len(lines):
        fields += _decode(lines[start:])
    return fields


def ordinary_blocks(stream: IO[bytes], *, start: int = 0, size: int | None = None,
                    header: bool = True) -> Iterator[Block]:
    """Every line of an ordinary session file in blocks, header first, or :class:`NotOrdinary`:
    the lines from offset ``start`` (where the stream is), at most ``size`` bytes; without
    ``header`` the first line is an entry like any other, and line numbers count from the first
    line read."""
    number = 1
    try:
        for position, lines, terminated in line_chunks(stream, RECORD_LIMIT_BYTES, start=start, size=size):
            for first in range(0, len(lines), _BLOCK_LINES):
                block = lines[first : first + _BLOCK_LINES]
                last_block = first + _BLOCK_LINES >= len(lines)
                ends = list(accumulate((len(line) + 1 for line in block), initial=position))
                starts = ends[:-1]
                del ends[0]
                if last_block and not terminated:
                    ends[-1] -= 1
                fields = _decode(block)
                if number == 1 and header:
                    first_value = fields[0]
                    if (ends[0] > HEADER_SCAN_LIMIT_BYTES or first_value.type != "session"
                            or not isinstance(first_value.id, str)):
                        raise NotOrdinary
                yield Block(number, starts, ends, fields, terminated or not last_block)
                number += len(block)
                position = ends[-1]
    except LineTooLong:
        raise NotOrdinary from None
