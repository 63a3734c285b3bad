"""``context_history_recall`` (contract §2.6–§2.8, decisions D5, D7): search every authorized
source, make each engine hit a result hit, then order, dedupe and fit them in the budget."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from reference.primitives.codes import Code
from reference.privacy.policy import ProviderPolicy
from reference.recall import envelope as env
from reference.recall.candidate_rows import MAX_RESULTS, RetrievalQuery
from reference.recall.envelope import RecallHit, RecallResult
from reference.recall.history_state import HistoryState
from reference.recall.hits import HitContext, process_hit
from reference.recall.query_terms import describe_query
from reference.recall.request import RecallQuery, validate_recall
from reference.recall.retrieval import retrieve
from reference.recall.source_verify import SourceFiles


def run_recall(service: HistoryState, params: Mapping[str, Any]) -> RecallResult:
    host = service.host
    with service.connection() as conn, SourceFiles() as files:  # the catch-up and every hit on one descriptor
        query = validate_recall(params, service.history_config)  # after the runtime access (§2.4 step 3)
        scope = service.scopes.resolve(conn, query.scope, host, files)
        warnings = list(scope.warnings)
        retrieval_config = host.config.get("retrieval", {})
        exact, fts = bool(retrieval_config.get("exact", True)), bool(retrieval_config.get("fts", True))
        if not exact and not fts:
            warnings.append(Code.LEXICAL_RETRIEVAL_DISABLED)
        terms = describe_query(query.query)
        if not terms.terms:
            return recall_envelope(query, [Code.NO_QUERY_TERMS, *warnings], [])
        service.settle_provider(conn, scope.caught_up)  # from the index just caught up, when it proves it
        privacy_config = host.config["privacy"]
        wanted = RetrievalQuery(terms, query.include_summaries, query.roles, query.before_ms, query.after_ms,
                                exact, fts, MAX_RESULTS)
        hits: list[RecallHit] = []
        context = HitContext(service.refs, host, query.scope, terms.terms,
                             ProviderPolicy.from_config(privacy_config, host.provider), privacy_config, files,
                             service.findings)
        for source, found in zip(scope.sources, retrieve(conn, scope.sources, wanted), strict=True):
            warnings.extend(found.warnings)
            for hit in found.hits:
                processed = process_hit(conn, source, hit, context, warnings)
                if processed is not None:
                    hits.append(processed)
    result = recall_envelope(query, warnings, hits)
    for kept in result.hits:  # only the returned hits' refs take a place among the 512
        service.refs.keep(kept.ref)
    return result


def recall_envelope(query: RecallQuery, warnings: list[str], hits: list[RecallHit]) -> RecallResult:
    """The result: hits in D5 order, one per entry, as many as the limit and the budget allow.
    ``output-budget`` counts within the 12 warnings (D7): the last one makes room.  One pass: the
    envelope with a hit more is the one without it, the hit and a comma between two."""
    codes = tuple(dict.fromkeys(warnings))[: env.MAX_WARNINGS]
    budgeted = (*codes[: env.MAX_WARNINGS - 1], Code.OUTPUT_BUDGET) if Code.OUTPUT_BUDGET not in codes else codes
    result = RecallResult(query.scope, codes, ())
    size = env.units(result.as_json())
    taken: set[str] = set()
    for hit in sorted(hits, key=RecallHit.order):
        if hit.entry_key in taken:
            continue
        if len(result.hits) >= query.limit:
            break
        grown = size + env.units(hit.as_json()) + (1 if result.hits else 0)
        if env.cost_of(grown) > query.max_output_tokens:
            size = size if result.warnings == budgeted else env.units(replace(result, warnings=budgeted).as_json())
            result = replace(result, warnings=budgeted)
            continue
        taken.add(hit.entry_key)
        result, size = replace(result, hits=(*result.hits, hit)), grown
    return result
