"""SIGINT and SIGTERM to the runner end the run the way Ctrl-C does, and say which signal came.

Either signal raises ``KeyboardInterrupt`` once in the main thread: pytest then finishes the
session (the report is written, unfinished scenarios NOTRUN) and the runner kills every port
group left. A worker of a parallel run defers it until its session knows its rows
(:func:`arm`): a signal during start-up or collection then still gives a report in which every
row of the worker's share is NOTRUN, never no report at all. Once the session finishes
(:func:`disarm`), a signal no longer interrupts it either: the report is being written. Later signals are ignored while that bounded cleanup runs. Windows has no SIGTERM
delivery from other processes; there SIGBREAK (Ctrl-Break) counts as SIGTERM.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Final

from conformance.procgroup import IS_WINDOWS

#: The exit code of a run each signal interrupted (128 + the POSIX signal number).
EXIT_CODES: Final = {"SIGINT": 130, "SIGTERM": 143}

_received: list[str] = []
_deferred: list[bool] = []  # while true, a signal is only recorded, until arm()


def received() -> str | None:
    """``"SIGINT"`` or ``"SIGTERM"`` once one interrupted the run, else ``None``."""
    return _received[0] if _received else None


def _signals() -> dict[int, str]:
    if IS_WINDOWS:
        return {signal.SIGINT: "SIGINT", getattr(signal, "SIGBREAK", signal.SIGTERM): "SIGTERM"}
    return {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}


def _handle(signum: int, frame: FrameType | None) -> None:
    if _received:
        return
    _received.append(_signals().get(signum, "SIGTERM"))
    if not _deferred:
        raise KeyboardInterrupt(_received[0])


def disarm() -> None:
    """The session is finishing (its report about to be written): a signal now is only recorded."""
    _deferred[:] = [True]


def arm() -> None:
    """From now on a signal interrupts at once; one recorded while deferred interrupts now."""
    if _deferred:
        _deferred.clear()
        if _received:
            raise KeyboardInterrupt(_received[0])


@contextmanager
def signals_interrupt_the_run(*, deferred: bool = False) -> Iterator[None]:
    """While active, SIGINT and SIGTERM interrupt the run once (``deferred``: not before
    :func:`arm`); handlers restored after."""
    _received.clear()
    _deferred[:] = [True] if deferred else []
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _handle) for number in _signals()}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
