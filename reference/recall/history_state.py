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
from reference.privacy.entry import EntryFindings
from reference.recall.catchup_state import IndexState
from reference.recall.host_facts import HistoryHost
from reference.recall.index_claim import IndexNotOurs
from reference.recall.index_repair import open_repaired
from reference.recall.model_facts import provider_in_index, session_facts
from reference.recall.progress import CatchUpListener
from reference.recall.refs import RefTable
from reference.recall.scope import ScopeResolver


class RuntimeUnavailable(Exception):
    """The index cannot be opened: ``runtime-unavailable``."""


class HistoryState:
    """The host facts, the index path, the clock, the live references and the remembered scopes."""

    def __init__(self, host: HistoryHost, *, index_path: str, clock: Clock | None = None,
                 progress: CatchUpListener | None = None) -> None:
        self.host = host
        self.progress = progress
        self.index_path = index_path
        self.clock = clock or SystemClock()
        self.refs = RefTable(self.clock)
        self.scopes = ScopeResolver()
        self.findings = EntryFindings()  # the privacy findings of the entries its recalls and reads touch
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

    def settle_provider(self, conn: sqlite3.Connection | None = None, state: IndexState | None = None) -> None:
        """Find Pi's provider at the leaf when the host left it to be found: from ``conn`` when
        its catch-up of the current session has just answered ``state``, else from the index at
        :attr:`index_path` when it proves the file, else by parsing the session."""
        host = self.host
        if not host.provider_at_leaf:
            return
        if conn is not None and state is not None and state.session_id == host.session_id:
            proved, provider = provider_in_index(conn, state, host.leaf)
            if proved:
                host.provider, host.provider_at_leaf = provider, False
                return
        session_id, provider = session_facts(host.session_file, host.leaf, self.index_path)
        host.session_id, host.provider, host.provider_at_leaf = session_id, provider, False
