"""The files a toolkit command reads because the user named them (a report, an expectations
manifest, a mapping): only regular files, and never a wait on one that is not.

A FIFO would block an ordinary ``open`` until some writer comes, and ``/dev/zero`` would be read
without end, so the file is opened without blocking and its kind is taken from the open handle
(no window between a check and the open), and anything but a regular file is refused with a
reason a person can act on. A symbolic link is followed: it is the file it names that must be
regular.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

#: ``O_NONBLOCK`` where the platform has it (POSIX): opening a FIFO then returns at once. Windows
#: has neither FIFOs on its file system nor the flag.
_OPEN_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class NotARegularFile(OSError):
    """The named path is a folder, a FIFO, a socket or a device: nothing was read from it."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"it is {kind}, not a regular file")
        self.strerror = f"it is {kind}, not a regular file"
        self.filename = os.fspath(path)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_bytes(path: Path) -> bytes:
    """The bytes of the regular file at ``path``; :class:`NotARegularFile` (an ``OSError``) for
    anything else, without waiting on it or reading from it."""
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except IsADirectoryError:
        raise NotARegularFile(path, "a folder") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(path, _kind(mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(descriptor)


def read_text(path: Path) -> str:
    """:func:`read_bytes` decoded as UTF-8 (``UnicodeDecodeError`` when it is not)."""
    return read_bytes(path).decode("utf-8")
