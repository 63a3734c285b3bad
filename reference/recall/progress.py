"""What a catch-up tells a watcher while it reads: which file, and how far into it.

The recall layer knows nothing of terminals.  A command that wants to show progress installs a
listener for the duration of a call (:func:`watching`); every catch-up in that context reports
the bytes it has scanned to it, and to nobody when none is installed (the adapter, the tests).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class CatchUpListener(Protocol):
    """Told when a scan of ``[base, size)`` of ``path`` starts, how far it got, and when it ended."""

    def begin(self, path: str, base: int, size: int) -> None: ...
    def advance(self, position: int) -> None: ...
    def end(self) -> None: ...


_LISTENER: ContextVar[CatchUpListener | None] = ContextVar("catch_up_listener", default=None)


@contextmanager
def watching(listener: CatchUpListener | None) -> Iterator[None]:
    """Every catch-up inside the block reports to ``listener`` (None: to nobody)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


@contextmanager
def scanning(path: str, base: int, size: int) -> Iterator[Callable[[int], None]]:
    """One scan of ``[base, size)`` of ``path``: a callable to give the file offset reached so far."""
    listener = _LISTENER.get()
    if listener is None:
        yield lambda _position: None  # no listener: positions go nowhere
        return
    listener.begin(path, base, size)
    try:
        yield listener.advance
    finally:
        listener.end()
