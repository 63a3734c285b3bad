"""A host's leaf: Pi's default (the last entry in file order), an entry id, or none."""

from __future__ import annotations

import enum
from typing import Final, TypeAlias


class LeafChoice(enum.Enum):
    """A leaf that is not an entry id.  Every string leaf is an entry id, always (``"default"``
    too); the adapter protocol says "Pi's rule" by leaving ``leaf`` out."""

    #: The host's active leaf as Pi computes it on load (the last entry in file order).
    DEFAULT = enum.auto()

    def __repr__(self) -> str:
        return "DEFAULT_LEAF"


DEFAULT_LEAF: Final = LeafChoice.DEFAULT
#: A host's leaf: Pi's default, an entry id, or None for the empty leaf.  Values from a request
#: may be anything else too; the readers refuse them (``invalid-leaf``) or compare them as SQLite does.
Leaf: TypeAlias = LeafChoice | str | None


def leaf_from_cli(value: str | None) -> Leaf:
    """A ``--leaf`` option: absent is Pi's default leaf, ``null`` the empty leaf, else an entry id."""
    if value is None:
        return DEFAULT_LEAF
    return None if value == "null" else value
