"""The one owner of splitting a run's rows: one machine's shard (``--shard K/N``), one worker's
share of it (``-j N``), and the stop file all workers obey.

:class:`MachineShard` (``conformance run --shard K/N``, the suite plugin's ``--rr-machine-shard``,
applied with the selection) keeps the rows whose scenario id hashes to K: the same row lands in
the same shard on every machine, whatever the selection, so N machines each given the same
selection run a partition of it, and ``conformance merge`` adds their reports up to one run's.

This module is also a pytest plugin the runner loads with ``-p conformance.shards`` in every
worker. ``--rr-shard i/N`` (a worker's :class:`Shard`) keeps the k-th selected row when
``k % N == i``: applied last, after ``--id``, ``--area``, ``--tag``, ``-k`` and the machine
shard, over the collection's own (deterministic) order, so the N workers' shares are a partition. ``--rr-stop-file PATH``: once the file exists (the runner writes it
when ``--max-fail`` is reached across the workers, or a worker's port could not start), the
worker runs no further scenario; the rows it did not reach stay NOTRUN in its report.
"""

from __future__ import annotations

import hashlib
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


class ShardSyntaxError(ValueError):
    """A ``--shard`` value that is not ``K/N`` with ``1 <= K <= N``."""


@dataclass(frozen=True)
class MachineShard:
    """Shard ``index`` of ``count`` (``1 <= index <= count``) of a run split across machines.

    A row belongs to the shard its scenario id's SHA-256 names (:meth:`of`): not Python's
    ``hash()``, which differs between processes, and not a position, which moves with the
    selection; every row of an outline lands with its scenario."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> MachineShard:
        """``K/N`` as typed on ``--shard``; anything else is :class:`ShardSyntaxError`."""
        index, slash, count = text.partition("/")
        if not (slash and index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
            raise ShardSyntaxError(f"--shard {text!r} is not K/N with 1 <= K <= N (e.g. 1/4)")
        return cls(int(index), int(count))

    @staticmethod
    def of(row_id: str, count: int) -> int:
        """The shard (1 to ``count``) the row ``row_id`` (``ID`` or ``ID[case]``) belongs to."""
        scenario = row_id.split("[", 1)[0]
        digest = hashlib.sha256(scenario.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % count + 1

    def holds(self, row_id: str) -> bool:
        return self.of(row_id, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


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
