"""Progress of an index build or catch-up on a terminal: a bar on stderr over the file's bytes.

A first ``history search`` of a large session builds its index for seconds; a user should not
wait in silence.  The bar appears only once a scan has run for ``RECALL_REBASE_PROGRESS_DELAY``
seconds (default 1), so the common warm call draws nothing.  It is drawn with rich (the
toolkit's runner and the audit use it too) on stderr, is transient (gone once the scan ends),
and is off with ``--json`` and whenever stderr is not a terminal: stdout keeps the answer alone.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Final, TextIO

from reference.recall.progress import watching

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

DELAY_VARIABLE: Final = "RECALL_REBASE_PROGRESS_DELAY"
DEFAULT_DELAY_SECONDS: Final = 1.0
_NAME_WIDTH: Final = 40  # Pi's file names are 66 characters; the bar keeps one line on a narrow terminal


def delay_seconds() -> float:
    """How long a scan runs before the bar shows (the environment's, else one second)."""
    try:
        value = float(os.environ.get(DELAY_VARIABLE, DEFAULT_DELAY_SECONDS))
    except ValueError:
        return DEFAULT_DELAY_SECONDS
    return value if value >= 0 else DEFAULT_DELAY_SECONDS


class CatchUpBar:
    """A :class:`reference.recall.progress.CatchUpListener` that draws one bar per scan."""

    def __init__(self, stream: TextIO, delay: float) -> None:
        self.stream = stream
        self.delay = delay
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._name = ""
        self._base = 0
        self._total = 0
        self._started = 0.0

    def begin(self, path: str, base: int, size: int) -> None:
        name = os.path.basename(path) or path
        self._name = name if len(name) <= _NAME_WIDTH else name[: _NAME_WIDTH - 1] + "…"
        self._base, self._total = base, max(0, size - base)
        self._started = time.monotonic()

    def advance(self, position: int) -> None:
        done = max(0, position - self._base)
        if self._progress is None:
            if time.monotonic() - self._started < self.delay:
                return
            from rich.console import Console  # imported only when a bar is drawn (start-up time)
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TransferSpeedColumn,
            )

            verb = "indexing" if self._base == 0 else "catching up with"
            columns = (TextColumn(f"{verb} {self._name}", markup=False), BarColumn(), DownloadColumn(),
                       TransferSpeedColumn(), TimeElapsedColumn())
            self._progress = Progress(*columns, console=Console(file=self.stream), transient=True)
            self._progress.start()
            self._task = self._progress.add_task("scan", total=self._total)
        assert self._task is not None
        self._progress.update(self._task, completed=done)

    def end(self) -> None:
        if self._progress is not None:
            self._progress.stop()
        self._progress = self._task = None


def catch_up_bar(*, enabled: bool) -> CatchUpBar | None:
    """The bar every catch-up longer than the delay draws on stderr (a terminal only), or None."""
    stream = sys.stderr
    return CatchUpBar(stream, delay_seconds()) if enabled and stream.isatty() else None


@contextmanager
def catch_up_progress(*, enabled: bool) -> Iterator[None]:
    """Inside the block, every catch-up longer than the delay draws a bar on stderr (a terminal only)."""
    bar = catch_up_bar(enabled=enabled)
    with watching(bar) if bar is not None else nullcontext():
        yield
