"""Pi 0.84.3's session tree over the session model (:class:`reference.pi.model.session.SourceScan`).

The model's parents are the rebase's (contract §6.2 step 20: a ``""`` parentId is looked up like
any id, a repeated id resolves to its last entry before the child); Pi's tree, the one
:class:`reference.pi.exact.tree.SessionTree` builds, differs in two places only: the last entry
with an id wins for every child, and a falsy ``parentId`` makes a root.  :func:`pi_tree` derives
that view (a copy of the parents only when the file has either), for a model whose every entry
line is a Pi entry (string ids and types, a string or null parent).  The rest is the exact tree's
rules: a parent that names no entry ends a walk (a missing parent), the default leaf is the last
entry in file order, and one walk (:func:`reference.pi.exact.tree.walk_to_root`) serves both.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import ge
from typing import Any

from reference.pi.exact.tree import reaches_root, walk_to_root
from reference.pi.model.entry_table import MISSING, ROOT
from reference.pi.model.session import SourceScan


@dataclass(frozen=True)
class Walk:
    """Entry numbers root -> leaf, and why the walk stopped (as :class:`reference.pi.exact.tree.Ancestry`)."""

    path: array[int]
    missing_parent: bool = False  # the root's parentId names no entry
    cycle: bool = False


_EMPTY = Walk(array("i"))


@dataclass(frozen=True)
class PiTree:
    """Pi's tree of a model: parents by entry number (``ROOT`` or ``MISSING`` when none)."""

    model: SourceScan
    parents: Sequence[int]

    def number(self, entry_id: Any) -> int | None:
        """The last entry with the string id ``entry_id``."""
        return self.model.ids.get(entry_id) if isinstance(entry_id, str) else None

    def ancestry(self, leaf: int) -> Walk:
        path, cycle = walk_to_root(leaf, self.parents)
        return Walk(path, not cycle and self.parents[path[0]] == MISSING, cycle)

    def branch(self, leaf_id: Any) -> Walk:
        """Pi's ``getBranch(leafId)``: empty for a falsy or unknown leaf."""
        number = self.number(leaf_id) if leaf_id else None
        return _EMPTY if number is None else self.ancestry(number)

    def session_path(self, leaf_id: Any) -> Walk:
        """Pi's ``buildSessionPath``: ``null`` gives nothing; an unknown leaf falls back to the
        last entry in file order."""
        if leaf_id is None:
            return _EMPTY
        number = self.number(leaf_id) if leaf_id else None
        if number is None:
            if not self.model.entry_count:
                return _EMPTY
            number = self.model.entry_count - 1
        return self.ancestry(number)

    def duplicate_ids(self) -> list[str]:
        """Ids used more than once, in the order the repeats appear (as the exact tree lists them)."""
        ids = self.model.ids
        if ids.first_repeat is None:
            return []
        seen: set[str] = set()
        repeated: dict[str, None] = {}
        for number in range(self.model.entry_count):
            entry_id = ids.id_of(number)
            if entry_id in seen:
                repeated[entry_id] = None
            seen.add(entry_id)
        return list(repeated)

    def broken_links(self) -> list[tuple[int, str]]:
        """(entry number, ``"missing-parent"`` or ``"cycle"``) in file order, as
        :meth:`reference.pi.exact.tree.SessionTree.broken_links` yields them."""
        parents = self.parents
        missing = [number for number, parent in enumerate(parents) if parent == MISSING]
        if not any(map(ge, parents, range(len(parents)))):  # every parent earlier: no cycle
            return [(number, "missing-parent") for number in missing]
        reaches = reaches_root(parents)
        gone = set(missing)
        return [(number, "missing-parent" if number in gone else "cycle")
                for number in range(len(parents)) if number in gone or not reaches[number]]


def pi_tree(model: SourceScan) -> PiTree:
    """Pi's tree of ``model`` (whose every entry line is a Pi entry)."""
    parents: Sequence[int] = model.parents
    ids = model.ids
    if ids.first_repeat is not None or model.empty_parents:
        pi_parents = array("i", parents)
        if ids.first_repeat is not None:  # the last entry with an id wins, also for links made before it
            for number in compress(range(len(pi_parents)), map(ge, pi_parents, [0] * len(pi_parents))):
                pi_parents[number] = ids[ids.id_of(pi_parents[number])]
        for number in model.empty_parents:  # a "" parentId is falsy: a root
            pi_parents[number] = ROOT
        parents = pi_parents
    return PiTree(model, parents)

