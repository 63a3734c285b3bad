"""The audit's progress on stderr: a bar over the bytes of the session files, on a terminal only.

Reading the canonical bytes is what takes the time (a 1 GB project: tens of seconds), so the bar
counts bytes read; a pipe or a log gets nothing (the command's own output says how it ended).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

from conformance.audit.inputs import AuditInputs


@contextmanager
def audit_progress(inputs: AuditInputs, *, enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A callback to give the bytes of each block read, or ``None`` when no bar is shown."""
    console = Console(file=sys.stderr)
    if not enabled or not console.is_terminal:
        yield None
        return
    total = sum(path.stat().st_size for path in inputs.session_files if path.exists())
    columns = (TextColumn("reading the session files"), BarColumn(), DownloadColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("read", total=total)
        yield lambda done: progress.advance(task, done)
