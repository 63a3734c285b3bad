"""Which file a path held when it was last read, beyond its size and mtime (issue 12, D15).

``cp -p`` or ``touch -r`` can put other bytes under a session's path with the same size and
modification time, which the contract's catch-up cursor cannot see.  The stamp adds what no
user-level tool sets back: the file's identity (device, inode) and, on POSIX, its status-change
time, which every write, ``cp -p`` included, moves on.

Platform branches (named, here only): on Windows ``st_ctime`` is the creation time (Python
before 3.12), which an in-place rewrite keeps, so the stamp there is the identity alone: a file
replaced by another is seen, bytes rewritten in place with size and mtime restored are not
(docs/index.md).  A chmod, chown or new hard link also moves the POSIX time: one rebuild, never a
wrong answer.
"""

from __future__ import annotations

import os

from reference.primitives.paths import IS_WINDOWS


def change_stamp(info: os.stat_result, *, windows: bool = IS_WINDOWS) -> str:
    """``device:inode:ctime`` (Windows: ``device:inode``), as stored beside the index state."""
    if windows:
        return f"{info.st_dev}:{info.st_ino}"
    return f"{info.st_dev}:{info.st_ino}:{info.st_ctime_ns}"
