"""Pi's default leaf of a session (the last entry in file order) read from the index: the leaf a
host asks for most, where the stored branch (``branch_store``) and the walk (``active_branch``)
both start.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from reference.recall.model_facts import sealed_default_leaf


def default_leaf_id(conn: sqlite3.Connection, session_id: str) -> Any:
    """Pi's default leaf: the last entry in file order; None when the session has none.

    The catch-up's seal records it (:func:`reference.recall.model_facts.sealed_default_leaf`);
    without a seal that proves it, the entry with the greatest offset (a query over the session).
    """
    sealed = sealed_default_leaf(conn, session_id)
    if sealed is not None:
        return sealed[0]
    row = conn.execute(
        "SELECT e.entry_id FROM entries e JOIN entry_source_locations l ON l.entry_key = e.entry_key "
        "WHERE e.session_id = ? ORDER BY l.start_offset DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return None if row is None else row[0]
