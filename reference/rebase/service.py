"""The session rebase orchestrator (contract §6.2-§6.11; decisions D8, D9, D11).

One run: the preconditions in the contract's order, the lock on the canonical source, the
archive checks, the deterministic checkpoint, then (outside dry run) the journal phases, the
no-overwrite install of the target, activation through the host and verification before and
after.  A failure once the journal exists leaves the operation ``Recoverable``; recovery picks it
up from the source or from the target.  Nothing here writes, truncates, renames or deletes the
source, and the result never holds a path, a tool id, an argument or a message body.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from reference.artifacts.checkpoint import build_checkpoint
from reference.artifacts.ids import checkpoint_id, journal_path, require_operation_id
from reference.artifacts.journal import (
    FALLBACK_CODE,
    check_source_session,
    failure_code,
    load_journal,
    new_operation,
    recoverable_result,
    success_result,
    unavailable_result,
    verified_result,
    with_failure,
    with_target_fingerprint,
    write_journal,
    write_phase,
)
from reference.artifacts.memory import MEMORY_TYPE, PIN_TYPE, overlay_inherited, snapshot_memory
from reference.artifacts.phases import CrashPoint, Phase
from reference.lineage.chain import RebaseState, load_rebase_state, project_operation
from reference.pi.context import context_messages
from reference.pi.header import is_current_version
from reference.pi.prefix import check_prefix
from reference.pi.reader import read_header_line
from reference.pi.scan import branch_customs, scan_for_run
from reference.pi.scanscope import current_scope, hand_over, scan_scope, shared_prefix_matches
from reference.pi.session import decode_path, load_session
from reference.pi.toolexchange import ToolExchangeDiagnostics, exchange_issues
from reference.primitives.clock import Clock, SystemClock
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import get
from reference.primitives.paths import canonical_path
from reference.rebase import crashpoints
from reference.rebase.archive import SourceArchive, capture_source
from reference.rebase.durable import durable_replace, install_no_overwrite, remove_stale_temporaries
from reference.rebase.lock import RebaseLock
from reference.rebase.target import stage_target
from reference.recall.index_schema import open_index

#: Codes found while building the checkpoint: never a Recoverable journal (D8).
CHECKPOINT_CODES: Final = frozenset({"checkpoint-empty", "checkpoint-budget", "checkpoint-memory-budget"})
#: What a host may do when asked to switch sessions (D9); the adapter sets the others.
ACTIVATIONS: Final = ("switch", "cancel", "foreign-session")


@dataclass(frozen=True)
class OpenedSession:
    """A session context opened from disk: its header id, file and active branch entries."""

    session_id: Any
    session_file: str
    branch: list[Any]


def open_from_disk(session_file: str) -> OpenedSession:
    """What Pi's ``SessionManager.open`` gives: the header id and the branch at the default leaf
    (the last entry in file order).  The caller has checked the header version first."""
    session = load_session(session_file)
    tree = session.tree()
    records = tree.branch(tree.default_leaf_id).path
    return OpenedSession(session.header.get("id"), session_file, decode_path(session, records))


@dataclass
class RebaseHost:
    """The runtime facts a rebase needs from Pi (D9), and its session switch."""

    session_file: str | None
    project_path: str
    project_trusted: bool
    config: Mapping[str, Any]
    leaf: Any = "default"  # Pi's active leaf; "default" = the last entry in file order
    session_id: str | None = None  # Pi's current session id; None: the header's
    idle: bool = True
    pending_messages: bool = False
    compaction_active: bool = False
    memory_bridge: bool = True
    runtime_available: bool = True
    activation: str = "switch"
    notifications: list[tuple[str, str]] = field(default_factory=list)

    def current_session_id(self) -> Any:
        if self.session_id is not None:
            return self.session_id
        try:
            return read_header_line(self.session_file).get("id") if self.session_file else None
        except (OSError, ValueError):
            return None

    def switch_session(self, target_file: str) -> OpenedSession | None:
        """Pi's ``switchSession``: the fresh context opened from the target on disk, after which
        the host's current session is the target.  None when the switch was cancelled."""
        if self.activation == "cancel":
            return None
        fresh = open_from_disk(target_file)
        if self.activation == "foreign-session":
            fresh = OpenedSession(f"{fresh.session_id}-other", fresh.session_file, fresh.branch)
        self.session_file, self.session_id, self.leaf = target_file, None, "default"
        return fresh

    def notify(self, level: str, message: str) -> None:
        self.notifications.append((level, message))


def _current_branch(host: RebaseHost) -> list[Any]:
    """What lineage verification reads of the host's active branch (nothing without a file)."""
    if not host.session_file or not os.path.isfile(host.session_file):
        return []
    return branch_customs(host.session_file, host.leaf)


def _holds_memory(customs: list[Any]) -> bool:
    """Whether any of these ``custom`` entries is a pin or memory mutation."""
    return any(get(value, "customType") in (PIN_TYPE, MEMORY_TYPE) for value in customs)


def _memory_entries(archive: SourceArchive) -> list[Any]:
    """Every entry when the source holds a pin or memory mutation (their replay needs the entry
    times), else nothing: a source without them costs no second decode."""
    if not _holds_memory(archive.custom_entries()):
        return []
    return archive.all_entries()


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

    # ------------------------------------------------------------------ the runtime layer

    def rebase_session(self, *, dry_run: bool = False, recover: str | None = None) -> dict[str, Any]:
        """§6.2 steps 1-3 (what the runtime checks before the service runs), then :meth:`run`."""
        host = self.host
        if not host.runtime_available:
            return unavailable_result("runtime-unavailable")
        with scan_scope():  # the reads of this call are shared by its steps, then dropped
            return self._rebase_session(dry_run=dry_run, recover=recover)

    def _rebase_session(self, *, dry_run: bool, recover: str | None) -> dict[str, Any]:
        host = self.host
        with self._projection() as conn:  # one connection for the runtime check and the run
            try:
                state = load_rebase_state(host.session_file, _current_branch(host), host.project_path, conn=conn)
            except (ContractViolation, OSError, ValueError, sqlite3.Error):
                return unavailable_result("rebase-state-unavailable")
            if state.warnings:
                return unavailable_result("lineage-integrity-unavailable")
            if (not host.memory_bridge and host.session_file
                    and _holds_memory(scan_for_run(host.session_file).custom_entries())):
                return unavailable_result("memory-state-required")
            return self._service(dry_run=dry_run, recover=recover, conn=conn)

    # ------------------------------------------------------------------ the service

    def run(self, *, dry_run: bool = False, recover: str | None = None) -> dict[str, Any]:
        """§6.2 steps 4-26, then §6.6-§6.11.  Returns the ``RebaseResult``."""
        refused = self._gates()
        if refused is not None:
            return unavailable_result(refused)
        with self._projection() as conn:
            return self._execute(dry_run=dry_run, recover=recover, conn=conn)

    def _service(self, *, dry_run: bool, recover: str | None, conn: sqlite3.Connection | None) -> dict[str, Any]:
        """:meth:`run` on the runtime layer's projection connection."""
        refused = self._gates()
        if refused is not None:
            return unavailable_result(refused)
        return self._execute(dry_run=dry_run, recover=recover, conn=conn)

    def _gates(self) -> str | None:
        """§6.2 steps 4-9: the first code that refuses, or None."""
        host, config = self.host, self.host.config
        if not get(config, "enabled") or not get(get(config, "sessionRebase"), "enabled"):
            return "disabled"
        if not get(get(config, "historyTools"), "enabled"):
            return "history-tools-required"
        if not host.project_trusted:
            return "project-untrusted"
        if self.active or host.compaction_active:
            return "compaction-or-rebase-busy"
        if self.active or not host.idle or host.pending_messages or host.compaction_active:
            return "session-busy"
        if not host.session_file or not os.path.isfile(host.session_file):
            return "ephemeral-session"
        return None

    def _execute(self, *, dry_run: bool, recover: str | None, conn: sqlite3.Connection | None) -> dict[str, Any]:
        run = _Run(self, dry_run=dry_run, recover=recover, conn=conn)
        self.active = True
        try:
            with scan_scope():
                return run.execute()
        finally:
            self.active = False
            run.close()

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


class _Run:
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

    # ------------------------------------------------------------------ the outcome

    def execute(self) -> dict[str, Any]:
        try:
            return self._steps()
        except Exception as exc:  # every failure becomes a code (§6.10)
            code = failure_code(exc.code) if isinstance(exc, ContractViolation) else FALLBACK_CODE
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

    def _phase(self, phase: Phase) -> None:
        assert self.operation is not None
        self.operation = write_phase(self.operation, phase, self.now(), durable_replace)
        self.persisted = True
        project_operation(self.conn, self.operation)
        crashpoints.reached(CrashPoint(phase))

    # ------------------------------------------------------------------ the steps

    def _source_file(self) -> str:
        """Steps 10-13: the canonical source, and for recovery the checked journal."""
        current = self.host.session_file
        assert current is not None
        source_file = canonical_path(current)
        if self.recover is None:
            return source_file
        state = load_rebase_state(current, _current_branch(self.host), self.host.project_path)
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
        operation = self.operation
        leaf = operation["sourceLeafId"] if operation is not None else self.host.leaf
        archive = capture_source(source_file, self.host.project_path, leaf)  # steps 15-21
        own = load_rebase_state(source_file, archive.branch_subset, self.host.project_path)
        if own.warnings:  # step 22
            raise ContractViolation("lineage-integrity-unavailable", "the source's own lineage does not verify")
        active = exchange_issues(context_messages(archive.context))  # analyse(), the branch streamed
        diagnostics = ToolExchangeDiagnostics(len(active), len(archive.branch_issues() - active))
        self.diagnostics = diagnostics.to_json()
        if diagnostics.active_issue_count:  # step 23
            raise ContractViolation("pending-or-orphan-tool-exchange", "a tool call or result in context has no partner")
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
                raise ContractViolation("operation-exists-use-recover",
                                        f"operation {operation['id']} exists; use --recover {operation['id']}")
        self.operation = operation
        target_file = operation["targetSessionFile"]
        if os.path.lexists(target_file):
            checkpoint = self._existing_target(header_id, archive.leaf_id, source_hash)
        else:
            checkpoint = self._build_checkpoint(archive, own, source_size, source_hash)
        result = success_result(dry_run=self.dry_run, operation_id=operation["id"], checkpoint=checkpoint,
                                source_entries=archive.record_count - 1, source_bytes=source_size,
                                tool_exchange=self.diagnostics)
        if self.dry_run:
            return result
        if not os.path.lexists(target_file):
            self._install(checkpoint)
        remove_stale_temporaries(Path(target_file))  # a crash inside an earlier install left them
        self._activate(source_file, source_size, source_hash)
        return verified_result(result)

    def _host_leaf(self, archive: SourceArchive) -> Any:
        """Pi's current leaf, resolving "default" (the last entry in file order)."""
        leaf, current = self.host.leaf, self.host.session_file
        if leaf != "default" or not current:
            return leaf
        if canonical_path(current) == archive.path:
            return archive.default_leaf_id
        return load_session(current).tree().default_leaf_id

    def _existing_target(self, header_id: str, leaf: str, source_hash: str) -> dict[str, Any]:
        """§6.11 step 4: reuse the installed target's checkpoint; never a second target."""
        assert self.operation is not None
        operation = self.operation
        target_file = operation["targetSessionFile"]
        check_prefix(target_file, operation.get("targetSize"), operation.get("targetHash"), "target-integrity")
        try:
            version = read_header_line(target_file).get("version")
        except (OSError, ValueError):
            version = None
        if not is_current_version(version):
            raise ContractViolation("target-integrity", "the target is not a version 3 session")
        state = self._verify_target(open_from_disk(target_file).branch)
        if get(state.checkpoint, "id") != checkpoint_id(header_id, leaf, source_hash):
            raise ContractViolation("target-integrity", "the target's checkpoint is not this operation's")
        assert state.checkpoint is not None
        return state.checkpoint

    def _build_checkpoint(self, archive: SourceArchive, own: RebaseState, size: int, source_hash: str) -> dict[str, Any]:
        """§6.6: only when no target exists; the source must not have moved since the journal."""
        assert self.operation is not None
        operation = self.operation
        if (operation["sourceSize"] != archive.size or operation["sourceLeafId"] != self._host_leaf(archive)
                or self.host.current_session_id() != archive.session_id):
            raise ContractViolation("source-moved-before-checkpoint", "the source moved since the operation began")
        inherited = own.checkpoint or {}
        snapshot = snapshot_memory(
            _memory_entries(archive), session_id=archive.session_id, session_file=archive.path,
            branch_ids=archive.branch_ids(),
            inherited_pins=overlay_inherited(get(inherited, "pins") or (), archive.branch_subset, pins=True),
            inherited_memories=overlay_inherited(get(inherited, "memories") or (), archive.branch_subset, pins=False))
        privacy = get(self.host.config, "privacy")
        rebase = get(self.host.config, "sessionRebase")
        return build_checkpoint(
            source_session_id=archive.session_id, source_leaf_id=archive.leaf_id, source_size=size,
            source_hash=source_hash, branch=archive.branch_subset, context_entries=archive.context,
            created_at=int(operation["createdAt"]), target_tokens=get(rebase, "checkpointTargetTokens"),
            pins=snapshot.pins, memories=snapshot.memories,
            default_classification=get(privacy, "defaultClassification") or "normal")

    def _install(self, checkpoint: Mapping[str, Any]) -> None:
        """§6.8: Prepared, ArchiveVerified, the fingerprint made durable, the install, TargetCreated."""
        self._phase(Phase.PREPARED)
        self._phase(Phase.ARCHIVE_VERIFIED)
        assert self.operation is not None
        staged = stage_target(self.operation, checkpoint, project_path=self.project)
        self.operation = with_target_fingerprint(self.operation, staged.sha256, staged.size)
        self._phase(Phase.CHECKPOINT_READY)
        install_no_overwrite(Path(self.operation["targetSessionFile"]), staged.data, crash=crashpoints.reached)
        self._phase(Phase.TARGET_CREATED)

    def _verify_target(self, branch: list[Any], *, hand_on: bool = False) -> RebaseState:
        assert self.operation is not None
        scope = current_scope()
        if scope is not None:
            scope.remember = hand_on
        try:
            state = load_rebase_state(self.operation["targetSessionFile"], branch, self.host.project_path,
                                      conn=self.conn)
        finally:
            if scope is not None:
                scope.remember = False
        if not state.verified:
            raise ContractViolation("target-integrity", "the target's lineage does not verify")
        return state

    def _activate(self, source_file: str, size: int, source_hash: str) -> None:
        """§6.9: verify, switch through the host, then only the fresh context is used."""
        assert self.operation is not None
        operation = self.operation
        target_file = operation["targetSessionFile"]
        check_prefix(source_file, size, source_hash)  # §6.9 step 1: a real check, handed to step 3's lineage
        hand_over(source_file, size, source_hash)
        check_prefix(target_file, operation.get("targetSize"), operation.get("targetHash"), "target-integrity")
        self._verify_target(open_from_disk(target_file).branch)
        fresh = self.host.switch_session(target_file)
        if fresh is None:
            raise ContractViolation("activation-cancelled", "the session switch was cancelled")
        try:  # inside Pi's withSession callback: any failure here notifies (§6.9 step 5)
            if fresh.session_id != operation["targetSessionId"]:
                raise ContractViolation("target-identity", "the fresh session is not the target")
            self.activated = True
            self._phase(Phase.ACTIVATED)
            self._verify_target(fresh.branch, hand_on=True)  # its source prefix check is a real one ...
            if not shared_prefix_matches(source_file, size, source_hash):  # ... that serves this one
                raise ContractViolation("archive-changed", "the source prefix changed during activation")
            self._phase(Phase.VERIFIED)
        except Exception:
            self.host.notify("warning", f"rebase recoverable: {operation['id']}. Do not delete the source session.")
            raise
        self.host.notify("info", f"rebase verified: {operation['id']}. The source session is preserved; "
                                 "historical verification remains unknown.")
