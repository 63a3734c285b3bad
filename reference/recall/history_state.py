"""One host process's history: the host's facts, the index, the references and the scopes the
three tools share (decisions D9, D10).  The tools (``recall_tool``, ``read_tool``,
``status_tool``) take this value; ``service.HistoryService`` is it with the tools' front door.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from reference.primitives.clock import Clock, SystemClock
from reference.primitives.errors import ContractViolation
from reference.recall.host_facts import HistoryHost
from reference.recall.index_claim import IndexNotOurs
from reference.recall.index_repair import open_repaired
from reference.recall.refs import RefTable
from reference.recall.scope import ScopeResolver


class RuntimeUnavailable(Exception):
    """The index cannot be opened: ``runtime-unavailable``."""


class HistoryState:
    """The host facts, the index path, the clock, the live references and the remembered scopes."""

    def __init__(self, host: HistoryHost, *, index_path: str, clock: Clock | None = None) -> None:
        self.host = host
        self.index_path = index_path
        self.clock = clock or SystemClock()
        self.refs = RefTable(self.clock)
        self.scopes = ScopeResolver()
        #: One warning line per corrupt index this service set aside and rebuilt (D15).
        self.repairs: list[str] = []

    @property
    def history_config(self) -> Mapping[str, Any]:
        section: Mapping[str, Any] = self.host.config["historyTools"]
        return section

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The index, opened for one tool call; the read snapshot of a scope ends with it."""
        try:
            conn = open_repaired(self.index_path, self.repairs)
        except IndexNotOurs:
            raise  # its own code, never runtime-unavailable (docs/index.md I14)
        except (OSError, sqlite3.Error, ContractViolation) as exc:
            raise RuntimeUnavailable(str(exc)) from None
        try:
            yield conn
        finally:
            if conn.in_transaction:  # the read snapshot of ScopeResolver.resolve
                conn.execute("ROLLBACK")
            conn.close()
