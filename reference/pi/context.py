"""The compaction-aware context exactly as Pi 0.84.3 builds it.

Pure functions over parsed entries in root-to-leaf order (the path): ``context_entries`` is
Pi's ``buildContextEntries``, ``entry_to_messages`` its ``sessionEntryToContextMessages`` and
``context_settings`` its ``getSessionContextSettings``.  ``retainedTail`` is ignored, as 0.84.3
ignores it.  Absent optional fields stay ``UNDEFINED`` so that serialization drops them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reference.primitives.jsvalues import date_time_ms, get, nullish, strict_equal, truthy

_CONTENT_ROLES = frozenset({"user", "assistant", "toolResult"})


class UnbuildableContext(ValueError):
    """Pi would throw while building this context (a ``message`` entry without a message)."""


def context_entries(path: Sequence[Any]) -> list[Any]:
    """The latest compaction on the path, the kept entries from ``firstKeptEntryId`` up to
    it, then every later entry. Earlier compactions in the kept range stay in the list."""
    compaction = None
    for entry in path:
        if get(entry, "type") == "compaction":
            compaction = entry
    if compaction is None:
        return list(path)
    compaction_id = get(compaction, "id")
    index = next((i for i, entry in enumerate(path) if strict_equal(get(entry, "id"), compaction_id)), -1)
    if index < 0:
        return list(path)
    first_kept = get(compaction, "firstKeptEntryId")
    kept: list[Any] = [compaction]
    found = False
    for entry in path[:index]:
        if strict_equal(get(entry, "id"), first_kept):
            found = True
        if found:
            kept.append(entry)
    kept.extend(path[index + 1 :])
    return kept


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
