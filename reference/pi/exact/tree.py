"""The session tree: ids, parent links, ancestry, children and the active leaf.

Pi 0.84.3 indexes entries by id with the *last* entry winning, walks ``parentId`` links to a
root (a missing parent ends the walk, as a root would), and takes the active leaf to be the
last entry in file order whatever its type.  Pi has no cycle guard; the tree reports cycles
instead of hanging.

The one branch walk (leaf to root through a parent relation) lives here too: over entry numbers
for the tree and the source scan (:func:`walk_to_root`), over ids for the index's in-memory
mirror of its recursive query (:func:`walk_ids_to_root`), one loop for both.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Container, Iterator, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from reference.pi.exact.reader import Record
from reference.primitives.jsonbytes import UNDEFINED
from reference.primitives.jsvalues import map_key, truthy

K = TypeVar("K")


_VISITED: Final = 1  # a mark: the walk passed this entry
_ENDED: Final = 2  # a mark: no entry, the walk ends here (a root's parent)


def walk_to_root(
    leaf: int, parents: Sequence[int], roots: Container[int] = (), *, max_steps: int | None = None
) -> tuple[array[int], bool]:
    """Entry numbers root -> leaf, following ``parents`` (entry number -> its parent's number,
    or -1 or -2: none, unresolved) from the entry ``leaf``: such a parent ends the walk, and so
    do an entry of ``roots`` (a root whatever its parent number says) and ``max_steps`` steps
    below the leaf.  Also whether a repeated entry ended it (a cycle).

    The branch walk over entry numbers: :meth:`SessionTree.ancestry` walks the numbers of its
    records, :meth:`reference.pi.model.session.SourceScan.ancestry` the session model's table."""
    path = array("i")  # four bytes per entry: a rebase walks branches of a million entries
    marks = bytearray(len(parents) + 2)  # by entry number; -1 and -2 index the two ends
    marks[-1] = marks[-2] = _ENDED
    cycle = _walk(leaf, parents, marks, path, roots)
    if _cut(path, max_steps):
        cycle = False
    path.reverse()
    return path, cycle


def walk_ids_to_root(leaf: K, parents: Mapping[K, K | None], *, max_steps: int | None = None) -> list[K]:
    """Ids root -> leaf, following ``parents`` (every entry's id -> its parent id) from ``leaf``:
    a ``None`` parent or one that is no key of ``parents`` ends the walk (an unknown leaf gives
    nothing), and so do the first repeated id (a cycle) and ``max_steps`` steps below the leaf.

    The branch walk over ids: the oracle the index's recursive query
    (:func:`reference.recall.active_branch.branch_ids`) is tested against (tests/recall)."""
    path: list[K] = []
    marks: defaultdict[K | None, int] = defaultdict(int)  # an id not passed reads 0; None ends the walk
    marks[None] = _ENDED
    _walk(leaf, parents, marks, path, ())
    _cut(path, max_steps)
    path.reverse()
    return path


def _walk(node: Any, parents: Any, marks: Any, path: MutableSequence[Any], roots: Container[Any]) -> bool:
    """The one branch walk, leaf first into ``path``: whether a repeated entry (a cycle) ended it.

    ``marks`` reads 0 for an entry not passed yet, ``_VISITED`` for one passed (a cycle) and
    ``_ENDED`` for the end of a branch; a failing parent lookup (an id that names no entry) ends
    it too, and takes that id back off the path.  No step count in the loop: the marks end every
    walk within the relation's size, and :func:`_cut` applies a step limit to the path after.
    The same subscripts per step as a loop written for one key type: the walk runs over
    100,000+ entries in the reader, scan and rebase paths."""
    append = path.append
    try:
        while not marks[node]:
            marks[node] = _VISITED
            append(node)
            if node in roots:
                return False
            node = parents[node]
    except LookupError:  # the id just passed names no entry: a missing parent ends the walk
        del path[-1]
        return False
    return bool(marks[node] == _VISITED)


def _cut(path: MutableSequence[Any], max_steps: int | None) -> bool:
    """Keep the leaf and ``max_steps`` entries above it (a walk with a step limit is a prefix of
    the walk without); whether the walk reached that limit (then it stopped before any repeat)."""
    if max_steps is None or len(path) <= max_steps:
        return False
    del path[max_steps + 1 :]
    return True


@dataclass(frozen=True)
class Ancestry:
    """The root-to-leaf path of one entry, and why the walk stopped."""

    path: tuple[Record, ...]
    missing_parent: Any = None  # the parentId that resolved to nothing, if any
    cycle: bool = False


@dataclass
class SessionTree:
    """Index of a session's kept entries (header excluded), in file order."""

    entries: Sequence[Record]
    by_id: dict[Any, Record] = field(init=False)
    children: dict[Any, list[Record]] = field(init=False)
    duplicate_ids: list[Any] = field(init=False)
    _numbers: dict[Any, int] = field(init=False, repr=False)  # id key -> entry number (the last one)
    _parents: array[int] = field(init=False, repr=False)  # entry number -> its parent's, -1 for none

    def __post_init__(self) -> None:
        self.by_id = {}
        self.children = {}
        self._numbers = {}
        self._parents = array("q")
        duplicates: dict[Any, None] = {}
        for number, record in enumerate(self.entries):
            key = map_key(record.id)
            if key is None:
                continue
            if key in self.by_id:
                duplicates[key] = None
            self.by_id[key] = record
            self._numbers[key] = number
        append = self._parents.append
        for record in self.entries:
            key = map_key(record.parent_id) if truthy(record.parent_id) else None
            parent_number = None if key is None else self._numbers.get(key)
            if parent_number is None:  # as parent_of: a falsy parent, or one that resolves to nothing
                append(-1)
                continue
            append(parent_number)
            self.children.setdefault(key, []).append(record)
        self.duplicate_ids = list(duplicates)

    def get(self, entry_id: Any) -> Record | None:
        key = map_key(entry_id)
        return None if key is None else self.by_id.get(key)

    def parent_of(self, record: Record) -> Record | None:
        """The entry a record's ``parentId`` resolves to (last entry with that id)."""
        if not truthy(record.parent_id):
            return None
        return self.get(record.parent_id)

    @property
    def default_leaf_id(self) -> Any:
        """Pi's leaf on load: the id of the last entry in file order (``None`` if empty).

        ``UNDEFINED`` when that entry has no id (Pi then has an undefined leaf).
        """
        if not self.entries:
            return None
        return self.entries[-1].id

    def _number_of(self, leaf: Record) -> int:
        """The entry number of one of the tree's records."""
        key = map_key(leaf.id)
        number = None if key is None else self._numbers.get(key)
        if number is not None and self.entries[number] is leaf:
            return number
        return next(n for n in range(len(self.entries) - 1, -1, -1) if self.entries[n] is leaf)

    def ancestry(self, leaf: Record) -> Ancestry:
        """Root-to-leaf path, stopping at a missing parent or at the first repeated entry."""
        numbers, cycle = walk_to_root(self._number_of(leaf), self._parents)
        entries = self.entries
        path = tuple(entries[number] for number in numbers)
        root = path[0]
        missing = root.parent_id if not cycle and self.parent_of(root) is None and truthy(root.parent_id) else None
        return Ancestry(path, missing, cycle)

    def branch(self, leaf_id: Any) -> Ancestry:
        """Pi's ``getBranch(leafId)``: empty for a falsy or unknown leaf."""
        if not truthy(leaf_id):
            return Ancestry(())
        leaf = self.get(leaf_id)
        return Ancestry(()) if leaf is None else self.ancestry(leaf)

    def session_path(self, leaf_id: Any) -> Ancestry:
        """Pi's ``buildSessionPath``: ``null`` gives nothing; an undefined or unknown leaf
        falls back to the last entry in file order."""
        if leaf_id is None:
            return Ancestry(())
        leaf = self.get(leaf_id) if truthy(leaf_id) else None
        if leaf is None:
            if not self.entries:
                return Ancestry(())
            leaf = self.entries[-1]
        return self.ancestry(leaf)

    def children_of(self, entry_id: Any) -> list[Record]:
        key = map_key(entry_id)
        return [] if key is None else list(self.children.get(key, ()))

    def siblings_of(self, record: Record) -> list[Record]:
        """Other children of the same parent; other roots for a root."""
        parent = self.parent_of(record)
        pool = self.roots() if parent is None else self.children_of(parent.id)
        return [other for other in pool if other is not record]

    def roots(self) -> list[Record]:
        """Entries whose parent is falsy or missing (Pi renders both as roots)."""
        return [record for record in self.entries if self.parent_of(record) is None]

    def broken_links(self) -> Iterator[tuple[Record, str]]:
        """Every entry whose parent link is missing, or whose ancestry runs into a cycle.

        Parent links form a functional graph, so one walk per entry with memoised outcomes
        keeps this linear in the number of entries.
        """
        outcome: dict[int, bool] = {}  # id(record) -> ancestry reaches a root
        for record in self.entries:
            stack: list[Record] = []
            on_stack: set[int] = set()
            current: Record | None = record
            reaches_root = True
            while current is not None and id(current) not in outcome:
                if id(current) in on_stack:
                    reaches_root = False
                    break
                on_stack.add(id(current))
                stack.append(current)
                current = self.parent_of(current)
            if current is not None and id(current) in outcome:
                reaches_root = outcome[id(current)]
            for walked in stack:
                outcome[id(walked)] = reaches_root
        for record in self.entries:
            if self.parent_of(record) is None and truthy(record.parent_id):
                yield record, "missing-parent"
            elif not outcome.get(id(record), True):
                yield record, "cycle"


def entry_id_text(value: Any) -> Any:
    """An id as JSON shows it (``None`` for undefined, as JSON.stringify does in arrays)."""
    return None if value is UNDEFINED else value
