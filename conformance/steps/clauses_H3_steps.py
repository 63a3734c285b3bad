"""Then steps the issue 26 scenarios of contract §2.12 need (a result's coverage on its own)."""

from __future__ import annotations

from pytest_bdd import parsers, then

from conformance.world import HistoryWorld


@then(parsers.parse('the result has coverage "{coverage}"'))
def then_coverage(history: HistoryWorld, coverage: str) -> None:
    """§2.12: any warning makes status and coverage partial; coverage is its own field."""
    assert history.last["coverage"] == coverage, history.last
