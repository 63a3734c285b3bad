"""The line sink of one session file: each line as it is made, LF or CRLF, with a byte count.

Why: a 200 MB benchmark file never sits in memory, and size targets (``target_bytes``) need the
running count of what is on disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Final

from reference.fixturegen.options import ProgressCallback

PROGRESS_EVERY: Final = 8 * 1024 * 1024


class LineWriter:
    """Line sink: JSON.stringify + LF (or CRLF when asked), counting bytes for target sizes."""

    def __init__(self, fh: BinaryIO, crlf: bool, path: Path, on_progress: ProgressCallback | None) -> None:
        self.fh = fh
        self.eol = b"\r\n" if crlf else b"\n"
        self.bytes = 0
        self.path = path
        self.on_progress = on_progress
        self._next_report = PROGRESS_EVERY

    def raw(self, text: str, *, eol: bool = True) -> None:
        data = text.encode("utf-8") + (self.eol if eol else b"")
        self.fh.write(data)
        self.bytes += len(data)
        if self.on_progress is not None and self.bytes >= self._next_report:
            self._next_report += PROGRESS_EVERY
            self.on_progress(self.path, self.bytes)
