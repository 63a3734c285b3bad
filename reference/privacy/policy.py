"""Classification of history content (contract §2.10, §8.4; decisions D6): the four levels,
the markers that raise a text's level, the floor walk over a parsed value, and which levels the
current model provider may receive (§2.10 step 4).

As upstream ``privacy-policy.ts`` (with its ``providerPrivacyPolicy``: local providers get every
level, a remote one its own list or the default list, and ``local-only`` never leaves for a
remote provider) and ``history-privacy.ts``.  Marker patterns follow JavaScript's ``iu`` regex
semantics (see ``reference.privacy.redaction``).  The sanitizer that applies them is ``sanitizer``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from reference.config.defaults import default_config
from reference.primitives.jsonbytes import JsonParseError, js_parse, property_order
from reference.primitives.jsvalues import JS_WHITESPACE, trim
from reference.privacy.redaction import JS_SPACE, js_ci

LEVELS: Final = ("normal", "internal", "sensitive", "local-only")
_RANK: Final = {level: rank for rank, level in enumerate(LEVELS)}
HISTORY_RESULT_SCHEMA: Final = "ds4-history-result-v1"
#: The floor walk fails closed (``local-only``) past these (contract §8.4).
MAX_WALK_NODES: Final = 10_000
MAX_WALK_DEPTH: Final = 64

#: ``ds4`` and the level names as JavaScript ``iu`` patterns (the markers' words).
DS4: Final = js_ci("ds4")
LEVEL_WORDS: Final = "|".join(js_ci(level) for level in LEVELS)
#: Any opening or closing marker not preceded by a backslash; group 1 is ``/`` for a closing one.
_ANY_MARKER: Final = re.compile(rf"(?<!\\)\[(/?){DS4}:({LEVEL_WORDS})\]")
#: Every marker holds ``4:`` (the end of ``ds4:``): text without it has none, so the marker
#: patterns need not run over a 4 MiB record that holds no marker.
MARKER_LITERAL: Final = "4:"
#: A string that may be a serialized history result (then it is parsed and walked too).
_RESULT_PROTOCOL: Final = re.compile(rf'"schema"{JS_SPACE}*:{JS_SPACE}*"ds4-history-result-v1"')


def is_level(value: Any) -> bool:
    """Whether ``value`` is one of the four classifications (exact, lower-case)."""
    return isinstance(value, str) and value in _RANK


def max_level(a: str, b: str) -> str:
    """The higher of two classifications (``normal`` < ``internal`` < ``sensitive`` < ``local-only``)."""
    return b if _RANK[b] > _RANK[a] else a


def raise_floor(floor: str | None, level: str | None) -> str | None:
    if level is None:
        return floor
    return level if floor is None else max_level(floor, level)


def marker_level(word: str) -> str:
    """The classification a marker names; the long s folds to ``s`` (JavaScript's ``iu`` match).

    Upstream lower-cases with ``toLowerCase``, which keeps U+017F, so ``[ds4:ſensitive]`` is
    stripped but raises nothing there; folding it is the fail-closed reading (docs/privacy.md).
    """
    return word.lower().replace("\u017f", "s")


def classify_markers(text: str) -> str | None:
    """The highest level named by any unescaped opening or closing marker, or None.

    Upstream also checks the marker structure (nesting, unbalanced or mismatched markers raise
    the floor); every level that check can raise is a marker's own level, so the plain maximum
    over all markers already covers it.
    """
    floor: str | None = None
    if MARKER_LITERAL not in text:
        return floor
    for match in _ANY_MARKER.finditer(text):
        floor = raise_floor(floor, marker_level(match.group(2)))
    return floor


def history_privacy_classification(value: Any) -> str | None:
    """The classification floor of a parsed value, depth first; None when nothing raised it.

    Fails closed (``local-only``) past 10,000 visited nodes or below depth 64, and on a string
    that looks like a serialized history result but does not parse.  A history result object
    not marked ``quotedData: true`` starts at ``local-only``; a valid ``classification`` field
    and every child raise an object.  Object keys are not inspected (as upstream).
    """
    count = 0
    seen: dict[int, Any] = {}  # holds the objects too, so a parsed value's id is never reused

    def walk_string(node: str, depth: int) -> str | None:
        marked = classify_markers(node)
        if HISTORY_RESULT_SCHEMA not in node:  # both tests below need the schema name
            return marked
        start = node.lstrip(JS_WHITESPACE)[:1]
        container = HISTORY_RESULT_SCHEMA in node and start in ("{", "[", '"')
        if not container and not _RESULT_PROTOCOL.search(node):
            return marked
        try:
            parsed = js_parse(node)
        except (JsonParseError, RecursionError):
            return "local-only"
        return raise_floor(marked, walk(parsed, depth + 1))

    def walk(node: Any, depth: int) -> str | None:
        nonlocal count
        count += 1
        if count > MAX_WALK_NODES or depth > MAX_WALK_DEPTH:
            return "local-only"
        if isinstance(node, str):
            return walk_string(node, depth)
        if not isinstance(node, (Mapping, list, tuple)) or id(node) in seen:
            return None
        seen[id(node)] = node
        floor: str | None = None
        children: Any = node
        if isinstance(node, Mapping):
            if node.get("schema") == HISTORY_RESULT_SCHEMA and node.get("quotedData") is not True:
                floor = "local-only"
            own = node.get("classification")
            if is_level(own):
                floor = raise_floor(floor, own)
            children = node.values()
        for child in children:
            floor = raise_floor(floor, walk(child, depth + 1))
        return floor

    return walk(value, 0)


UNKNOWN_PROVIDER: Final = "unknown"


@dataclass(frozen=True)
class ProviderPolicy:
    """Which classifications the current model provider may receive (contract §2.10 step 4)."""

    provider: str
    destination: Literal["local", "remote"]
    allowed: tuple[str, ...]

    @classmethod
    def from_config(cls, privacy_config: Mapping[str, Any], provider: str | None) -> ProviderPolicy:
        """Local providers get all four levels; a remote one its own list or the default list.

        Names compare trimmed and lower-cased; no provider (or an empty name) is ``unknown``,
        which is remote unless configured as local.
        """
        name = provider or UNKNOWN_PROVIDER
        key = trim(name).lower()
        defaults = default_config()["privacy"]
        local = privacy_config.get("localProviders", defaults["localProviders"])
        if any(isinstance(item, str) and trim(item).lower() == key for item in local):
            return cls(name, "local", LEVELS)
        remote = privacy_config.get("remoteProviders", defaults["remoteProviders"])
        rule = next((allowed for item, allowed in property_order(remote) if trim(item).lower() == key), None)
        if rule is None:
            rule = privacy_config.get("remoteDefaultAllowed", defaults["remoteDefaultAllowed"])
        return cls(name, "remote", tuple(level for level in LEVELS if level in rule))

    def allows(self, level: str) -> bool:
        """Whether content of ``level`` may go to this provider; ``local-only`` never leaves."""
        return level in self.allowed and not (self.destination == "remote" and level == "local-only")
