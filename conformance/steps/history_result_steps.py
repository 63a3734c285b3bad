"""Then steps on the history tools' envelopes: status and warnings, hits, read text, status.

Expected values come from the session files the harness wrote, never from the implementation.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Final

from pytest_bdd import parsers, then

from conformance.world import HistoryWorld


@then(parsers.parse('the result is unavailable with code "{code}"'))
def then_unavailable(history: HistoryWorld, code: str) -> None:
    result = history.last
    assert result["status"] == "unavailable" and result["warnings"] == [code], result
    assert set(result) == {"schema", "quotedData", "status", "coverage", "warnings"}, result


@then(parsers.parse('the result is {status} with warnings "{warnings}"'))
def then_status_warnings(history: HistoryWorld, status: str, warnings: str) -> None:
    result = history.last
    assert result["status"] == status, result
    assert result["warnings"] == warnings.split(), result


@then(parsers.parse("the result is {status} with no warnings"))
def then_status_clean(history: HistoryWorld, status: str) -> None:
    result = history.last
    assert result["status"] == status and result["warnings"] == [], result


@then(parsers.parse('the result carries the warning "{code}"'))
def then_has_warning(history: HistoryWorld, code: str) -> None:
    assert code in history.last["warnings"], history.last


@then(parsers.parse('the result has coverage "{coverage}"'))
def then_coverage(history: HistoryWorld, coverage: str) -> None:
    """§2.12: any warning makes status and coverage partial; coverage is its own field."""
    assert history.last["coverage"] == coverage, history.last


@then(parsers.parse('the hit entry ids are "{ids}"'))
def then_hit_ids(history: HistoryWorld, ids: str) -> None:
    assert [h["entryId"] for h in history.last["hits"]] == ids.split(), history.last


@then("there are no hits")
def then_no_hits(history: HistoryWorld) -> None:
    assert history.last["hits"] == [], history.last


@then(parsers.parse('some hit has relation "{relation}"'))
def then_some_relation(history: HistoryWorld, relation: str) -> None:
    hits = history.last["hits"]
    assert any(h["relation"] == relation for h in hits), [(h["entryId"], h["relation"]) for h in hits]


@then(parsers.parse('every hit has relation "{relation}"'))
def then_every_relation(history: HistoryWorld, relation: str) -> None:
    hits = history.last["hits"]
    assert hits and all(h["relation"] == relation for h in hits), hits


@then(parsers.parse('the first hit has {field} "{value}"'))
def then_first_hit_field(history: HistoryWorld, field: str, value: str) -> None:
    hit = history.last["hits"][0]
    assert str(hit.get(field)) == value, hit


@then(parsers.parse('the first hit\'s keys are "{keys}"'))
def then_first_hit_keys(history: HistoryWorld, keys: str) -> None:
    """The keys as the envelope's JSON text gave them, in that order (contract §2.9)."""
    hit = history.last["hits"][0]
    assert list(hit) == keys.split(), list(hit)


@then(parsers.parse("the first hit's score lies between {low:g} and {high:g}"))
def then_score_between(history: HistoryWorld, low: float, high: float) -> None:
    """Both bounds included; the score is rounded to 6 decimals (contract §2.9)."""
    score = history.last["hits"][0]["score"]
    assert low <= score <= high, score
    assert round(score, 6) == score, score


#: The length penalty (contract §2.6: tokenEstimate / 1000) of two short entries differs by far less.
_PENALTY_SLACK: Final = 0.05


@then(parsers.parse('the hit "{first}" scores {difference:g} more than the hit "{second}"'))
def then_score_difference(history: HistoryWorld, first: str, second: str, difference: float) -> None:
    """Two hits of one recall that differ in one part of the score: its weight, up to the length
    penalty of two short texts (the spec leaves tokenEstimate to the index)."""
    scores = {hit["entryId"]: hit["score"] for hit in history.last["hits"]}
    assert first in scores and second in scores, history.last
    assert abs(scores[first] - scores[second] - difference) < _PENALTY_SLACK, (scores, difference)


@then(parsers.parse('no hit has the entry id "{entry_id}"'))
def then_no_hit_with_id(history: HistoryWorld, entry_id: str) -> None:
    hits = history.last["hits"]
    assert all(hit["entryId"] != entry_id for hit in hits), [hit["entryId"] for hit in hits]


@then(parsers.parse('no hit comes from the session "{name}"'))
def then_no_hit_from(history: HistoryWorld, name: str) -> None:
    session_id = history.session_id(name)
    assert all(h["sessionId"] != session_id for h in history.last["hits"]), history.last


@then(parsers.parse('a hit comes from the session "{name}"'))
def then_hit_from(history: HistoryWorld, name: str) -> None:
    session_id = history.session_id(name)
    assert any(h["sessionId"] == session_id for h in history.last["hits"]), history.last


@then(parsers.parse('the read text contains "{text}"'))
def then_read_contains(history: HistoryWorld, text: str) -> None:
    result = history.last
    assert result["status"] in ("complete", "partial") and text in result["text"], result


@then(parsers.parse('the read text is "{text}"'))
def then_read_is(history: HistoryWorld, text: str) -> None:
    assert history.last["text"] == text.encode().decode("unicode_escape"), history.last


@then(parsers.parse('the read source entry id is "{entry_id}"'))
def then_read_entry(history: HistoryWorld, entry_id: str) -> None:
    assert history.last["source"]["entryId"] == entry_id


@then(parsers.parse("the read stops before line {line:d}"))
def then_next_line(history: HistoryWorld, line: int) -> None:
    result = history.last
    assert result["truncated"] is True and result["nextLine"] == line, result
    assert result["status"] == "partial" and result["warnings"] == ["more-lines"], result


@then("the read is whole")
def then_read_whole(history: HistoryWorld) -> None:
    result = history.last
    assert result["truncated"] is False and "nextLine" not in result and result["status"] == "complete", result


@then(parsers.parse("the result with {reserve:d} tokens of room fits {budget:d} chars-v1 tokens"))
def then_fits(history: HistoryWorld, reserve: int, budget: int) -> None:
    text = json.dumps(history.last, ensure_ascii=False, separators=(",", ":"))
    units = len(text.encode("utf-16-le")) // 2
    assert -(-units // 4) + reserve <= budget, units


@then(parsers.parse("the status reports {count:d} indexed entries"))
def then_indexed(history: HistoryWorld, count: int) -> None:
    assert history.last["indexedEntries"] == count, history.last


@then("no result names a session file path")
def then_no_paths(history: HistoryWorld) -> None:
    text = json.dumps(history.results, ensure_ascii=False)
    for path in history.sessions.values():
        assert str(path) not in text and Path(path).name not in text, "a result names a session file"


@then("every history session file is byte-identical to before")
def then_files_unchanged(history: HistoryWorld) -> None:
    assert history.remembered_bytes is not None, "the history session files were not remembered"
    for name, data in history.remembered_bytes.items():
        path = Path(history.sessions[name])
        assert path.read_bytes() == data, f"{name} changed"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == hashlib.sha256(data).hexdigest()


@then("the results hold no excerpt or text")
def then_content_free(history: HistoryWorld) -> None:
    result = history.last
    assert "hits" not in result or result["hits"] == []
    assert "text" not in result and "excerpt" not in json.dumps(result)
