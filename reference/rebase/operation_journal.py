"""The one writer of a rebase operation's journal (contract §6.5, §6.8-§6.10; decision D11):
every phase of a run, the target fingerprint, and the ``Recoverable`` record of a failure, each
durable, projected into the index and followed by its crash point.

The record keeps JavaScript's key order (``reference.artifacts.journal``, D1), so the bytes on
disk are the ones the upstream writer produces.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Mapping
from typing import Any

from reference.artifacts.journal import with_failure, with_target_fingerprint, write_journal, write_phase
from reference.artifacts.phases import CrashPoint, Phase
from reference.lineage.chain import project_operation
from reference.primitives.clock import Clock
from reference.primitives.platform_ops.durable import durable_replace
from reference.rebase import crashpoints


class OperationJournal:
    """The journal of one run's operation: its record, whether it is on disk, whether the run
    reached ``Activated`` (the session was replaced), and the projection connection."""

    def __init__(self, clock: Clock, conn: sqlite3.Connection | None) -> None:
        self.clock = clock
        self.conn = conn
        self.record: dict[str, Any] | None = None
        self.persisted = False  # a journal exists for this operation
        self.activated = False

    def adopt(self, record: Mapping[str, Any], *, persisted: bool) -> None:
        """The operation of this run: loaded from disk (recovery) or new, not yet written."""
        self.record = dict(record)
        self.persisted = persisted

    @property
    def operation(self) -> dict[str, Any]:
        assert self.record is not None, "no operation yet"
        return self.record

    def write(self, phase: Phase) -> None:
        """One phase, durable, projected, then its crash point."""
        if phase is Phase.ACTIVATED:
            self.activated = True  # the host has switched: the session is replaced, whatever follows
        self.record = write_phase(self.operation, phase, self.clock.now_ms(), durable_replace)
        self.persisted = True
        project_operation(self.conn, self.record)
        crashpoints.reached(CrashPoint(phase))

    def fingerprint(self, target_hash: str, target_size: int) -> None:
        """The staged target's fingerprint, made durable by the next write (``CheckpointReady``)."""
        self.record = with_target_fingerprint(self.operation, target_hash, target_size)

    def fail(self, code: str) -> dict[str, Any]:
        """The ``Recoverable`` record, written durably when it can be (else the previous durable
        journal stays, §6.10) and projected."""
        record = with_failure(self.operation, code, self.clock.now_ms())
        with contextlib.suppress(OSError):
            write_journal(record, durable_replace)
        project_operation(self.conn, record)
        return record
