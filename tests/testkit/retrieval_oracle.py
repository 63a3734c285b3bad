"""The test oracles of recall retrieval: the plain forms the fast paths are held equal to.

* ``retrieve_alone``: the oracle of ``retrieval.retrieve``: one source searched on its own, with
  only its authorized ids named (``IN``): no excluded ids, rowid ranges or runs, no stored
  branch, no statement shared with other sources.
* ``excluded_runs``: the oracle of ``fts_rowids.runs_of_rowids`` (the runs ``branch_store``
  keeps): the runs read from every FTS row of the session.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from collections.abc import Set as AbstractSet

from reference.recall.candidate_rows import RetrievalQuery
from reference.recall.fts_rowids import MAX_EXCLUDED_RUNS
from reference.recall.retrieval import RetrievalResult, SourceEntries, retrieve


def retrieve_alone(conn: sqlite3.Connection, session_id: str, authorized: Collection[str],
                   query: RetrievalQuery) -> RetrievalResult:
    """The answer of one source that may see ``authorized`` of its session, searched alone."""
    (result,) = retrieve(conn, [SourceEntries(session_id, authorized)], query)
    return result


def excluded_runs(rowids: list[tuple[int, str]], branch: AbstractSet[str]) -> tuple[tuple[int, int], ...] | None:
    """The session's entries outside ``branch`` as inclusive FTS rowid runs: each run spans
    consecutive excluded rows in rowid order, so it holds no branch row of the session (rows of
    other sessions may fall inside).  None when there are more than ``MAX_EXCLUDED_RUNS``."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    last = 0
    for rowid, entry_id in sorted(rowids):
        if entry_id in branch:
            if start is not None:
                runs.append((start, last))
                start = None
            continue
        if start is None:
            start = rowid
        last = rowid
    if start is not None:
        runs.append((start, last))
    return tuple(runs) if len(runs) <= MAX_EXCLUDED_RUNS else None
