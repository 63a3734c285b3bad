"""``context_history_recall`` (contract §2.6–§2.8, decisions D5, D7): search every authorized
source, make each engine hit a result hit, then order, dedupe and fit them in the budget."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from reference.primitives.codes import Code
from reference.privacy.provider import ProviderPolicy
from reference.recall import envelope as env
from reference.recall.history_state import HistoryState
from reference.recall.hits import HitContext, RecallHit, process_hit
from reference.recall.query_terms import describe_query
from reference.recall.request import RecallQuery, validate_recall
from reference.recall.retrieval import MAX_RESULTS, RetrievalQuery, RetrievalResult, SourceEntries, retrieve
from reference.recall.scope import Source
from reference.recall.source_verify import SourceFiles


def run_recall(service: HistoryState, params: Mapping[str, Any]) -> dict[str, Any]:
    query = validate_recall(params, service.history_config)
    host = service.host
    with service.connection() as conn, SourceFiles() as files:  # the catch-up and every hit on one descriptor
        scope = service.scopes.resolve(conn, query.scope, host, service.index_path, files)
        warnings = list(scope.warnings)
        retrieval_config = host.config.get("retrieval", {})
        exact, fts = bool(retrieval_config.get("exact", True)), bool(retrieval_config.get("fts", True))
        if not exact and not fts:
            warnings.append(Code.LEXICAL_RETRIEVAL_DISABLED)
        terms = describe_query(query.query)
        if not terms.terms:
            return recall_envelope(query, [Code.NO_QUERY_TERMS, *warnings], [])[0]
        service.settle_provider(conn, scope.caught_up)  # from the index just caught up, when it proves it
        privacy_config = host.config["privacy"]
        wanted = RetrievalQuery(terms, query.include_summaries, query.roles, query.before_ms, query.after_ms,
                                exact, fts, MAX_RESULTS)
        hits: list[RecallHit] = []
        context = HitContext(service.refs, host, query.scope, terms.terms,
                             ProviderPolicy.from_config(privacy_config, host.provider), privacy_config, files)
        for source, found in zip(scope.sources, search_sources(conn, scope.sources, wanted), strict=True):
            warnings.extend(found.warnings)
            for hit in found.hits:
                processed = process_hit(conn, source, hit, context, warnings)
                if processed is not None:
                    hits.append(processed)
    result, returned = recall_envelope(query, warnings, hits)
    for kept in returned:  # only the returned hits' refs take a place among the 512
        service.refs.keep(kept.ref)
    return result


def search_sources(conn: sqlite3.Connection, sources: Sequence[Source], query: RetrievalQuery) -> list[RetrievalResult]:
    """Each source's engine answer, in order (``retrieval.retrieve``)."""
    return retrieve(conn, [SourceEntries(source.session_id, source.authorized, source.excluded, source.fts_ranges,
                                         source.excluded_runs, source.branch_no) for source in sources], query)


def recall_envelope(query: RecallQuery, warnings: list[str],
                    hits: list[RecallHit]) -> tuple[dict[str, Any], list[RecallHit]]:
    """The result (JSON): hits in D5 order, one per entry, as many as the limit and the budget
    allow; and the hits it holds."""
    codes = env.dedupe(warnings)[: env.MAX_WARNINGS]
    partial = any(code != Code.NO_QUERY_TERMS for code in codes)
    result: dict[str, Any] = {
        "schema": env.SCHEMA,
        "quotedData": True,
        "status": "partial" if partial else "complete",
        "coverage": "partial" if partial else "complete",
        "effectiveScope": query.scope,
        "warnings": codes,
        "hits": [],
    }
    hits.sort(key=RecallHit.order)
    returned: list[RecallHit] = []
    taken: set[str] = set()
    for hit in hits:
        key = hit.entry_key
        if key in taken:
            continue
        if len(result["hits"]) >= query.limit:
            break
        result["hits"].append(hit.as_json())
        if env.cost(result) > query.max_output_tokens:
            result["hits"].pop()
            _add_budget_warning(result)
            continue
        taken.add(key)
        returned.append(hit)
    return result, returned


def _add_budget_warning(result: dict[str, Any]) -> None:
    """``output-budget`` counts within the 12 warnings (D7): the last one makes room."""
    if Code.OUTPUT_BUDGET not in result["warnings"]:
        if len(result["warnings"]) >= env.MAX_WARNINGS:
            result["warnings"] = result["warnings"][: env.MAX_WARNINGS - 1]
        result["warnings"].append(Code.OUTPUT_BUDGET)
    result["status"] = result["coverage"] = "partial"
