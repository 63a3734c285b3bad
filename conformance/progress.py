"""Live progress of a run on stderr: a bar on a terminal, a few plain lines otherwise.

The runner tails the progress files (:mod:`conformance.progress_events`: one per worker, one for
``-j 1``) in a thread of its own and feeds a display. On a terminal the display is a
``rich.progress`` bar with the counts per status and the rows running now; rich is chosen over
tqdm because it draws several columns of text beside the bar, writes to stderr only (the
summary and ``--json`` own stdout), and is maintained and typed. Elsewhere (CI logs, a pipe)
one line per row that fails the run as it happens, and one line with the counts every tenth
of the rows or 15 seconds: never one line per row. The same thread counts the unexpected
outcomes of every worker, and writes the stop file once ``--max-fail`` is reached.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final, Protocol, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from conformance.judging import EXPECTED
from conformance.progress_events import Collected, Finished, ProgressEvent, ProgressTail, Started
from conformance.statuses import Status

POLL_SECONDS: Final = 0.1
PLAIN_EVERY_SECONDS: Final = 15.0
PLAIN_EVERY_FRACTION: Final = 0.1


class Tally:
    """What the progress files said so far: rows expected, statuses of those finished, rows running."""

    def __init__(self) -> None:
        self.total = 0
        self.counts: Counter[str] = Counter()
        self.running: list[str] = []

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def describe(self) -> str:
        """``120/501 rows: 118 PASS, 2 FAIL``."""
        counts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts.items()))
        return f"{self.done}/{self.total} rows" + (f": {counts}" if counts else "")

    def apply(self, event: ProgressEvent) -> None:
        if isinstance(event, Collected):
            self.total += event.rows
        elif isinstance(event, Started):
            self.running.append(event.id)
        else:
            self.counts[event.status] += 1
            if event.id in self.running:
                self.running.remove(event.id)


def fails_the_run(status: str) -> bool:
    """A status that counts for ``--max-fail`` and gets its own plain line (NOTRUN is no outcome)."""
    return status not in EXPECTED and status != Status.NOTRUN


class Display(Protocol):
    def update(self, tally: Tally, finished: Sequence[Finished]) -> None: ...
    def close(self, tally: Tally) -> None: ...


class NoDisplay:
    """``--no-progress`` (and ``-v``, where pytest's own lines are the progress)."""

    def update(self, tally: Tally, finished: Sequence[Finished]) -> None:
        return None

    def close(self, tally: Tally) -> None:
        return None


class PlainLines:
    """Lines for a log: each row that fails the run, and the counts every tenth or 15 s."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last_done = 0
        self.last_time = time.monotonic()

    def say(self, text: str) -> None:
        self.stream.write(f"recall-rebase: progress: {text}\n")
        self.stream.flush()

    def update(self, tally: Tally, finished: Sequence[Finished]) -> None:
        for event in finished:
            if fails_the_run(event.status):
                self.say(f"{event.status} {event.id} ({tally.done}/{tally.total})")
        step = max(1, round(tally.total * PLAIN_EVERY_FRACTION))
        late = time.monotonic() - self.last_time >= PLAIN_EVERY_SECONDS
        if tally.done < tally.total and (tally.done - self.last_done >= step or (late and tally.done > self.last_done)):
            self.say(tally.describe())
            self.last_done, self.last_time = tally.done, time.monotonic()

    def close(self, tally: Tally) -> None:
        return None


class Bar:
    """A rich progress bar on a terminal: done/total, elapsed, counts, the rows running now."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(TextColumn("conformance"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("{task.fields[counts]}"), TextColumn("[dim]{task.fields[running]}"),
                                 console=console, transient=True)
        self.task = self.progress.add_task("run", total=None, counts="", running="")
        self.progress.start()

    def update(self, tally: Tally, finished: Sequence[Finished]) -> None:
        counts = " ".join(f"{n} {status.lower()}" for status, n in sorted(tally.counts.items()))
        self.progress.update(self.task, total=tally.total or None, completed=tally.done, counts=counts,
                             running=escape(" ".join(tally.running[-3:])))  # a row's [case] is no markup

    def close(self, tally: Tally) -> None:
        self.update(tally, ())
        self.progress.stop()


def display_for(*, show: bool, stream: TextIO | None = None) -> Display:
    """The bar when ``stream`` (stderr) is a terminal, plain lines when not, nothing when not ``show``."""
    stream = stream or sys.stderr
    if not show:
        return NoDisplay()
    if stream.isatty():
        return Bar(Console(file=stream))
    return PlainLines(stream)


class Watcher:
    """Tails the progress files in a thread; feeds the display; writes ``stop_file`` at ``stop_after``."""

    def __init__(self, files: Sequence[Path], display: Display, *, stop_after: int | None = None,
                 stop_file: Path | None = None) -> None:
        self.tails = [ProgressTail(path) for path in files]
        self.display = display
        self.tally = Tally()
        self.unexpected = 0
        self.stop_after, self.stop_file = stop_after, stop_file
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recall-rebase-progress", daemon=True)

    def poll(self) -> None:
        """Read what the files gained, update the tally and the display, stop the workers if due."""
        events = [event for tail in self.tails for event in tail.read()]
        for event in events:
            self.tally.apply(event)
        finished = [event for event in events if isinstance(event, Finished)]
        self.unexpected += sum(1 for event in finished if fails_the_run(event.status))
        if self.stop_after is not None and self.stop_file is not None and self.unexpected >= self.stop_after:
            self.stop_file.touch()
        self.display.update(self.tally, finished)

    def _run(self) -> None:
        while not self._done.wait(POLL_SECONDS):
            self.poll()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join(timeout=5)
        self.poll()
        self.display.close(self.tally)


@contextmanager
def real_stderr() -> Iterator[TextIO]:
    """The terminal's stderr as it is now: pytest, in this process for ``-j 1``, captures file
    descriptor 2 while its tests run, and a line written there would be lost."""
    try:
        descriptor = os.dup(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):  # no real file behind sys.stderr
        yield sys.stderr
        return
    with open(descriptor, "w", encoding="utf-8", errors="replace") as stream:
        yield stream


@contextmanager
def watching(files: Sequence[Path], *, show: bool, stop_after: int | None = None,
             stop_file: Path | None = None) -> Iterator[Watcher]:
    """A started :class:`Watcher` for the run's duration (stopped, and its display closed, after)."""
    with real_stderr() as stream:
        watcher = Watcher(files, display_for(show=show, stream=stream), stop_after=stop_after, stop_file=stop_file)
        watcher.start()
        try:
            yield watcher
        finally:
            watcher.stop()
