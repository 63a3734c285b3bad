"""The recall result's budget (contract §2.8, D7) measured in one pass with running sizes is the
budget measured by serializing the whole envelope again for every hit (the plain form, below)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.primitives.codes import Code
from reference.recall import envelope as env
from reference.recall.envelope import RecallHit, RecallResult
from reference.recall.recall_tool import recall_envelope
from reference.recall.refs import SourceRef
from reference.recall.request import RecallQuery

_WARNINGS = sorted(Code)[:20]  # more than the 12 a result holds


def _plain(query: RecallQuery, warnings: list[str], hits: list[RecallHit]) -> RecallResult:
    """Every hit tried on the whole envelope serialized again (as before the one pass)."""
    codes = tuple(dict.fromkeys(warnings))[: env.MAX_WARNINGS]
    budgeted = (*codes[: env.MAX_WARNINGS - 1], Code.OUTPUT_BUDGET) if Code.OUTPUT_BUDGET not in codes else codes
    result = RecallResult(query.scope, codes, ())
    taken: set[str] = set()
    for hit in sorted(hits, key=RecallHit.order):
        if hit.entry_key in taken:
            continue
        if len(result.hits) >= query.limit:
            break
        grown = replace(result, hits=(*result.hits, hit))
        if env.cost(grown.as_json()) > query.max_output_tokens:
            result = replace(result, warnings=budgeted)
            continue
        taken.add(hit.entry_key)
        result = grown
    return result


def _hit(n: int, entry: int, excerpt: str, score: float, timestamp: int | None, role: str | None) -> RecallHit:
    ref = SourceRef(ref=f"hist_{n:032x}", session_id="s", session_file="/f", project_path="/p", entry_id=f"e{entry}",
                    content_hash="h", issuing_session_id="s", expires=1, scope="current-branch", kind="message",
                    role=role, timestamp=timestamp, relation="ancestor", classification="normal",
                    public_project_id="p", public_session_id="s", public_entry_id=f"e{entry}")
    return RecallHit(ref, "normal", excerpt, len(excerpt) > 50, "lexical-match", score)


_HITS = st.lists(st.tuples(st.integers(0, 15), st.text(max_size=400) | st.just("\U0001f600\u00e9\"\\\n" * 30),
                           st.floats(0, 200, allow_nan=False), st.none() | st.integers(0, 2**40),
                           st.sampled_from([None, "user", "assistant"])), max_size=24)


@examples(deep=300, ci=150, deadline=None)
@given(_HITS, st.lists(st.sampled_from([*_WARNINGS, Code.OUTPUT_BUDGET, Code.NO_QUERY_TERMS]), max_size=16), st.integers(1, 12), st.integers(256, 1500))
def test_one_pass_budget_is_the_envelope_serialized_per_hit(raw: list[tuple[int, str, float, int | None, str | None]],
                                                            warnings: list[str], limit: int, tokens: int) -> None:
    hits = [_hit(n, *item) for n, item in enumerate(raw)]
    query = RecallQuery("q", "current-branch", limit, tokens, None, None, None, False)
    assert recall_envelope(query, list(warnings), hits) == _plain(query, list(warnings), hits)
