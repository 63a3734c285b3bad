"""The compaction-aware context exactly as Pi 0.84.3 builds it.

Pure functions over parsed entries in root-to-leaf order (the path): ``context_entries`` is
Pi's ``buildContextEntries``, ``entry_to_messages`` its ``sessionEntryToContextMessages`` and
``context_settings`` its ``getSessionContextSettings``.  ``retainedTail`` is ignored, as 0.84.3
ignores it.  Absent optional fields stay ``UNDEFINED`` so that serialization drops them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reference.primitives.jsvalues import date_time_ms, get, nullish, strict_equal, truthy

_CONTENT_ROLES = frozenset({"user", "assistant", "toolResult"})


class UnbuildableContext(ValueError):
    """Pi would throw while building this context (a ``message`` entry without a message)."""


@dataclass(frozen=True)
class ContextLayout:
    """Where Pi's ``buildContextEntries`` takes its entries from a path with a compaction: the
    latest compaction, then the kept entries before it, then every entry after ``resume``."""

    compaction: int  # position of the latest compaction on the path
    kept: range  # positions from ``firstKeptEntryId`` up to the first entry with the compaction's id
    resume: int  # entries after this position follow (the first entry with the compaction's id)


def context_layout(
    length: int,
    kind_at: Callable[[int], Any],
    id_at: Callable[[int], Any],
    first_kept_at: Callable[[int], Any],
    locate: Callable[[Any, int], int],
) -> ContextLayout | None:
    """The layout of a path of ``length`` entries, or None when the whole path is the context.

    The path is asked, never decoded whole: ``kind_at(i)`` is an entry's type, ``id_at(i)`` its
    id, ``first_kept_at(i)`` a compaction's ``firstKeptEntryId``, ``locate(id, stop)`` the first
    position before ``stop`` whose id is ``id`` (``===``), -1 for none."""
    compaction = next((i for i in range(length - 1, -1, -1) if kind_at(i) == "compaction"), None)
    if compaction is None:
        return None
    index = locate(id_at(compaction), length)
    if index < 0:
        return None
    start = locate(first_kept_at(compaction), index)
    return ContextLayout(compaction, range(index if start < 0 else start, index), index)


def context_entries(path: Sequence[Any]) -> list[Any]:
    """The latest compaction on the path, the kept entries from ``firstKeptEntryId`` up to
    it, then every later entry. Earlier compactions in the kept range stay in the list."""

    def locate(entry_id: Any, stop: int) -> int:
        return next((i for i in range(stop) if strict_equal(get(path[i], "id"), entry_id)), -1)

    layout = context_layout(len(path), lambda i: get(path[i], "type"), lambda i: get(path[i], "id"),
                            lambda i: get(path[i], "firstKeptEntryId"), locate)
    if layout is None:
        return list(path)
    kept = layout.kept
    return [path[layout.compaction], *path[kept.start:kept.stop], *path[layout.resume + 1:]]


def entry_to_messages(entry: Any) -> list[Any]:
    """The context messages one entry contributes (none for custom, label, settings...)."""
    kind = get(entry, "type")
    if kind == "message":
        message = get(entry, "message")
        if nullish(message):
            raise UnbuildableContext("a message entry has no message")
        role = get(message, "role")
        if isinstance(role, str) and role in _CONTENT_ROLES and nullish(get(message, "content")):
            copy = dict(message)
            copy["content"] = []
            return [copy]
        return [message]
    if kind == "custom_message":
        content = get(entry, "content")
        return [
            {
                "role": "custom",
                "customType": get(entry, "customType"),
                "content": [] if nullish(content) else content,
                "display": get(entry, "display"),
                "details": get(entry, "details"),
                "timestamp": date_time_ms(get(entry, "timestamp")),
            }
        ]
    if kind == "branch_summary" and truthy(get(entry, "summary")):
        return [
            {
                "role": "branchSummary",
                "summary": get(entry, "summary"),
                "fromId": get(entry, "fromId"),
                "timestamp": date_time_ms(get(entry, "timestamp")),
            }
        ]
    if kind == "compaction":
        return [
            {
                "role": "compactionSummary",
                "summary": get(entry, "summary"),
                "tokensBefore": get(entry, "tokensBefore"),
                "timestamp": date_time_ms(get(entry, "timestamp")),
            }
        ]
    return []


@dataclass(frozen=True)
class ContextSettings:
    """Model and thinking level over the whole path (not the compacted list)."""

    thinking_level: Any = "off"
    model: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "thinkingLevel": self.thinking_level}


def context_settings(path: Sequence[Any]) -> ContextSettings:
    """The last thinking-level change and the last model change or assistant message win."""
    thinking_level: Any = "off"
    model: Any = None
    for entry in path:
        kind = get(entry, "type")
        if kind == "thinking_level_change":
            thinking_level = get(entry, "thinkingLevel")
        elif kind == "model_change":
            model = {"provider": get(entry, "provider"), "modelId": get(entry, "modelId")}
        elif kind == "message":
            message = get(entry, "message")
            if nullish(message):
                raise UnbuildableContext("a message entry has no message")
            if get(message, "role") == "assistant":
                model = {"provider": get(message, "provider"), "modelId": get(message, "model")}
    return ContextSettings(thinking_level, model)


def context_messages(entries: Sequence[Any]) -> list[Any]:
    """Entries mapped to context messages, in order."""
    messages: list[Any] = []
    for entry in entries:
        messages.extend(entry_to_messages(entry))
    return messages
