"""The three history tools as a host registers and activates them (contract §0.3, §1.6).

All three are always registered when the extension loads (the names are reserved whatever the
configuration says); at every session start, after the configuration has loaded, the host's
active-tool list is synced: the three names are removed, then appended in registration order only
when ``enabled === true`` and ``historyTools.enabled === true``.  Other tools keep their places and
their duplicates; a host that cannot set its active tools is left alone.

A pure model: the adapter protocol drives a port as a history host, with no tool registry of its
own, so these rules are checked by ``tests/recall/test_tool_registry.py``, not by a scenario.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final


@dataclass(frozen=True)
class ToolRegistration:
    """What registering one tool gives the host: its name (what a model calls) and its label
    (what the host shows)."""

    name: str
    label: str


#: The three registrations, in registration order (§0.3).
HISTORY_TOOLS: Final = (
    ToolRegistration(name="context_history_recall", label="History recall"),
    ToolRegistration(name="context_history_read", label="History source read"),
    ToolRegistration(name="context_history_status", label="History status"),
)


def history_tool_names() -> tuple[str, ...]:
    """The three tool names in registration order: recall, read, status."""
    return tuple(tool.name for tool in HISTORY_TOOLS)


@dataclass(frozen=True)
class ToolSwitches:
    """The two configuration switches the activation reads, as loaded (any JSON value): only the
    boolean ``true`` counts, as JavaScript's ``=== true``."""

    enabled: object
    history_tools_enabled: object

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ToolSwitches:
        """The switches of an effective configuration (``enabled``, ``historyTools.enabled``)."""
        history = config.get("historyTools")
        return cls(enabled=config.get("enabled"),
                   history_tools_enabled=history.get("enabled") if isinstance(history, Mapping) else None)

    @property
    def activate(self) -> bool:
        """Whether the three tools are active: both switches are the boolean true."""
        return self.enabled is True and self.history_tools_enabled is True


@dataclass(frozen=True)
class HostToolList:
    """A host's active-tool list, and whether the host can set it (Pi's ``setActiveTools``)."""

    active: tuple[str, ...]
    settable: bool = True


def sync_active_tools(host: HostToolList, switches: ToolSwitches) -> HostToolList:
    """The host's list after the session-start sync (§1.6): idempotent; ``host`` itself when the
    host cannot set its list."""
    if not host.settable:
        return host
    names = history_tool_names()
    others = tuple(name for name in host.active if name not in names)
    return HostToolList(active=others + names if switches.activate else others)
