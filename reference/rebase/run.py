"""One rebase run (contract §6.2 steps 10-26, §6.6-§6.11): the source, the lock, the archive
checks, the target's checkpoint, then the install and activation; every failure becomes a code
(§6.10), and once the journal exists, a ``Recoverable`` operation."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from reference.artifacts.ids import JOURNAL_SUFFIX, journal_path, operations_dir, require_operation_id
from reference.artifacts.journal import (
    FALLBACK_CODE,
    MAX_JOURNAL_BYTES,
    check_source_session,
    failure_code,
    journal_source_file,
    load_journal,
    new_operation,
    recoverable_result,
    success_result,
    unavailable_result,
    verified_result,
    with_failure,
    write_journal,
    write_phase,
)
from reference.artifacts.phases import CrashPoint, Phase
from reference.lineage.chain import load_rebase_state, project_operation
from reference.pi.exact.context import context_messages
from reference.pi.exact.toolexchange import ToolExchangeDiagnostics, exchange_issues
from reference.pi.prefix import check_prefix
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops import (
    canonical_path,
    durable_replace,
    remove_stale_temporaries,
    remove_temporaries,
    temporaries_in,
)
from reference.rebase import crashpoints
from reference.rebase.activation import activate, install
from reference.rebase.archive import capture_source
from reference.rebase.lock import RebaseLock
from reference.rebase.session_host import current_branch
from reference.rebase.target_checkpoint import build_target_checkpoint, existing_target

if TYPE_CHECKING:
    from reference.rebase.service import RebaseService


#: Codes found while building the checkpoint: never a Recoverable journal (D8).
CHECKPOINT_CODES: Final = frozenset({Code.CHECKPOINT_EMPTY, Code.CHECKPOINT_BUDGET, Code.CHECKPOINT_MEMORY_BUDGET})


def failure_message(exc: Exception) -> str:
    """The one line a person is shown for a failed run (never in the result): the refusal's own
    message, or the operating system's or SQLite's words for anything else."""
    if isinstance(exc, ContractViolation):
        return exc.message
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    return f"{type(exc).__name__}: {exc}"


class RebaseRun:
    """The state of one rebase run, so a failure anywhere knows what exists."""

    def __init__(self, service: RebaseService, *, dry_run: bool, recover: str | None,
                 conn: sqlite3.Connection | None) -> None:
        self.service = service
        self.host = service.host
        self.dry_run = dry_run
        self.recover = recover
        self.project = canonical_path(self.host.project_path)
        self.operation: dict[str, Any] | None = None
        self.persisted = False  # a journal exists for this operation
        self.lock: RebaseLock | None = None
        self.activated = False
        self.diagnostics: dict[str, int] | None = None
        self.conn = conn  # the projection index, owned by the service call

    def close(self) -> None:
        if self.lock is not None:
            self.lock.release()

    def now(self) -> int:
        return self.service.clock.now_ms()

    def execute(self) -> dict[str, Any]:
        try:
            return self._steps()
        except Exception as exc:  # every failure becomes a code (§6.10)
            code = failure_code(exc.code) if isinstance(exc, ContractViolation) else FALLBACK_CODE
            self.service.last_failure = failure_message(exc)
            return self._failed(code)

    def _failed(self, code: str) -> dict[str, Any]:
        operation = self.operation
        if (operation is not None and self.persisted and not self.dry_run and self.lock is not None
                and self.lock.held and code not in CHECKPOINT_CODES):
            record = with_failure(operation, code, self.now())
            with contextlib.suppress(OSError):  # the previous durable journal stays
                write_journal(record, durable_replace)
            project_operation(self.conn, record)
            return recoverable_result(record["id"], code, session_replaced=self.activated,
                                      tool_exchange=self.diagnostics)
        return unavailable_result(code, tool_exchange=self.diagnostics)

    def write_phase(self, phase: Phase) -> None:
        assert self.operation is not None
        self.operation = write_phase(self.operation, phase, self.now(), durable_replace)
        self.persisted = True
        project_operation(self.conn, self.operation)
        crashpoints.reached(CrashPoint(phase))

    def _source_file(self) -> str:
        """Steps 10-13: the canonical source, and for recovery the checked journal."""
        current = self.host.session_file
        assert current is not None
        source_file = canonical_path(current)
        if self.recover is None:
            return source_file
        state = load_rebase_state(current, current_branch(self.host), self.host.project_path)
        if state.sources:
            source_file = state.sources[0].session_file
        require_operation_id(self.recover)
        path = journal_path(source_file, self.recover)
        data: bytes | None
        try:
            data = path.read_bytes() if path.is_file() else None
        except OSError:
            data = None
        self.operation = load_journal(data, requested_id=self.recover, source_file=source_file,
                                      project_path=self.host.project_path)
        self.persisted = True
        return source_file

    def _steps(self) -> dict[str, Any]:
        source_file = self._source_file()
        self.lock = RebaseLock(source_file)
        self.lock.acquire()  # rebase-busy
        remove_journal_temporaries(source_file)
        operation = self.operation
        leaf = operation["sourceLeafId"] if operation is not None else self.host.leaf
        archive = capture_source(source_file, self.host.project_path, leaf)  # steps 15-21
        own = load_rebase_state(source_file, archive.branch_subset, self.host.project_path)
        if own.warnings:  # step 22
            raise ContractViolation(Code.LINEAGE_INTEGRITY_UNAVAILABLE, "the source's own lineage does not verify")
        active = exchange_issues(context_messages(archive.context))  # analyse(), the branch streamed
        diagnostics = ToolExchangeDiagnostics(len(active), archive.historical_issue_count(active))
        self.diagnostics = diagnostics.to_json()
        if diagnostics.active_issue_count:  # step 23
            raise ContractViolation(Code.PENDING_OR_ORPHAN_TOOL_EXCHANGE, "a tool call or result in context has no partner")
        source_hash = operation["sourceHash"] if operation is not None else archive.sha256
        source_size = operation["sourceSize"] if operation is not None else archive.size
        check_prefix(source_file, source_size, source_hash)  # step 24
        header_id = archive.session_id
        if operation is not None:
            check_source_session(operation, header_id)  # step 25
        else:
            operation = new_operation(
                project_path=self.project, source_session_id=header_id, source_session_file=source_file,
                source_leaf_id=archive.leaf_id, source_size=source_size, source_hash=source_hash,
                target_session_id=self.service.new_session_id(), now_ms=self.now())
            if journal_path(source_file, operation["id"]).exists():  # step 26
                raise ContractViolation(Code.OPERATION_EXISTS_USE_RECOVER,
                                        f"operation {operation['id']} exists; use --recover {operation['id']}")
        self.operation = operation
        target_file = operation["targetSessionFile"]
        if os.path.lexists(target_file):
            checkpoint = existing_target(self, header_id, archive.leaf_id, source_hash)
        else:
            checkpoint = build_target_checkpoint(self, archive, own, source_size, source_hash)
        result = success_result(dry_run=self.dry_run, operation_id=operation["id"], checkpoint=checkpoint,
                                source_entries=archive.record_count - 1, source_bytes=source_size,
                                tool_exchange=self.diagnostics)
        if self.dry_run:
            return result
        if not os.path.lexists(target_file):
            install(self, checkpoint)
        remove_stale_temporaries(Path(target_file))  # a crash inside an earlier install left them
        activate(self, source_file, source_size, source_hash)
        return verified_result(result)


def remove_journal_temporaries(source_file: str) -> int:
    """Journal temporaries that a run of this source killed inside a write left behind (issue 12).

    Called with the source's lock held, so no live process is writing one of this source's
    journals; a temporary that names another source, or none (torn before that field), is
    left alone, since another source's run may be writing it right now."""
    own = []
    for temporary, name in temporaries_in(operations_dir(source_file)):
        if not name.endswith(JOURNAL_SUFFIX):
            continue
        try:
            with open(temporary, "rb") as handle:
                named = journal_source_file(handle.read(MAX_JOURNAL_BYTES))
        except OSError:
            continue
        if named is not None and canonical_path(named) == source_file:
            own.append(temporary)
    return remove_temporaries(own)
