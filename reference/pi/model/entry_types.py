"""The entry types of a scanned file, one byte per entry instead of a list slot.

A session has a handful of entry types (``message``, ``custom``, ``compaction``, ...): each
distinct string gets a one-byte code, and a type that is not a string (or a 255th distinct
string) is kept as it is, by entry number.  Reading an entry's type gives exactly what the
plain list held.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

_ODD: Final = 255  # the type is in ``odd``


class EntryTypes:
    """Entry number -> the entry's ``type`` value, as the plain list of types would answer."""

    def __init__(self) -> None:
        self.codes = bytearray()
        self.names: list[str] = []  # code -> type
        self._code_of: dict[str, int] = {}
        self.odd: dict[int, Any] = {}  # entry number -> a type without a code

    def __len__(self) -> int:
        return len(self.codes)

    def _code(self, kind: str) -> int:
        code = self._code_of.get(kind)
        if code is None:
            if len(self.names) >= _ODD:
                return _ODD
            code = self._code_of[kind] = len(self.names)
            self.names.append(kind)
        return code

    def append(self, kind: Any) -> None:
        code = self._code(kind) if isinstance(kind, str) else _ODD
        if code == _ODD:
            self.odd[len(self.codes)] = kind
        self.codes.append(code)

    def extend(self, kinds: list[str]) -> None:
        """:meth:`append` each of ``kinds`` (strings)."""
        for kind in set(kinds).difference(self._code_of):
            if self._code(kind) == _ODD:
                for each in kinds:
                    self.append(each)
                return
        self.codes.extend(map(self._code_of.__getitem__, kinds))

    def append_all(self, other: EntryTypes) -> None:
        """:meth:`append` each type of ``other`` (the entries that follow), code by code."""
        if other.odd or len(set(self.names).union(other.names)) >= _ODD:
            for kind in other:
                self.append(kind)
            return
        codes = bytes(map(self._code, other.names))
        self.codes += other.codes.translate(codes + bytes(256 - len(codes)))

    def __getitem__(self, number: int) -> Any:
        code = self.codes[number]
        if code == _ODD:
            return self.odd[number if number >= 0 else number + len(self.codes)]
        return self.names[code]

    def __iter__(self) -> Iterator[Any]:
        for number in range(len(self.codes)):
            yield self[number]

    def numbers_of(self, kind: str) -> Iterator[int]:
        """The entries of type ``kind``, in file order."""
        code = self._code_of.get(kind)
        if code is None:
            yield from (number for number, value in self.odd.items() if value == kind)
            return
        codes, needle = self.codes, bytes((code,))
        at = codes.find(needle)
        while at >= 0:
            yield at
            at = codes.find(needle, at + 1)
