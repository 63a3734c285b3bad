"""One worker's share of a parallel run (``-j N``), and the stop file all workers obey.

A pytest plugin the runner loads with ``-p conformance.shards`` in every worker. ``--rr-shard
i/N`` keeps the k-th selected row when ``k % N == i``: applied last, after ``--id``, ``--area``,
``--tag`` and ``-k``, over the collection's own (deterministic) order, so the N shards are a
partition of the selection. ``--rr-stop-file PATH``: once the file exists (the runner writes it
when ``--max-fail`` is reached across the workers, or a worker's port could not start), the
worker runs no further scenario; the rows it did not reach stay NOTRUN in its report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

Row = TypeVar("Row")
#: The reason pytest is given when the stop file stops a worker.
STOPPED: str = "recall-rebase: stopped: another worker reached --max-fail or could not start its port"


@dataclass(frozen=True)
class Shard:
    """Worker ``index`` of ``count`` (``0 <= index < count``)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``i/N`` as typed on ``--rr-shard``; anything else is a usage error."""
        index, slash, count = text.partition("/")
        if not (slash and index.isdigit() and count.isdigit() and int(index) < int(count)):
            raise pytest.UsageError(f"--rr-shard {text!r} is not i/N with 0 <= i < N")
        return cls(int(index), int(count))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def share(self, rows: Sequence[Row]) -> list[Row]:
        """This shard's rows of ``rows``: every ``count``-th, from the ``index``-th on."""
        return [row for position, row in enumerate(rows) if position % self.count == self.index]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("recall-rebase")
    group.addoption("--rr-shard", default=None, help="i/N: run only the k-th selected rows with k % N == i")
    group.addoption("--rr-stop-file", default=None, help="run no further scenario once this file exists")


@pytest.hookimpl(trylast=True)  # after every selection (--rr-only, --rr-area, --rr-tag, -k)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    text = config.getoption("--rr-shard")
    if not text:
        return
    keep = Shard.parse(str(text)).share(items)
    kept = {id(item) for item in keep}
    drop = [item for item in items if id(item) not in kept]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Before each scenario: once the stop file exists, end the session without running it.

    ``shouldfail`` (not ``shouldstop``): pytest then ends as a failed run, as ``--maxfail`` does,
    not as an interrupted one, which the report would take for a signal."""
    stop_file = item.config.getoption("--rr-stop-file")
    if stop_file and Path(str(stop_file)).exists():
        item.session.shouldfail = STOPPED
        return True
    return None
