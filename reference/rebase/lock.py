"""The inter-process rebase lock on one source session (contract §6.12, decision D1).

Two rebases of the same source, in any processes and in either implementation, must not run at
once, and a crashed holder must not leave a lock to steal. The lock is an SQLite writer
transaction (``BEGIN IMMEDIATE``) held open for the whole run in a small database of its own
(``reference.primitives.platform_ops.lock``, where its platform branches are): SQLite takes it
with an operating-system file lock, which the kernel drops when the process dies.
The scheme (file name, statements, 200 ms busy timeout) is the TypeScript implementation's, so
the two implementations exclude each other. The file holds one empty table: no history, no
journal, no authority; it is not the history index, so rebuilding the index cannot free it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.family import CURRENT, Platform
from reference.primitives.platform_ops.lock import acquire_writer_lock, release_writer_lock
from reference.primitives.platform_ops.owner_only import (
    create_owner_only,
    ensure_private_dir,
    missing_folders,
    sync_into_parents,
)
from reference.primitives.platform_ops.paths import canonical_path
from reference.primitives.platform_ops.sync_sites import SyncSite
from reference.primitives.textunits import sha256_text


def lock_path(source: str | os.PathLike[str], *, platform: Platform = CURRENT) -> Path:
    """``<dir of canonical source>/.ds4-rebase/locks/<sha256(canonical source)>.sqlite``.

    The canonical path resolves symlinks (aliases share one lock) and is lower-cased on Windows.
    """
    canonical = canonical_path(source, platform=platform)
    return Path(os.path.dirname(canonical)) / ".ds4-rebase" / "locks" / f"{sha256_text(canonical)}.sqlite"


class RebaseLock:
    """Held from ``__enter__`` to ``__exit__``; a lock held elsewhere raises ``rebase-busy``."""

    def __init__(self, source: str | os.PathLike[str]) -> None:
        self.source = source
        self.path = lock_path(source)
        self._connection: sqlite3.Connection | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock now."""
        return self._connection is not None

    def acquire(self) -> None:
        """Take the writer lock, waiting at most 200 ms for another holder to let go."""
        if self._connection is not None:
            raise RuntimeError("this RebaseLock is already held")
        if not os.path.exists(canonical_path(self.source)):  # the TypeScript realpath fails here too
            raise ContractViolation(Code.REBASE_UNAVAILABLE, "the source session file does not exist")
        new_folders = missing_folders(self.path.parent)  # .ds4-rebase too, on the first run beside the source
        ensure_private_dir(self.path.parent)
        create_owner_only(self.path)  # 0600, and so its -journal (SQLite copies the database's mode)
        sync_into_parents(new_folders, SyncSite.LOCK_NEW_FOLDERS)  # the journals' folder will be made in .ds4-rebase: it must survive a power loss
        self._connection = acquire_writer_lock(self.path)

    def release(self) -> None:
        """Roll back and close; releasing twice (or a lock never taken) does nothing."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        release_writer_lock(connection)

    def __enter__(self) -> RebaseLock:
        self.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()
