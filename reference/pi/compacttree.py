"""The session tree of :mod:`reference.pi.exact.tree` kept in compact arrays, for a file of string ids.

:class:`reference.pi.exact.tree.SessionTree` keeps one :class:`reference.pi.exact.reader.Record` per entry
(about 0.9 KB each); ``session inspect`` of a large file needs only each entry's id, its parent
as an entry number and a few flags.  The rules are Pi 0.84.3's, as in the record tree: the last
entry with an id wins, a falsy ``parentId`` makes a root, one that names no entry ends a walk
(a missing parent), the default leaf is the last entry in file order.  Every entry here has a
string id (the fast read hands any other file to the exact reader), so ids are their own keys.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import repeat
from operator import ge
from typing import Any

from reference.pi.exact.tree import walk_to_root

NO_PARENT = -1  # a falsy parentId, or one that names no entry


@dataclass(frozen=True)
class CompactAncestry:
    """Entry numbers root -> leaf, and why the walk stopped (as :class:`reference.pi.exact.tree.Ancestry`)."""

    path: array[int]
    missing_parent: Any = None
    cycle: bool = False


def _empty() -> CompactAncestry:
    return CompactAncestry(array("q"))


@dataclass
class CompactTree:
    """Ids and parent links by entry number (file order, header excluded)."""

    ids: list[str]
    numbers: dict[str, int]  # id -> the number of the last entry with it
    parents: array[int]  # entry number -> its parent's number, or NO_PARENT
    missing: dict[int, str]  # entry number -> its truthy parentId that names no entry
    duplicate_ids: list[str]  # ids used more than once, in the order the repeats appear
    forward: bool  # some parent link points at a later line (a cycle is possible)
    _broken: list[tuple[int, str]] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def default_leaf_id(self) -> str | None:
        return self.ids[-1] if self.ids else None

    def number(self, entry_id: Any) -> int | None:
        return self.numbers.get(entry_id) if isinstance(entry_id, str) else None

    def ancestry(self, leaf: int) -> CompactAncestry:
        numbers, cycle = walk_to_root(leaf, self.parents)
        root = numbers[0]
        return CompactAncestry(numbers, None if cycle else self.missing.get(root), cycle)

    def branch(self, leaf_id: Any) -> CompactAncestry:
        """Pi's ``getBranch(leafId)``: empty for a falsy or unknown leaf."""
        number = self.number(leaf_id) if leaf_id else None
        return _empty() if number is None else self.ancestry(number)

    def session_path(self, leaf_id: Any) -> CompactAncestry:
        """Pi's ``buildSessionPath``: ``null`` gives nothing; an unknown leaf falls back to the
        last entry in file order."""
        if leaf_id is None:
            return _empty()
        number = self.number(leaf_id) if leaf_id else None
        if number is None:
            if not self.ids:
                return _empty()
            number = len(self.ids) - 1
        return self.ancestry(number)

    def broken_links(self) -> list[tuple[int, str]]:
        """(entry number, ``"missing-parent"`` or ``"cycle"``) in file order, as
        :meth:`reference.pi.exact.tree.SessionTree.broken_links` yields them."""
        if self._broken is None:
            self._broken = list(self._broken_links())
        return self._broken

    def _broken_links(self) -> Iterator[tuple[int, str]]:
        if not self.forward:  # every parent precedes its child: no cycle, only missing parents
            for number in sorted(self.missing):
                yield number, "missing-parent"
            return
        reaches = _reaches_root(self.parents)
        missing = self.missing
        for number in range(len(self.ids)):
            if number in missing:
                yield number, "missing-parent"
            elif not reaches[number]:
                yield number, "cycle"


def _reaches_root(parents: array[int]) -> bytearray:
    """Per entry, whether its parent links end at a root (1) rather than in a cycle (0).  The
    links form a functional graph: one walk per entry, each entry settled once."""
    unknown, walking, root, cyclic = 0, 1, 2, 3
    state = bytearray(len(parents))
    for start in range(len(parents)):
        if state[start]:
            continue
        stack = []
        current = start
        while current >= 0 and state[current] == unknown:
            state[current] = walking
            stack.append(current)
            current = parents[current]
        outcome = root if current < 0 or state[current] == root else cyclic
        for walked in stack:
            state[walked] = outcome
    return bytearray(1 if mark == root else 0 for mark in state)


class TreeBuilder:
    """A :class:`CompactTree` built one block of entries at a time, in file order."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.numbers: dict[str, int] = {}
        self.parents = array("q")
        self.pending: dict[int, str] = {}  # parentIds that name no earlier entry (yet)
        self.duplicates: dict[str, None] = {}

    def add(self, ids: list[str], parent_ids: list[Any]) -> None:
        """Entries with string ids and parentIds that are strings, null or absent (falsy: a root)."""
        first = len(self.ids)
        numbers = self.numbers
        if not numbers.keys().isdisjoint(ids) or len(set(ids)) != len(ids):
            for entry_id in ids:
                if entry_id in numbers:
                    self.duplicates[entry_id] = None
                numbers[entry_id] = len(self.ids)
                self.ids.append(entry_id)
        else:
            numbers.update(zip(ids, range(first, first + len(ids)), strict=True))
            self.ids.extend(ids)
        resolved = list(map(numbers.get, parent_ids, repeat(NO_PARENT)))  # a null parent is no key
        if ("" not in parent_ids and resolved.count(NO_PARENT) == parent_ids.count(None)
                and not any(map(ge, resolved, range(first, first + len(ids))))):
            self.parents.extend(resolved)  # every parent named and earlier: what Pi writes
            return
        append = self.parents.append
        for number, parent_id in enumerate(parent_ids, first):
            if not parent_id:
                append(NO_PARENT)
                continue
            parent = numbers.get(parent_id, NO_PARENT)
            if parent == NO_PARENT or parent >= number:
                self.pending[number] = parent_id
                parent = NO_PARENT
            append(parent)

    def build(self) -> CompactTree:
        numbers, parents = self.numbers, self.parents
        missing: dict[int, str] = {}
        forward = bool(self.duplicates)
        for number, parent_id in self.pending.items():
            parent = numbers.get(parent_id)
            if parent is None:
                missing[number] = parent_id
            else:
                parents[number] = parent
                forward = True
        if self.duplicates:  # the last entry with an id wins, also for links made before it came
            ids = self.ids
            for number, parent in enumerate(parents):
                if parent >= 0:
                    parents[number] = numbers[ids[parent]]
        return CompactTree(self.ids, numbers, parents, missing, list(self.duplicates), forward)
