"""The test oracles of recall retrieval: the plain forms the fast paths are held equal to.

* ``retrieve_alone``: the oracle of ``retrieval.retrieve``: one source searched on its own, with
  only its authorized ids named (``IN``): no excluded ids, rowid ranges or runs, no stored
  branch, no statement shared with other sources.
* ``excluded_runs``: the oracle of ``fts_rowids.runs_of_rowids`` (the runs ``branch_store``
  keeps): the runs read from every FTS row of the session.
* ``select_plain``: the oracle of ``retrieval._select`` (which scores the candidates and makes
  hits only of those it keeps): every candidate made a hit by ``ranking.rank``, sorted by
  ``ranking.engine_order``, then deduplicated.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from collections.abc import Set as AbstractSet

from reference.recall.candidate_rows import RetrievalQuery
from reference.recall.fts_rowids import MAX_EXCLUDED_RUNS
from reference.recall.match_text import dedup_key
from reference.recall.query_terms import QueryTerms
from reference.recall.ranking import Candidate, EngineHit, engine_order, rank
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


def select_plain(eligible: list[Candidate], terms: QueryTerms, max_results: int) -> tuple[list[EngineHit], int]:
    """The best ``max_results`` hits in engine order, one per dedup key, and the duplicates dropped."""
    times = [candidate.row.created_at for candidate in eligible if candidate.row.created_at is not None]
    span = (min(times), max(times)) if times else (0, 0)
    hits: list[EngineHit] = []
    seen: set[str] = set()
    duplicates = 0
    for hit in sorted((rank(candidate, span, terms) for candidate in eligible), key=engine_order):
        if len(hits) >= max_results:
            break
        if dedup_key(hit.searchable_text) in seen:
            duplicates += 1
            continue
        seen.add(dedup_key(hit.searchable_text))
        hits.append(hit)
    return hits, duplicates
