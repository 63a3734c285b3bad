"""The one writer of a rebase operation's journal (contract §6.5, §6.8-§6.10; decision D11):
every phase of a run, the target fingerprint, and the ``Recoverable`` record of a failure, each
durable, projected into the index and followed by its crash point.

Key order is part of the bytes (D1): the record is a dict updated the way JavaScript assigns
properties, an existing key keeping its place and a new key going last.  So ``targetHash`` and
``targetSize`` land after ``updatedAt`` and ``errorCode`` after them, as the TypeScript writer
produces them, and a journal read from disk keeps its own order through every later phase.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from reference.artifacts.ids import journal_path
from reference.artifacts.journal import encode_journal
from reference.artifacts.phases import WRITTEN_PHASES, CrashPoint, Phase
from reference.lineage.chain import project_operation
from reference.primitives.clock import Clock
from reference.primitives.jsonbytes import JsonObject
from reference.primitives.platform_ops.durable import durable_replace
from reference.rebase import crashpoints

#: ``durable_replace(path, data)``: write the bytes durably over ``path`` (a test passes a recorder).
Writer = Callable[[Path, bytes], None]


class OperationJournal:
    """The journal of one run's operation: its record, whether it is on disk, whether the run
    reached ``Activated`` (the session was replaced), and the projection connection."""

    def __init__(self, clock: Clock, conn: sqlite3.Connection | None, writer: Writer = durable_replace) -> None:
        self.clock = clock
        self.conn = conn
        self.writer = writer
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

    @property
    def path(self) -> Path:
        """Where the record lives: next to its canonical source."""
        return journal_path(str(self.operation["sourceSessionFile"]), str(self.operation["id"]))

    def write(self, phase: Phase) -> None:
        """One phase (``errorCode`` stays, as upstream never removes it), durable, projected, then
        its crash point."""
        if phase not in WRITTEN_PHASES:
            raise ValueError(f"not a journal phase: {phase!r}")
        if phase is Phase.ACTIVATED:
            self.activated = True  # the host has switched: the session is replaced, whatever follows
        record = self._stamped(phase)
        self.writer(self.path, encode_journal(record))
        self.record, self.persisted = record, True
        project_operation(self.conn, self.record)
        crashpoints.reached(CrashPoint(phase))

    def _stamped(self, phase: Phase, **fields: Any) -> JsonObject:
        """The record at ``phase`` with ``fields``, then ``updatedAt`` now (assigned in that order)."""
        return {**self.operation, "phase": str(phase), **fields, "updatedAt": self.clock.now_ms()}

    def fingerprint(self, target_hash: str, target_size: int) -> None:
        """The staged target's fingerprint, made durable by the next write (``CheckpointReady``)."""
        self.record = {**self.operation, "targetHash": target_hash, "targetSize": target_size}

    def fail(self, code: str) -> dict[str, Any]:
        """The ``Recoverable`` record (phase, then ``errorCode``, then ``updatedAt``), written
        durably when it can be (else the previous durable journal stays, §6.10) and projected."""
        record = self._stamped(Phase.RECOVERABLE, errorCode=code)
        with contextlib.suppress(OSError):
            self.writer(self.path, encode_journal(record))
        project_operation(self.conn, record)
        return record
