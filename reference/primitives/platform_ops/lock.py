"""An inter-process lock that the kernel drops when its holder dies (contract §6.12, decision D1).

The lock is an SQLite writer transaction (``BEGIN IMMEDIATE``) held open on a small database of
its own: SQLite takes it with an operating-system file lock, and "the kernel releases the lock
when the holding process dies, so there is no stale-lock stealing" (§6.12).  The statements and
the 200 ms busy timeout are the TypeScript implementation's, so the two exclude each other.

Branches are SQLite's, not ours: POSIX advisory ``fcntl`` byte-range locks on Linux and macOS,
``LockFileEx`` on Windows; each is released by the system when the process ends, even by
SIGKILL or ``TerminateProcess``.  What no platform gives: a lock on a network share is only as
good as the server's lock service (SQLite's own warning), and two machines are not excluded.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation

BUSY_TIMEOUT_MS: Final = 200
# Exactly the TypeScript statements, in its order (src/pi-adapter/rebase-lock.ts).
ACQUIRE_STATEMENTS: Final = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "CREATE TABLE IF NOT EXISTS lock_state (id INTEGER PRIMARY KEY)",
    "BEGIN IMMEDIATE",
)


def acquire_writer_lock(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Take the writer lock on the SQLite file ``path``, waiting at most 200 ms for another holder
    to let go; the connection holds it until :func:`release_writer_lock` or the process ends."""
    # Autocommit mode: the transaction is ours to open and to roll back.
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        for statement in ACQUIRE_STATEMENTS:
            connection.execute(statement)
    except sqlite3.Error as error:
        connection.close()
        # The code is rebase-busy for any failure (contract §6.12); the message says which one.
        if getattr(error, "sqlite_errorcode", sqlite3.SQLITE_BUSY) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            message = "another rebase of this source session is running"
        else:
            message = f"the rebase lock file could not be written ({error}); no other rebase holds it"
        raise ContractViolation(Code.REBASE_BUSY, message) from error
    return connection


def release_writer_lock(connection: sqlite3.Connection) -> None:
    """Roll back and close: the operating-system lock goes with the connection."""
    try:
        connection.execute("ROLLBACK")
    finally:
        connection.close()
