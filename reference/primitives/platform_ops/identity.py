"""Which file a path held when it was last read, beyond its size and mtime (issue 12, D15).

``cp -p`` or ``touch -r`` can put other bytes under a session's path with the same size and
modification time, which the contract's catch-up cursor cannot see.  The stamp adds what no
user-level tool sets back: the file's identity (device, inode) and, on POSIX, its status-change
time, which every write, ``cp -p`` included, moves on.

Platform branches (named, here only): on Windows ``st_ctime`` is the creation time (Python
before 3.12), which an in-place rewrite keeps, so the stamp there is the identity alone: a file
replaced by another is seen, bytes rewritten in place with size and mtime restored are not
(docs/index.md).  A chmod, chown or new hard link also moves the POSIX time: one rebuild, never a
wrong answer.  The same reason keeps a host from remembering header facts under a stat on
Windows (:func:`remembers_by_stat`).  Times are as fine as the volume keeps them: 1 ns on ext4
and APFS, 100 ns on NTFS, 1 s on HFS+, 2 s for a FAT mtime.
"""

from __future__ import annotations

import os

from reference.primitives.platform_ops.family import CURRENT, Platform


def change_stamp(info: os.stat_result, *, platform: Platform = CURRENT) -> str:
    """``device:inode:ctime`` (Windows: ``device:inode``), as stored beside the index state."""
    if platform.windows:
        return f"{info.st_dev}:{info.st_ino}"
    return f"{info.st_dev}:{info.st_ino}:{info.st_ctime_ns}"


def remembers_by_stat(platform: Platform = CURRENT) -> bool:
    """Whether a stat can stand for a file's bytes: not on Windows, whose ``st_ctime`` an
    in-place rewrite keeps (docs/retrieval.md: "On Windows nothing is remembered")."""
    return not platform.windows


def stat_identity(info: os.stat_result) -> tuple[int, ...]:
    """Device, inode, size, modification and change times: what changes whenever a file's bytes
    do, so a file's header facts (or a scan of it) hold while equal."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def file_identity(info: os.stat_result) -> tuple[int, int]:
    """Device and inode: which file (not which bytes); a deleted and recreated file differs."""
    return (info.st_dev, info.st_ino)


def size_and_mtime(path: str) -> tuple[int, int] | None:
    """The contract's cursor for a path (size, mtime in ns); None when it cannot be stat'ed."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns
