"""Entry ids by entry number and entry numbers by id, a few bytes per entry instead of a ``dict``.

A rebase scans sources of a million entries (docs/rebase.md, "Memory"): a ``dict[str, int]`` costs
about 130 bytes per entry (the id string, the number object, the slot).  Pi writes ids of eight
lower-case hex digits, so :class:`EntryIds` keeps such an id as its 32-bit value in an
``array('I')`` and finds it again through an open-addressing table of entry numbers
(``array('i')``, built once by :meth:`EntryIds.freeze`); an id of any other shape (another
length, upper case, not a string) is kept as it is, in a ``dict``, so every id is answered
exactly as the plain mapping (the last entry with an id wins) would answer it.
"""

from __future__ import annotations

import random
import re
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from operator import and_, mul, rshift
from typing import Any, Final

_PI_ID: Final = re.compile(r"[0-9a-f]{8}")
_HEX_DIGITS: Final = b"0123456789abcdef"
_WORD: Final = (1 << 64) - 1
_EMPTY: Final = -1
#: A random odd multiplier per process: the table's slots cannot be aimed at from a file.
_MULTIPLIER: Final = random.SystemRandom().getrandbits(64) | 1


def is_pi_id(value: Any) -> bool:
    """Whether ``value`` is an id of Pi's shape: a string of eight lower-case hex digits."""
    return isinstance(value, str) and len(value) == 8 and _PI_ID.fullmatch(value) is not None


def _all_pi_ids(ids: list[Any]) -> bool:
    """:func:`is_pi_id` for every element of a list of strings, in a few C-level passes."""
    if set(map(len, ids)) != {8}:
        return False
    joined = "".join(ids)
    return joined.isascii() and not joined.encode("ascii").translate(None, _HEX_DIGITS)


class EntryIds:
    """The ids of a file's entries in file order (entry numbers 0, 1, ...).

    Built by :meth:`append` and :meth:`extend`, then :meth:`freeze`; afterwards :meth:`get` is the
    plain ``{id: number}`` mapping of the string ids (the last entry wins), :meth:`id_of` the id
    of an entry, and :attr:`first_repeat` the first entry whose string id an earlier entry has.
    """

    def __init__(self) -> None:
        self.keys = array("I")  # the value of a Pi id; 0 for an entry of ``others``
        self.others: dict[int, Any] = {}  # entry number -> an id of another shape (any value)
        self.other_numbers: dict[str, int] = {}  # a string id of another shape -> its last entry
        self.first_repeat: int | None = None
        self._table = array("i")

    def __len__(self) -> int:
        return len(self.keys)

    def append(self, entry_id: Any) -> None:
        number = len(self.keys)
        if is_pi_id(entry_id):
            self.keys.append(int(entry_id, 16))
            return
        self.keys.append(0)
        self.others[number] = entry_id
        if isinstance(entry_id, str):
            if entry_id in self.other_numbers and self.first_repeat is None:
                self.first_repeat = number
            self.other_numbers[entry_id] = number

    def extend(self, ids: list[Any]) -> None:
        """:meth:`append` each of ``ids`` (strings): Pi's ids in bulk."""
        if not _all_pi_ids(ids):
            for entry_id in ids:
                self.append(entry_id)
            return
        values = array("I")
        values.frombytes(bytes.fromhex("".join(ids)))  # four bytes per id, most significant first
        if sys.byteorder == "little":
            values.byteswap()
        self.keys.extend(values)

    def append_all(self, other: EntryIds) -> None:
        """:meth:`append` each id of ``other`` (a table of the entries that follow, not frozen)."""
        base = len(self.keys)
        repeats = [] if other.first_repeat is None else [base + other.first_repeat]
        self.keys.extend(other.keys)
        for number, entry_id in other.others.items():
            self.others[base + number] = entry_id
            if isinstance(entry_id, str):
                if entry_id in self.other_numbers:
                    repeats.append(base + number)
                self.other_numbers[entry_id] = base + number
        if repeats and self.first_repeat is None:
            self.first_repeat = min(repeats)

    # ------------------------------------------------------------------------------------------

    def freeze(self) -> None:
        """Build the table of Pi ids (linear probing over entry numbers, at most 60% full) and
        find the first entry whose id repeats an earlier one; no :meth:`append` after this."""
        keys, others = self.keys, self.others
        size = max(16, len(keys) * 5 // 3)
        table = self._table = array("i", [_EMPTY]) * size
        repeat_at: int | None = None
        for number, slot in enumerate(self._slots(keys)):
            held = table[slot]
            if held < 0:
                if not others or number not in others:
                    table[slot] = number
                continue
            if others and number in others:
                continue
            key = keys[number]
            while held >= 0 and keys[held] != key:
                slot += 1
                if slot == size:
                    slot = 0
                held = table[slot]
            if held >= 0 and repeat_at is None:
                repeat_at = number
            table[slot] = number  # the later entry wins, as in a dict
        if repeat_at is not None and (self.first_repeat is None or repeat_at < self.first_repeat):
            self.first_repeat = repeat_at

    def _slots(self, keys: Iterable[int]) -> Iterator[int]:
        """Each key's home slot: a random multiplier's product, scaled to the table's size."""
        return map(rshift, map(mul, map(and_, map(mul, keys, repeat(_MULTIPLIER)), repeat(_WORD)),
                               repeat(len(self._table))), repeat(64))

    def _lookup(self, key: int) -> int | None:
        table = self._table
        if not table:
            return None
        size = len(table)
        slot = next(self._slots((key,)))
        while (held := table[slot]) != _EMPTY:
            if self.keys[held] == key:
                return held
            slot = slot + 1 if slot + 1 < size else 0
        return None

    def get(self, entry_id: Any, default: Any = None) -> Any:
        """The last entry with the string id ``entry_id``, else ``default`` (as ``dict.get``:
        an unhashable value raises ``TypeError``)."""
        if is_pi_id(entry_id):
            number = self._lookup(int(entry_id, 16))
            return default if number is None else number
        return self.other_numbers.get(entry_id, default)

    def __getitem__(self, entry_id: Any) -> int:
        number: int | None = self.get(entry_id)
        if number is None:
            raise KeyError(entry_id)
        return number

    def __contains__(self, entry_id: Any) -> bool:
        return self.get(entry_id) is not None

    def id_of(self, number: int) -> Any:
        """The id of entry ``number``, whatever its shape."""
        others = self.others
        if others and number in others:
            return others[number]
        return f"{self.keys[number]:08x}"

    def ids_of(self, numbers: Sequence[int]) -> list[Any]:
        """``[id_of(n) for n in numbers]``, Pi's ids written as hex in one pass."""
        if self.others:
            return [self.id_of(number) for number in numbers]
        keys = array("I", map(self.keys.__getitem__, numbers))
        if sys.byteorder == "little":
            keys.byteswap()
        return keys.tobytes().hex(" ", 4).split(" ") if keys else []

    def items(self) -> Iterator[tuple[str, int]]:
        """``dict.items()`` of the plain mapping: each string id once, in the order of its first
        entry, with its last entry."""
        if self.first_repeat is None:
            for number in range(len(self.keys)):
                entry_id = self.id_of(number)
                if isinstance(entry_id, str):
                    yield entry_id, number
            return
        seen: set[str] = set()
        for number in range(len(self.keys)):
            entry_id = self.id_of(number)
            if isinstance(entry_id, str) and entry_id not in seen:
                seen.add(entry_id)
                yield entry_id, self[entry_id]

    def occurrences(self, wanted: Iterable[str]) -> dict[str, list[int]]:
        """Every entry number of each id of ``wanted``, in order (the exact parent rule of a file
        whose ids repeat)."""
        found: dict[str, list[int]] = {entry_id: [] for entry_id in wanted}
        for number in range(len(self.keys)):
            entry_id = self.id_of(number)
            if isinstance(entry_id, str) and entry_id in found:
                found[entry_id].append(number)
        return found


def latest_before(occurrences: list[int], number: int) -> int | None:
    """The parent rule over an id's entries: the last one before ``number``, else the last one."""
    if not occurrences:
        return None
    index = bisect_left(occurrences, number)
    return occurrences[index - 1] if index else occurrences[-1]
