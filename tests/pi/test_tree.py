"""The branch walk of :mod:`reference.pi.exact.tree` against a naive recursive walk, for random parent
relations with cycles, missing parents, roots and a step limit."""

from __future__ import annotations

from array import array
from collections.abc import Container, Mapping, Sequence

from hypothesis import given
from hypothesis import strategies as st
from testkit.id_walk import walk_ids
from testkit.profiles import examples

from reference.pi.exact.tree import walk_to_root


def _numbers_oracle(
    node: int, parents: Sequence[int], roots: Container[int], steps: int | None, seen: tuple[int, ...] = ()
) -> tuple[list[int], bool]:
    """Leaf first: stop at a negative parent, a repeat (a cycle), a root or past ``steps``."""
    if node < 0:
        return [], False
    if node in seen:
        return [], True
    if node in roots or steps == 0:
        return [node], False
    rest, cycle = _numbers_oracle(parents[node], parents, roots, None if steps is None else steps - 1, (*seen, node))
    return [node, *rest], cycle


def _ids_oracle(
    node: str | None, parents: Mapping[str, str | None], steps: int | None, seen: tuple[str, ...] = ()
) -> list[str]:
    """Leaf first: stop at a ``None`` or unknown id, a repeat or past ``steps``."""
    if node is None or node not in parents or node in seen:
        return []
    if steps == 0:
        return [node]
    return [node, *_ids_oracle(parents[node], parents, None if steps is None else steps - 1, (*seen, node))]


_SIZES = st.integers(1, 14)


@st.composite
def _number_relations(draw: st.DrawFn) -> tuple[list[int], frozenset[int], int | None]:
    """Entry number -> parent number (-1 none, -2 unresolved, any entry: cycles included)."""
    size = draw(_SIZES)
    parents = draw(st.lists(st.integers(-2, size - 1), min_size=size, max_size=size))
    roots = draw(st.frozensets(st.integers(0, size - 1), max_size=3))
    steps = draw(st.one_of(st.none(), st.integers(0, size + 1)))
    return parents, roots, steps


@st.composite
def _id_relations(draw: st.DrawFn) -> tuple[dict[str, str | None], int | None]:
    """Id -> parent id (None, an unknown id, or any id: cycles and self-parents included)."""
    names = [f"e{n}" for n in range(draw(_SIZES))]
    parent = st.one_of(st.none(), st.sampled_from([*names, "gone", ""]))
    parents = {name: draw(parent) for name in names}
    steps = draw(st.one_of(st.none(), st.integers(0, len(names) + 1)))
    return parents, steps


@examples(deep=200, ci=200, deadline=None)
@given(_number_relations())
def test_number_walk_is_the_naive_walk(relation: tuple[list[int], frozenset[int], int | None]) -> None:
    parents, roots, steps = relation
    table = array("q", parents)
    for leaf in range(len(parents)):
        expected, cycle = _numbers_oracle(leaf, parents, roots, steps)
        path, walked_cycle = walk_to_root(leaf, table, roots, max_steps=steps)
        assert (list(path), walked_cycle) == (expected[::-1], cycle)
        if steps is None and not roots:
            assert walk_to_root(leaf, table) == (path, cycle)


@examples(deep=200, ci=200, deadline=None)
@given(_id_relations())
def test_id_walk_is_the_naive_walk(relation: tuple[dict[str, str | None], int | None]) -> None:
    parents, steps = relation
    for leaf in [*parents, "gone", ""]:
        expected = _ids_oracle(leaf, parents, steps)[::-1]
        assert walk_ids(leaf, parents, max_steps=steps) == expected
        if steps is None:
            assert walk_ids(leaf, parents) == expected


@examples(deep=100, ci=100, deadline=None)
@given(_id_relations())
def test_both_walks_agree_on_one_relation(relation: tuple[dict[str, str | None], int | None]) -> None:
    """The same relation by id and by entry number (an unknown parent as -2) walks the same path."""
    parents, steps = relation
    names = list(parents)
    numbers = {name: number for number, name in enumerate(names)}
    table = array("q", [-1 if parent is None else numbers.get(parent, -2) for parent in parents.values()])
    for leaf, number in numbers.items():
        path, _ = walk_to_root(number, table, max_steps=steps)
        assert [names[n] for n in path] == walk_ids(leaf, parents, max_steps=steps)


def test_a_long_chain_walks_without_recursion() -> None:
    size = 300_000
    path, cycle = walk_to_root(size - 1, array("q", range(-1, size - 1)))
    assert (len(path), path[0], path[-1], cycle) == (size, 0, size - 1, False)
    ids = {f"e{n}": (f"e{n - 1}" if n else None) for n in range(size)}
    assert walk_ids(f"e{size - 1}", ids, max_steps=9) == [f"e{n}" for n in range(size - 10, size)]
    ring = array("q", [size - 1, *range(size - 1)])
    assert walk_to_root(0, ring)[1] is True
