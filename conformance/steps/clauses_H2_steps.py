"""Steps of the scenarios written for contract §2.1-§2.9 clauses that no scenario checked (issue 26)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from pytest_bdd import parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.history_calls import open_history
from conformance.world import HistoryWorld


@when("the history host opens the current session with an index path under a regular file")
def when_open_index_under_file(adapter: Adapter, history: HistoryWorld, workdir: Path) -> None:
    """No index can be opened there: its folder would be a file (contract §2.4: no database)."""
    blocker = workdir / "not-a-folder"
    blocker.write_text("a regular file where the index folder would be\n", encoding="utf-8")
    open_history(adapter, history, indexPath=str(blocker / "index.sqlite"))


#: The length penalty (contract §2.6: tokenEstimate / 1000) of two short entries differs by far less.
_PENALTY_SLACK: Final = 0.05


@then(parsers.parse('the hit "{first}" scores {difference:g} more than the hit "{second}"'))
def then_score_difference(history: HistoryWorld, first: str, second: str, difference: float) -> None:
    """Two hits of one recall that differ in one part of the score: its weight, up to the length
    penalty of two short texts (the spec leaves tokenEstimate to the index)."""
    scores = {hit["entryId"]: hit["score"] for hit in history.last["hits"]}
    assert first in scores and second in scores, history.last
    assert abs(scores[first] - scores[second] - difference) < _PENALTY_SLACK, (scores, difference)


@then(parsers.parse('the first hit\'s keys are "{keys}"'))
def then_first_hit_keys(history: HistoryWorld, keys: str) -> None:
    """The keys as the envelope's JSON text gave them, in that order (contract §2.9)."""
    hit = history.last["hits"][0]
    assert list(hit) == keys.split(), list(hit)


@then(parsers.parse('no hit has the entry id "{entry_id}"'))
def then_no_hit_with_id(history: HistoryWorld, entry_id: str) -> None:
    hits = history.last["hits"]
    assert all(hit["entryId"] != entry_id for hit in hits), [hit["entryId"] for hit in hits]


@then(parsers.parse("the first hit's score lies between {low:g} and {high:g}"))
def then_score_between(history: HistoryWorld, low: float, high: float) -> None:
    """Both bounds included; the score is rounded to 6 decimals (contract §2.9)."""
    score = history.last["hits"][0]["score"]
    assert low <= score <= high, score
    assert round(score, 6) == score, score
