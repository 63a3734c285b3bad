"""The branch walk over ids (what the index's recursive query walks): the relation's ids numbered
in order, walked by :func:`reference.pi.exact.tree.walk_to_root`, the one walk callers use."""

from __future__ import annotations

from array import array
from collections.abc import Mapping

from reference.pi.exact.tree import walk_to_root


def walk_ids(leaf: str, parents: Mapping[str, str | None], *, max_steps: int | None = None) -> list[str]:
    """Ids root -> leaf; a ``None`` parent or one that is no key of ``parents`` ends the walk, an
    unknown leaf walks nothing, a cycle ends it at the first repeated id."""
    names = list(parents)
    numbers = {name: number for number, name in enumerate(names)}
    if leaf not in numbers:
        return []
    table = array("q", [-1 if parent is None else numbers.get(parent, -2) for parent in parents.values()])
    path, _ = walk_to_root(numbers[leaf], table, max_steps=max_steps)
    return [names[number] for number in path]
