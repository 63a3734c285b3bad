"""What the differential tests against Pi compared, added up for the end-of-run ``pi-oracle`` summary:
(session, leaf) pairs and (session, leaf, query) recall triples, per name, with their differences.

A pytest plugin, registered by tests/conftest.py (a conftest every process loads): under
pytest-xdist the controller, which prints the summary, never loads tests/oracle/conftest.py
(where the ``pair_stats`` and ``triple_stats`` fixtures hand these counters to the tests). Each
worker hands its totals to the controller (testkit/worker_counts.py). Names are printed in the
order of the first test that added to them, in the run's collection (every worker collects the
same), so the lines come in one order whichever worker ran which test.
"""

from __future__ import annotations

from typing import Any

import pytest

from testkit import pi_oracle as _pi
from testkit.worker_counts import hand_over, handed_over, on_worker

#: Per name: (place of the first test that added to it, then three counts). Tuples, which execnet sends.
Totals = dict[str, tuple[int, int, int, int]]
#: Per name: (first, pairs, differences, files).
PAIRS = pytest.StashKey[Totals]()
#: Per name: (first, triples, disagreements, files).
TRIPLES = pytest.StashKey[Totals]()
_HANDED: str = "pi-oracle"


def _add(store: Totals, name: str, first: int, counts: tuple[int, int, int]) -> None:
    was = store.get(name, (first, 0, 0, 0))
    store[name] = (min(was[0], first), was[1] + counts[0], was[2] + counts[1], was[3] + counts[2])


def _place(item: pytest.Item) -> int:
    """Where ``item`` is in the run's collection (the same in every worker)."""
    return item.session.items.index(item)


class PairStats:
    """Counts the (session, leaf) pairs one test compared, for the terminal summary."""

    def __init__(self, item: pytest.Item) -> None:
        self._store = item.config.stash.setdefault(PAIRS, {})
        self._item = item

    def add(self, name: str, comparison: _pi.Comparison) -> None:
        """Add to the totals under ``name`` (several tests may share one name)."""
        counts = (comparison.pairs, len(comparison.differences), len(comparison.files))
        _add(self._store, name, _place(self._item), counts)


class TripleStats:
    """Counts the (session, leaf, query) recall triples one test compared, for the terminal summary."""

    def __init__(self, item: pytest.Item) -> None:
        self._store = item.config.stash.setdefault(TRIPLES, {})
        self._item = item

    def add(self, name: str, *, triples: int, disagreements: int, files: int) -> None:
        """Add to the totals under ``name`` (several tests may share one name)."""
        _add(self._store, name, _place(self._item), (triples, disagreements, files))


def pytest_sessionfinish(session: pytest.Session) -> None:
    stash = session.config.stash
    hand_over(session.config, _HANDED, {"pairs": stash.get(PAIRS, {}), "triples": stash.get(TRIPLES, {})})


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any) -> None:
    if counts := handed_over(node, _HANDED):
        stash = node.config.stash
        for key, handed in ((PAIRS, counts["pairs"]), (TRIPLES, counts["triples"])):
            store = stash.setdefault(key, {})
            for name, (first, *counts) in handed.items():
                _add(store, name, first, (counts[0], counts[1], counts[2]))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    stats = config.stash.get(PAIRS, None)
    triples = config.stash.get(TRIPLES, None)
    if (not stats and not triples) or on_worker(config):
        return
    terminalreporter.write_sep("-", "pi-oracle")
    if stats:
        pairs = sum(p for _, p, _, _ in stats.values())
        diffs = sum(d for _, _, d, _ in stats.values())
        for name, (_, p, d, f) in sorted(stats.items(), key=lambda named: named[1][0]):
            terminalreporter.write_line(f"  {name}: {p} pairs from {f} files, {d} differences")
        terminalreporter.write_line(f"pi-oracle: compared {pairs} (session, leaf) pairs, {diffs} differences")
    if triples:
        total = sum(t for _, t, _, _ in triples.values())
        disagreements = sum(d for _, _, d, _ in triples.values())
        for name, (_, t, d, f) in sorted(triples.items(), key=lambda named: named[1][0]):
            terminalreporter.write_line(f"  {name}: {t} triples from {f} files, {d} disagreements")
        terminalreporter.write_line(
            f"pi-oracle recall: compared {total} (session, leaf, query) triples, {disagreements} disagreements"
        )
