"""The branch walk of :func:`reference.pi.tree.walk_to_root` over a scan's parent numbers, with
the path in four bytes per entry (``array('i')``) instead of eight: a rebase walks branches of a
million entries (docs/rebase.md, "Memory")."""

from __future__ import annotations

from array import array
from collections.abc import Container, Sequence


def walk_numbers(leaf: int, parents: Sequence[int], roots: Container[int] = ()) -> tuple[array[int], bool]:
    """``walk_to_root(leaf, parents, roots)``: entry numbers root -> leaf, following ``parents``
    (a negative parent ends the walk, and so does an entry of ``roots``), and whether a repeated
    entry (a cycle) ended it."""
    path = array("i")
    seen = bytearray(len(parents))
    append = path.append
    node = leaf
    cycle = False
    while node >= 0:
        if seen[node]:
            cycle = True
            break
        seen[node] = 1
        append(node)
        if node in roots:
            break
        node = parents[node]
    path.reverse()
    return path, cycle


def walk_end(leaf: int, parents: Sequence[int]) -> tuple[int, bool]:
    """The first entry of ``walk_numbers(leaf, parents)[0]`` (the root end of the walk; ``leaf``
    must be an entry) and whether a cycle ended the walk, without keeping the path."""
    seen = bytearray(len(parents))
    node = end = leaf
    while node >= 0:
        if seen[node]:
            return end, True
        seen[node] = 1
        end = node
        node = parents[node]
    return end, False
