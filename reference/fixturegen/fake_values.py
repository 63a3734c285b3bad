"""Fake secret values for the labelled privacy corpus: the value type and the ways to build one.

Why: the corpus generator (:mod:`reference.fixturegen.privacy_corpus`) and its family tables
(:mod:`reference.fixturegen.privacy_families`) build every fake value the same way, from the
corpus's one seeded PRNG; this module is that way.  A value says which part of it is sensitive
(what must never leave); where the alphabet allows, its random part spells ``FAKE``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from reference.fixturegen.vocabulary import B62, pick

LOWER_HEX: Final = "0123456789abcdef"
B64: Final = B62 + "+/"
URLSAFE: Final = B62 + "-_"

#: A builder of one fake secret from the PRNG.
Maker = Callable[[random.Random], "FakeSecret"]


@dataclass(frozen=True)
class FakeSecret:
    """A fake secret: the text written into the session and its sensitive part (a substring)."""

    family: str
    text: str
    sensitive: str


def fake(rng: random.Random, alphabet: str, count: int) -> str:
    """``count`` random characters that start with FAKE when the alphabet has its letters."""
    if all(c in alphabet for c in "FAKE") and count > 8:
        return "FAKE" + pick(rng, alphabet, count - 4)
    return pick(rng, alphabet, count)


def plain(family: str, build: Callable[[random.Random], str], *, public: str = "") -> Maker:
    """The whole value is the secret, less a ``public`` prefix that the format publishes: prose
    may name ``github_pat_`` or ``sk_live_`` without leaking anything."""

    def make(rng: random.Random) -> FakeSecret:
        value = build(rng)
        assert value.startswith(public)
        return FakeSecret(family, value, value[len(public):])

    return make


def in_context(family: str, template: str, build: Callable[[random.Random], str]) -> Maker:
    """A value that is a secret only by its context: ``template`` holds ``{v}``."""

    def make(rng: random.Random) -> FakeSecret:
        value = build(rng)
        return FakeSecret(family, template.format(v=value), value)

    return make
