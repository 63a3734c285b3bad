"""The progress file of a run: one JSON line per event, written by pytest, tailed by the runner.

A pytest plugin the runner loads with ``-p conformance.progress_events --rr-progress PATH``, in
its own process (``-j 1``) or in every worker (``-j N``): the same event source either way.
The lines (``schemas/progress/v1/event.schema.json``) are ``{"event": "collected", "rows": K}``
once the selection is known, ``{"event": "started", "id": ROW}`` when a row begins and
``{"event": "finished", "id": ROW, "status": STATUS}`` with its report status once it has
ended; each line is flushed as it is written. Each kind is a frozen value (:class:`Collected`,
:class:`Started`, :class:`Finished`); JSON only in the file. :class:`ProgressTail` reads the
events a file has gained since the last read, never a half-written line.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import IO, Any, Final

import msgspec
import pytest

from conformance.plugin import scenario_id_of
from conformance.statuses import Status

PROGRESS_SCHEMA: Final = "progress/v1/event.schema.json"
REPORTER_PLUGIN: Final = "recall-rebase-reporter"


class Event(StrEnum):
    """The kinds of progress line."""

    COLLECTED = "collected"
    STARTED = "started"
    FINISHED = "finished"


class Collected(msgspec.Struct, frozen=True, tag_field="event", tag=Event.COLLECTED.value):
    """The selection is known: this process will run ``rows`` rows."""

    rows: int


class Started(msgspec.Struct, frozen=True, tag_field="event", tag=Event.STARTED.value):
    """A row began."""

    id: str


class Finished(msgspec.Struct, frozen=True, tag_field="event", tag=Event.FINISHED.value):
    """A row ended, with the status its report line will carry."""

    id: str
    status: Status


ProgressEvent = Collected | Started | Finished


def event_of(line: Mapping[str, Any]) -> ProgressEvent:
    """The event one decoded line of a progress file is."""
    event: ProgressEvent = msgspec.convert(line, ProgressEvent)
    return event


def line_of(event: ProgressEvent) -> str:
    """The line an event is written as (``event`` first, as the schema shows it)."""
    return json.dumps(msgspec.to_builtins(event), ensure_ascii=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("recall-rebase").addoption(
        "--rr-progress", default=None, help="append one JSON line per collected, started and finished row here")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--rr-progress")
    if path:
        config.pluginmanager.register(ProgressWriter(config, Path(str(path))), "recall-rebase-progress")


class ProgressWriter:
    """Appends the run's events to the progress file, one flushed line each."""

    def __init__(self, config: pytest.Config, path: Path) -> None:
        self.config = config
        self.handle: IO[str] = path.open("a", encoding="utf-8")

    def write(self, event: ProgressEvent) -> None:
        self.handle.write(line_of(event) + "\n")
        self.handle.flush()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        rows = sum(1 for item in session.items if scenario_id_of(item) is not None)
        self.write(Collected(rows))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
        row = scenario_id_of(item)
        if row is not None:
            self.write(Started(row))
        result = yield
        if row is not None:
            self.write(Finished(row, self._status(row)))
        return result

    def _status(self, row: str) -> Status:
        """The row's status as the report will carry it (the reporter's row, final after teardown)."""
        reporter = self.config.pluginmanager.get_plugin(REPORTER_PLUGIN)
        results: dict[str, dict[str, Any]] = getattr(reporter, "results", {})
        return Status(results[row]["status"]) if row in results else Status.NOTRUN

    def pytest_unconfigure(self) -> None:
        self.handle.close()


class ProgressTail:
    """The complete lines one progress file gained since the last :meth:`read` (none yet: none)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.partial = b""

    def read(self) -> list[ProgressEvent]:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
        except FileNotFoundError:
            return []
        self.offset += len(chunk)
        *complete, self.partial = (self.partial + chunk).split(b"\n")
        return [event_of(json.loads(line)) for line in complete if line.strip()]
