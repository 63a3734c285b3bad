"""Opening and reading a file on one descriptor, as each platform allows (contract §3.5, H7).

Source verification does every check on one descriptor, opened without following a symbolic
link where the platform can say so (docs/decisions.md H7: "``O_NOFOLLOW``; on Windows an
``islink`` check").  Branches: posix (Linux, macOS) opens with ``O_NOFOLLOW`` and reads with
``pread``; Windows has neither, so a link is refused by an ``islink`` look before the open (a
swap between the look and the open is not seen there) and a read seeks the descriptor first.
Pi's small host files are opened with ``O_NONBLOCK`` so a FIFO cannot hang the read; Windows
has no FIFOs a path can name, and no ``O_NONBLOCK``.  ``O_BINARY`` keeps Windows from
translating newlines; it is 0 (absent) elsewhere.
"""

from __future__ import annotations

import os
from typing import Final

from reference.primitives.platform_ops.family import CURRENT, Platform

#: Read-only, never through a symbolic link where ``O_NOFOLLOW`` exists (not on Windows).
NO_FOLLOW_READ_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
#: Open without waiting for a writer, so a FIFO cannot hang the read (absent, 0, on Windows).
NONBLOCKING_READ_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def link_open_would_follow(path: str, *, platform: Platform = CURRENT) -> bool:
    """Whether ``path`` is a symbolic link that :data:`NO_FOLLOW_READ_FLAGS` cannot refuse: only
    on Windows (no ``O_NOFOLLOW`` there); posix refuses it at the open (``ELOOP``)."""
    return platform.windows and os.path.islink(path)


def read_at(fd: int, offset: int, size: int, *, platform: Platform = CURRENT) -> bytes:
    """Read ``size`` bytes at ``offset`` without moving a shared position (POSIX pread)."""
    if not platform.windows:
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # Windows: no pread; the descriptor is ours alone
    return os.read(fd, size)
