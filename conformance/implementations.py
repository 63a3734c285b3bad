"""Which in-process implementation a name designates: an entry point of ``recall_rebase.adapters``, or ``module:attr``.

The one owner of that lookup for every toolkit command that reaches an implementation in
process (``conformance run``, its ``--audit`` hello, ``conformance privacy``); the reference is
found the way any Python port is, never by import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Final

from conformance.protocol import Adapter

ADAPTER_ENTRY_POINTS: Final = "recall_rebase.adapters"
DEFAULT_ADAPTER: Final = "reference"


class AdapterNotFound(Exception):
    """The name designates no entry point of the group, and no importable ``module:attr``."""


def adapter_class(name: str) -> Callable[[], Adapter]:
    """The adapter class an entry point name (or, for port authors, ``module:attr``) designates."""
    try:
        if ":" in name:
            module_name, _, attribute = name.partition(":")
            factory: Callable[[], Adapter] = getattr(importlib.import_module(module_name), attribute)
            return factory
        found = entry_points(group=ADAPTER_ENTRY_POINTS, name=name)
        if not found:
            known = sorted(point.name for point in entry_points(group=ADAPTER_ENTRY_POINTS))
            raise AdapterNotFound(f"no {ADAPTER_ENTRY_POINTS!r} entry point named {name!r} (installed: {known})")
        loaded: Callable[[], Adapter] = next(iter(found)).load()
        return loaded
    except (ImportError, AttributeError, ValueError) as exc:
        raise AdapterNotFound(f"cannot load the adapter {name!r}: {exc}") from None
