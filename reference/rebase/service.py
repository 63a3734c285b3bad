"""The session rebase orchestrator (contract §6.2-§6.11; decisions D8, D9, D11).

One run: the preconditions in the contract's order, the lock on the canonical source, the
archive checks, the deterministic checkpoint, then (outside dry run) the journal phases, the
no-overwrite install of the target, activation through the host and verification before and
after.  A failure once the journal exists leaves the operation ``Recoverable``; recovery picks it
up from the source or from the target.  Nothing here writes, truncates, renames or deletes the
source, and the result never holds a path, a tool id, an argument or a message body.

This module holds the two entry layers (the runtime's §6.2 steps 1-3, the service's gates of
steps 4-9) and the projection connection; the run itself is :mod:`reference.rebase.run`, the
target's checkpoint, install and activation :mod:`reference.rebase.target`, the host
:mod:`reference.rebase.host`.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from reference.artifacts.journal import unavailable_result
from reference.lineage.chain import load_rebase_state
from reference.pi.model.session import scan_source
from reference.primitives.clock import Clock, SystemClock
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import get
from reference.rebase.host import RebaseHost, current_branch, holds_memory
from reference.rebase.outcome import RebaseOutcome
from reference.rebase.request import RebaseRequest
from reference.rebase.run import RebaseRun
from reference.recall.index_schema import open_index


class RebaseService:
    """One process's rebase: the in-process ``active`` flag and the optional projection index."""

    def __init__(
        self,
        host: RebaseHost,
        *,
        clock: Clock | None = None,
        index_path: str | None = None,
        new_session_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self.host = host
        self.clock: Clock = clock or SystemClock()
        self.index_path = index_path
        self.new_session_id = new_session_id
        self.active = False

    def rebase(self, request: RebaseRequest, *, runtime: bool = True) -> RebaseOutcome:
        """§6.2 steps 1-3 (what the runtime checks before the service runs; ``runtime=False``
        calls the service directly, as the adapter's ``layer: "service"``), then the service's
        gates (steps 4-9), steps 10-26 and §6.6-§6.11.  The result, and for a failed run what
        failed.  The service refused by a gate opens no index."""
        host = self.host
        refused = (None if host.runtime_available else Code.RUNTIME_UNAVAILABLE) if runtime else self._gates()
        if refused is not None:
            return RebaseOutcome(unavailable_result(refused))
        with self._projection() as conn:  # one connection for the runtime check and the run
            lineage = None
            if runtime:
                try:
                    scan = scan_source(host.session_file) if host.session_file and os.path.isfile(host.session_file) else None
                    state = load_rebase_state(host.session_file, current_branch(host, scan), host.project_path,
                                              conn=conn, scans=() if scan is None else (scan,))
                except (ContractViolation, OSError, ValueError, sqlite3.Error):
                    return RebaseOutcome(unavailable_result(Code.REBASE_STATE_UNAVAILABLE))
                if state.warnings:
                    refused = Code.LINEAGE_INTEGRITY_UNAVAILABLE
                elif not host.memory_bridge and scan is not None and holds_memory(scan.custom_entries()):
                    refused = Code.MEMORY_STATE_REQUIRED
                else:
                    refused = self._gates()
                if refused is not None:
                    return RebaseOutcome(unavailable_result(refused))
                lineage = state
            run = RebaseRun(host, request, clock=self.clock, new_session_id=self.new_session_id, conn=conn,
                            lineage=lineage)
            self.active = True
            try:
                return run.execute()
            finally:
                self.active = False
                run.close()

    def before_compact(self, *, signal_aborted: bool) -> dict[str, Any]:
        """Pi's ``session_before_compact`` (contract §6.16, §6.12's in-process guard): cancel while
        a rebase is active in this process, or when the compaction's abort signal has already
        fired; otherwise no answer (``{}``), and Pi compacts."""
        if self.active or signal_aborted:
            return {"cancel": True}
        return {}

    def _gates(self) -> str | None:
        """§6.2 steps 4-9: the first code that refuses, or None."""
        host, config = self.host, self.host.config
        if not get(config, "enabled") or not get(get(config, "sessionRebase"), "enabled"):
            return Code.DISABLED
        if not get(get(config, "historyTools"), "enabled"):
            return Code.HISTORY_TOOLS_REQUIRED
        if not host.project_trusted:
            return Code.PROJECT_UNTRUSTED
        if self.active or host.compaction_active:
            return Code.COMPACTION_OR_REBASE_BUSY
        if self.active or not host.idle or host.pending_messages or host.compaction_active:
            return Code.SESSION_BUSY
        if not host.session_file or not os.path.isfile(host.session_file):
            return Code.EPHEMERAL_SESSION
        return None

    @contextmanager
    def _projection(self) -> Iterator[sqlite3.Connection | None]:
        """The projection index when one is configured and opens; errors never block a rebase."""
        conn = None
        if self.index_path:
            try:
                conn = open_index(self.index_path)
            except (ContractViolation, OSError, sqlite3.Error):
                conn = None
        try:
            yield conn
        finally:
            if conn is not None:
                conn.close()
