"""The compact entry table a scan (:mod:`reference.pi.model.session`) builds, a few bytes per entry.

Per entry: its id (:class:`reference.pi.model.entry_ids.EntryIds`), its parent as an entry number
(``array('i')``), its type (:class:`reference.pi.model.entry_types.EntryTypes`), its byte span (a
start and a length) and, for message entries, the keys of its tool exchanges
(:class:`reference.pi.model.exchanges.CompactExchanges`) and whether it is an assistant message:
docs/rebase.md, "Memory".
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from itertools import repeat
from operator import eq, sub
from types import NoneType
from typing import IO, Any, Final

import msgspec

from reference.pi.exact.entries import has_entry_fields
from reference.pi.model.blocks import Block, Message, Row
from reference.pi.model.entry_ids import EntryIds, latest_before
from reference.pi.model.entry_types import EntryTypes
from reference.pi.model.exchanges import CompactExchanges

ROOT: Final = -1  # parentId null
MISSING: Final = -2  # parentId names no entry
_FOUR_BYTES: Final = 0xFFFF_FFFF
NO_ENTRY: Final = object()  # the id before the first entry: no parentId equals it


class SpanEnds:
    """Entry number -> the end of its byte span, from the starts and the lengths (an entry line
    is at most the record limit, so a length fits four bytes where an end needs eight)."""

    def __init__(self, starts: array[int], lengths: array[int]) -> None:
        self._starts = starts
        self._lengths = lengths

    def __len__(self) -> int:
        return len(self._lengths)

    def __getitem__(self, number: int) -> int:
        return self._starts[number] + self._lengths[number]

    def __iter__(self) -> Iterator[int]:
        return map(int.__add__, self._starts, self._lengths)


class ScanTable:
    """The compact entry table a scan builds, one entry line at a time.

    A parent that is the entry just before (what Pi writes) is that entry's number at once;
    any other parent id waits in ``pending`` until every id is known (:meth:`resolve`)."""

    def __init__(self) -> None:
        self.ids = EntryIds()
        self.parents = array("i")
        self.starts = array("I")  # widened to "q" past 4 GiB (:meth:`_room`)
        self.lengths = array("I")
        self.types = EntryTypes()
        self.empty_parents: set[int] = set()
        self.pending_numbers = array("i")  # entries whose parentId is another entry's id ...
        self.pending_ids: list[str] = []  # ... that id
        self.incomplete = False
        self.first_invalid_line: int | None = None  # the first line that is not a Pi entry
        self.invalid_line: int | None = None  # that, or the first line whose id repeats
        self.extra_headers = 0
        self.last_id: Any = NO_ENTRY
        self.exchanges: CompactExchanges | None = CompactExchanges()
        self.assistants = array("i")  # the message entries whose message has role "assistant"

    def add_block(self, block: Block) -> None:
        """:meth:`add` for each line of ``block``, list by list when every line is a Pi entry
        (what Pi writes); line by line otherwise."""
        fields = block.fields
        count = len(fields)
        ids = [f.id for f in fields]
        types = [f.type for f in fields]
        parent_ids = [f.parentId for f in fields]
        if (not count or not block.terminated or self.first_invalid_line is not None
                or not all(map(isinstance, types, repeat(str))) or not all(map(isinstance, ids, repeat(str)))
                or not all(map(isinstance, parent_ids, repeat((str, NoneType))))
                or not all(map(isinstance, [f.timestamp for f in fields], repeat(str)))
                or "session" in types):
            for index in range(count):
                row = block.row(index)
                if row.type == "session":
                    self.incomplete |= not row.terminated
                    self.extra_headers += 1
                else:
                    self.add(row, message=fields[index].message)
            return
        first = len(self.types)
        if self.exchanges is not None:
            self._add_messages([(number, entry.message) for number, kind, entry
                                in zip(range(first, first + count), types, fields, strict=True) if kind == "message"])
        previous = [self.last_id, *ids[:-1]]
        if isinstance(self.last_id, str) and "" not in parent_ids and all(map(eq, parent_ids, previous)):
            self.parents.extend(range(first - 1, first + count - 1))
        else:
            for number, parent_id, before in zip(range(first, first + count), parent_ids, previous, strict=True):
                self._add_parent(number, parent_id, before)
        self.ids.extend(ids)
        self.types.extend(types)
        self._room(block.ends[-1])
        self.starts.extend(block.starts)
        self.lengths.extend(map(sub, block.ends, block.starts))
        self.last_id = ids[-1]

    def append_all(self, other: ScanTable, lines_before: int) -> None:
        """The table of the lines that follow (read apart, numbered from 0 and from line 1, its
        parents not resolved) after this one's ``lines_before`` lines."""
        count = len(self.types)
        self.ids.append_all(other.ids)
        self.parents.extend(parent + count if parent >= 0 else parent for parent in other.parents)
        self.pending_numbers.extend(number + count for number in other.pending_numbers)
        self.pending_ids += other.pending_ids
        self.empty_parents.update(number + count for number in other.empty_parents)
        self.types.append_all(other.types)
        if other.starts.typecode != self.starts.typecode:
            self.starts = array("q", self.starts)
        self.starts.extend(array(self.starts.typecode, other.starts))
        self.lengths.extend(other.lengths)
        self.incomplete |= other.incomplete
        if self.first_invalid_line is None and other.first_invalid_line is not None:
            self.first_invalid_line = other.first_invalid_line + lines_before
        self.extra_headers += other.extra_headers
        if len(other.types):
            self.last_id = other.last_id
        if self.exchanges is not None and other.exchanges is not None:
            self.exchanges.append_all(other.exchanges, count)
        self.assistants.extend(number + count for number in other.assistants)

    def _add_messages(self, messages: list[tuple[int, Any]]) -> None:
        """The tool-exchange facts of these (entry number, typed message) pairs, and which are
        assistant messages (the model a context's settings name)."""
        assert self.exchanges is not None
        self.exchanges.add(messages)
        self.assistants.extend(number for number, message in messages
                               if message.__class__ is Message and message.role == "assistant")

    def _room(self, end: int) -> None:
        """Starts of four bytes while the file is under 4 GiB, of eight past it."""
        if end > _FOUR_BYTES and self.starts.typecode == "I":
            self.starts = array("q", self.starts)

    def _add_parent(self, number: int, parent_id: str | None, previous_id: Any) -> None:
        """The parent of a Pi entry: the entry before it, a root, or a lookup for :meth:`resolve`."""
        if parent_id is None:
            self.parents.append(ROOT)
            return
        if not parent_id:
            self.empty_parents.add(number)
        if parent_id == previous_id and isinstance(previous_id, str):
            self.parents.append(number - 1)
            return
        self.pending_numbers.append(number)
        self.pending_ids.append(parent_id)
        self.parents.append(MISSING)

    def add(self, row: Row, is_object: bool = True, message: Any = msgspec.UNSET) -> None:
        """One entry line (``message``: its typed message, when the exchanges are kept)."""
        number = len(self.types)
        if self.exchanges is not None and row.type == "message":
            self._add_messages([(number, message)])
        entry_id, parent_id, entry_type = row.id, row.parent_id, row.type
        if not row.terminated:
            self.incomplete = True
        if not is_object:
            self.incomplete = True
        # An object without a string type parses: it is not a Pi entry (step 18, archive-invalid-ids).
        pi_entry = is_object and has_entry_fields(entry_type, entry_id, parent_id, row.timestamped)
        if self.first_invalid_line is None and not pi_entry:
            self.first_invalid_line = row.line
        if isinstance(parent_id, str) and pi_entry:
            self._add_parent(number, parent_id, self.last_id)
        else:
            self.parents.append(ROOT)
        self.ids.append(entry_id)
        self.types.append(entry_type)
        self._room(row.end)
        self.starts.append(row.start)
        self.lengths.append(row.end - row.start)
        self.last_id = entry_id

    def resolve(self, raw: IO[bytes]) -> None:
        """Once every line is read: the table of ids, the first line whose id repeats an earlier
        one (``raw`` is read again to number it, only then), and the parents that waited.  A
        parent is the last entry with that id before the child, else the last one after it."""
        ids = self.ids
        ids.freeze()
        self.invalid_line = self.first_invalid_line
        if ids.first_repeat is not None:
            line = _line_at(raw, self.starts[ids.first_repeat])
            if self.invalid_line is None or line < self.invalid_line:
                self.invalid_line = line
            occurrences = ids.occurrences(set(self.pending_ids))
            for number, parent_id in zip(self.pending_numbers, self.pending_ids, strict=True):
                parent = latest_before(occurrences[parent_id], number)
                self.parents[number] = MISSING if parent is None else parent
        else:
            for number, parent_id in zip(self.pending_numbers, self.pending_ids, strict=True):
                self.parents[number] = ids.get(parent_id, MISSING)
        self.pending_numbers, self.pending_ids = array("i"), []


def _line_at(raw: IO[bytes], offset: int) -> int:
    """The 1-based number of the physical line that starts at byte ``offset``."""
    raw.seek(0)
    newlines, remaining = 0, offset
    while remaining > 0:
        chunk = raw.read(min(remaining, 1 << 20))
        if not chunk:
            break
        newlines += chunk.count(b"\n")
        remaining -= len(chunk)
    return newlines + 1


