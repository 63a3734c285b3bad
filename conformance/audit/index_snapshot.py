"""A read-only SQLite connection to a projection index that leaves no byte and no file behind.

SQLite's ``mode=ro`` is not enough: opening a WAL database read-only creates ``-wal`` and
``-shm`` beside it (measured: docs/audit.md "Reading SQLite").  So an index whose ``-wal`` is
absent or empty is opened ``immutable=1`` (no locks, no side files: every committed page is in
the main file), and one whose ``-wal`` holds frames is first copied with its ``-wal`` into a
private folder and the copy is opened there (``immutable`` would silently miss those frames).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Final

from conformance.audit.inputs import AUDIT_INPUT
from conformance.audit.sql_files import sql_text
from conformance.commandline import OneLineError

WAL_SUFFIX: Final = "-wal"


class IndexUnreadable(OneLineError, ValueError):
    """The index file cannot be read; the message is one line for the auditor."""

    code = AUDIT_INPUT


def _wal_has_frames(index: Path) -> bool:
    wal = Path(f"{index}{WAL_SUFFIX}")
    return wal.is_file() and wal.stat().st_size > 0


def _connect(index: Path, *, immutable: bool) -> sqlite3.Connection:
    uri = index.absolute().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")
    try:
        connection = sqlite3.connect(uri, uri=True, isolation_level=None)
        connection.execute(sql_text("projection_query_only"))
        connection.execute(sql_text("projection_probe")).fetchone()
    except sqlite3.Error as exc:
        raise IndexUnreadable(f"{index}: not a readable SQLite index: {exc}") from None
    return connection


@contextmanager
def read_only_index(index: Path) -> Iterator[sqlite3.Connection]:
    """A query-only connection to ``index`` (or to a private copy of it while its WAL holds frames)."""
    if not index.is_file():
        raise IndexUnreadable(f"{index}: no such index file")
    if not _wal_has_frames(index):
        with closing(_connect(index, immutable=True)) as connection:
            yield connection
        return
    with tempfile.TemporaryDirectory(prefix="recall-rebase-audit-index-") as private:
        copy = Path(private) / index.name
        shutil.copyfile(index, copy)
        shutil.copyfile(f"{index}{WAL_SUFFIX}", f"{copy}{WAL_SUFFIX}")
        with closing(_connect(copy, immutable=False)) as connection:
            yield connection
