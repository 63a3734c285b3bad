"""Dotted paths (``historyTools.maxResults``) into a configuration object: read, write, remove.

An absent path reads as JavaScript ``undefined`` (``UNDEFINED``), which ``show`` prints as
``unset``; writing creates the parent objects, removing prunes the parents it leaves empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference.primitives.jsonbytes import UNDEFINED, JsonObject


def get_path(config: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path, or ``UNDEFINED`` when any segment is missing."""
    node: Any = config
    for segment in path.split("."):
        if not isinstance(node, Mapping) or segment not in node:
            return UNDEFINED
        node = node[segment]
    return node


def set_path(content: JsonObject, path: str, value: Any) -> None:
    """Store ``value`` at a dotted path; a parent that is not an object is replaced by one."""
    node = content
    *parents, leaf = path.split(".")
    for segment in parents:
        if not isinstance(node.get(segment), dict):
            node[segment] = {}
        node = node[segment]
    node[leaf] = value


def remove_path(content: JsonObject, path: str) -> bool:
    """Delete a dotted key and prune the parents it leaves empty; False when it is not set."""
    *parents, leaf = path.split(".")
    chain: list[tuple[JsonObject, str]] = []
    node = content
    for segment in parents:
        child = node.get(segment)
        if not isinstance(child, dict):
            return False
        chain.append((node, segment))
        node = child
    if leaf not in node:
        return False
    del node[leaf]
    for parent, segment in reversed(chain):
        if parent[segment]:
            break
        del parent[segment]
    return True
