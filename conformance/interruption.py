"""SIGINT and SIGTERM to the runner end the run the way Ctrl-C does, and say which signal came.

Either signal raises ``KeyboardInterrupt`` once in the main thread: pytest then finishes the
session (the report is written, unfinished scenarios NOTRUN) and the runner kills every port
group left. Later signals are ignored while that bounded cleanup runs. Windows has no SIGTERM
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
    raise KeyboardInterrupt(_received[0])


@contextmanager
def signals_interrupt_the_run() -> Iterator[None]:
    """While active, SIGINT and SIGTERM interrupt the run once; handlers restored after."""
    _received.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _handle) for number in _signals()}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
