"""SQLite errors that mean the database itself is damaged (issue 12, docs/decisions.md D15).

The one place that tells a damaged database from every other SQLite failure (locked, read-only,
full disk, a bad FTS query), so that the layers that degrade on an SQLite error (a skipped project
session, a degraded retrieval) still let a damaged index reach its repair.  Damaged: the file is
not a database or its image is malformed, or its rows break its own constraints (an integrity
error, which a consistent index never raises: rows deleted by hand with foreign keys off), or a
stored text is not UTF-8 (only valid strings are ever stored: a flipped byte).
"""

from __future__ import annotations

import sqlite3
from typing import Final

#: SQLite's primary result codes for a damaged file (``sqlite3.Error.sqlite_errorcode`` & 0xFF).
SQLITE_CORRUPT: Final = 11
SQLITE_NOTADB: Final = 26
#: The same, by message, for an error raised without a code.
_CORRUPT_MESSAGES: Final = ("database disk image is malformed", "file is not a database")
#: Python's own error for a stored text that is not UTF-8 (it carries no SQLite code).
_NOT_UTF8: Final = "Could not decode to UTF-8"


def is_damage(error: BaseException) -> bool:
    """Whether the database itself is damaged (and a rebuilt one would not be)."""
    if isinstance(error, sqlite3.IntegrityError) or _NOT_UTF8 in str(error):
        return True
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    return any(message in str(error) for message in _CORRUPT_MESSAGES)


class StoredValueDamaged(sqlite3.DatabaseError):
    """A value read back with a type the index never stores (a flipped record header): damage."""

    def __init__(self, what: str) -> None:
        super().__init__(f"database disk image is malformed ({what} has the wrong type)")
