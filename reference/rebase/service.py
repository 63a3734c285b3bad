"""The session rebase (contract §6.1-§6.11; decisions D8, D9, D11): what it is asked, the
service, one run, and what it answers.

One run: the preconditions in the contract's order, the lock on the canonical source, the
archive checks, the deterministic checkpoint, then (outside dry run) the journal phases, the
no-overwrite install of the target, activation through the host and verification before and
after.  A failure once the journal exists leaves the operation ``Recoverable``; recovery picks it
up from the source or from the target.  Nothing here writes, truncates, renames or deletes the
source, and the result never holds a path, a tool id, an argument or a message body.

:class:`RebaseService` holds the two entry layers (the runtime's §6.2 steps 1-3, the service's
gates of steps 4-9) and the projection connection, taking a :class:`RebaseRequest` (parsed
once at the command line's flags or the adapter's params); :class:`RebaseRun` assembles steps
10-26 from what its callees return (the target's checkpoint, install and activation are
:mod:`reference.rebase.target`, the host :mod:`reference.rebase.host`).  The steps hand on what
they proved as values (docs/rebase.md, "What one run reads"): the runtime layer's verified
lineage with the scans it read, step 24's prefix proof, the target as §6.11 step 4 opened it.
JSON only at the adapter and command line edges.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from reference.artifacts.ids import (
    JOURNAL_SUFFIX,
    ProjectPaths,
    RebaseSource,
    journal_path,
    operations_dir,
    require_operation_id,
)
from reference.artifacts.journal import (
    FALLBACK_CODE,
    MAX_JOURNAL_BYTES,
    RebaseResult,
    check_source_session,
    failure_code,
    journal_source_file,
    load_journal,
    new_operation,
    preview_result,
    recoverable_result,
    unavailable_result,
    verified_result,
)
from reference.lineage.chain import RebaseState, load_rebase_state
from reference.lineage.proof import prove_prefix
from reference.pi.exact.context import context_messages
from reference.pi.exact.toolexchange import ToolExchangeDiagnostics, exchange_issues
from reference.pi.model.session import scan_source
from reference.primitives.clock import Clock, SystemClock
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import get
from reference.primitives.platform_ops.durable import (
    remove_temporaries,
    stale_temporaries,
    temporaries_in,
)
from reference.primitives.platform_ops.paths import canonical_path
from reference.rebase.archive import capture_source
from reference.rebase.host import OpenedSession, RebaseHost, current_branch, holds_memory
from reference.rebase.lock import RebaseLock
from reference.rebase.operation_journal import OperationJournal
from reference.rebase.target import activate, build_target_checkpoint, existing_target, install
from reference.recall.index_schema import open_index

#: ``rebase.run``'s ``mode`` on the wire.
MODES: Final = ("run", "dry-run", "recover")


@dataclass(frozen=True)
class RebaseRequest:
    """One rebase: a new operation, a dry run, or the recovery of the operation ``recover``
    (its id checked by the run, §6.2 step 11); a recovery is never a dry run."""

    dry_run: bool = False
    recover: str | None = None

    @classmethod
    def of(cls, *, dry_run: bool = False, recover: str | None = None) -> RebaseRequest:
        """The command line's ``--dry-run`` / ``--recover ID`` (``--recover ''`` too)."""
        return cls(dry_run and recover is None, recover)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> RebaseRequest:
        """The adapter's ``mode`` (run by default) and ``operationId``."""
        mode = params.get("mode", "run")
        if not isinstance(mode, str) or mode not in MODES:
            raise ContractViolation(Code.INVALID_PARAMS, "mode must be run, dry-run or recover")
        recover = params.get("operationId") if mode == "recover" else None
        if mode == "recover" and not isinstance(recover, str):
            raise ContractViolation(Code.INVALID_PARAMS, "recover needs an operationId string")
        return cls(mode == "dry-run", recover)


@dataclass(frozen=True)
class RebaseFailure:
    """Why a run failed: its code, the one line a person is shown (never in the result), and the
    operation it concerns when there is one (``operation-exists-use-recover`` names it)."""

    code: str
    message: str
    operation_id: str | None = None


@dataclass(frozen=True)
class RebaseOutcome:
    """The ``RebaseResult`` and, for a failed run, what failed."""

    result: RebaseResult
    failure: RebaseFailure | None = None


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
            run = RebaseRun(self, request, conn, lineage)
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
            with suppress(ContractViolation, OSError, sqlite3.Error):
                conn = open_index(self.index_path)
        try:
            yield conn
        finally:
            if conn is not None:
                conn.close()


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
    """One rebase run; a failure anywhere knows what exists (the journal, the lock)."""

    def __init__(self, service: RebaseService, request: RebaseRequest, conn: sqlite3.Connection | None,
                 lineage: RebaseState | None = None) -> None:
        """``service``: its host, clock and id source; ``lineage``: what the runtime layer proved
        before the run (§6.2 steps 1-3), the verified lineage of the host's current branch (step
        10 takes its first source) and its scans."""
        self.host = service.host
        self.request = request
        self.new_session_id = service.new_session_id
        self.project = canonical_path(self.host.project_path)
        self.journal = OperationJournal(service.clock, conn)
        self.lock: RebaseLock | None = None
        self.diagnostics: ToolExchangeDiagnostics | None = None
        self.lineage = lineage

    def close(self) -> None:
        if self.lock is not None:
            self.lock.release()

    def execute(self) -> RebaseOutcome:
        try:
            return RebaseOutcome(self._steps())
        except Exception as exc:  # every failure becomes a code (§6.10)
            code = failure_code(exc.code) if isinstance(exc, ContractViolation) else FALLBACK_CODE
            record = self.journal.record
            failure = RebaseFailure(code, failure_message(exc), record["id"] if record is not None else None)
            return RebaseOutcome(self._failed(code), failure)

    def _failed(self, code: str) -> RebaseResult:
        journal = self.journal
        if (journal.record is not None and journal.persisted and not self.request.dry_run and self.lock is not None
                and self.lock.held and code not in CHECKPOINT_CODES):
            record = journal.fail(code)
            return recoverable_result(str(record["id"]), code, session_replaced=journal.activated,
                                      tool_exchange=self.diagnostics)
        return unavailable_result(code, tool_exchange=self.diagnostics)

    def _source_file(self) -> str:
        """Steps 10-13: the canonical source, and for recovery the checked journal."""
        current = self.host.session_file
        assert current is not None
        source_file = canonical_path(current)
        recover = self.request.recover
        if recover is None:
            return source_file
        state = self.lineage  # step 2 verified this very branch
        if state is None:
            state = load_rebase_state(current, current_branch(self.host), self.host.project_path)
        if state.sources:
            source_file = state.sources[0].session_file
        require_operation_id(recover)
        path = journal_path(source_file, recover)
        data: bytes | None
        try:
            data = path.read_bytes() if path.is_file() else None
        except OSError:
            data = None
        self.journal.adopt(load_journal(data, requested_id=recover, source_file=source_file,
                                        project=ProjectPaths(self.host.project_path)), persisted=True)
        return source_file

    def _steps(self) -> RebaseResult:
        source_file = self._source_file()
        self.lock = RebaseLock(source_file)
        self.lock.acquire()  # rebase-busy
        operation = self.journal.record
        leaf = operation["sourceLeafId"] if operation is not None else self.host.leaf
        scans = tuple(self.lineage.scans) if self.lineage is not None else ()
        archive = capture_source(source_file, self.host.project_path, leaf, scans)  # steps 15-21
        scans = (archive.scan, *scans)
        own = load_rebase_state(source_file, archive.branch_subset, self.host.project_path, scans=scans)
        if own.warnings:  # step 22
            raise ContractViolation(Code.LINEAGE_INTEGRITY_UNAVAILABLE, "the source's own lineage does not verify")
        active = exchange_issues(context_messages(archive.context))  # analyse(), the branch streamed
        diagnostics = ToolExchangeDiagnostics(len(active), archive.historical_issue_count(active))
        self.diagnostics = diagnostics
        if diagnostics.active_issue_count:  # step 23
            raise ContractViolation(Code.PENDING_OR_ORPHAN_TOOL_EXCHANGE, "a tool call or result in context has no partner")
        source_hash = operation["sourceHash"] if operation is not None else archive.scan.sha256
        source_size = operation["sourceSize"] if operation is not None else archive.scan.size
        source = prove_prefix(source_file, source_size, source_hash)  # step 24
        header_id = archive.session_id
        if operation is not None:
            check_source_session(operation, header_id)  # step 25
        else:
            operation = new_operation(
                RebaseSource(header_id, archive.leaf_id, source_size, source_hash), project_path=self.project,
                source_session_file=source_file, target_session_id=self.new_session_id(),
                now_ms=self.journal.clock.now_ms())
            self.journal.adopt(operation, persisted=False)  # in memory until its first phase write
            if journal_path(source_file, operation["id"]).exists():  # step 26
                raise ContractViolation(Code.OPERATION_EXISTS_USE_RECOVER,
                                        f"operation {operation['id']} exists; use --recover {operation['id']}")
        remove_journal_temporaries(source_file, operation["id"])
        target_file = operation["targetSessionFile"]
        opened: OpenedSession | None = None
        if os.path.lexists(target_file):
            existing = existing_target(self.journal, self.host.project_path, header_id, archive.leaf_id,
                                       source=source, scans=scans)
            checkpoint, opened = existing.checkpoint, existing.opened
        else:
            checkpoint = build_target_checkpoint(operation, self.host, archive, own, source)
        result = preview_result(operation["id"], checkpoint, source_entries=archive.record_count - 1,
                                source_bytes=source_size, tool_exchange=self.diagnostics)
        if self.request.dry_run:
            return result
        if not os.path.lexists(target_file):
            install(self.journal, checkpoint, self.project)
        remove_temporaries(stale_temporaries(Path(target_file)))  # a crash inside an earlier install left them
        activate(self.journal, self.host, source, opened=opened, scans=scans)
        return verified_result(result)


def remove_journal_temporaries(source_file: str, operation: str) -> int:
    """Journal temporaries that a run of this source killed inside a write left behind (issue 12).

    Called with the source's lock held, so no live process is writing one of this source's
    journals. A temporary that names this source is ours; so is one that names no source (torn, or
    empty when the kill came between its creation and its first byte) whose name is this run's own
    operation's journal, since that id is derived from this source's header, leaf and bytes (issue
    28). One that names another source, or none under another operation's name, is left alone:
    another source's run may be writing it right now."""
    own_journal = journal_path(source_file, operation).name
    own = []
    for temporary, name in temporaries_in(operations_dir(source_file)):
        if not name.endswith(JOURNAL_SUFFIX):
            continue
        try:
            with open(temporary, "rb") as handle:
                named = journal_source_file(handle.read(MAX_JOURNAL_BYTES))
        except OSError:
            continue
        if (named is not None and canonical_path(named) == source_file) or (named is None and name == own_journal):
            own.append(temporary)
    return remove_temporaries(own)
