"""FTS queries the index tests share."""

from __future__ import annotations

import sqlite3


def matches(conn: sqlite3.Connection, query: str) -> list[str]:
    """The entry keys whose searchable text matches an FTS5 ``query``, in key order."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT k.entry_key FROM entries_fts JOIN entries_fts_keys AS k ON k.fts_rowid = entries_fts.rowid "
            "WHERE entries_fts MATCH ? ORDER BY k.entry_key",
            (query,),
        )
    ]
