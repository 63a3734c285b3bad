"""Installing and activating a run's target (contract §6.8, §6.9): the journal phases around the
no-overwrite install, the target's lineage verification, and the switch through the host with
the verification before and after it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reference.artifacts.journal import with_target_fingerprint
from reference.artifacts.phases import Phase
from reference.lineage.chain import RebaseState, load_rebase_state
from reference.pi.prefix import check_prefix
from reference.pi.scanscope import current_scope, hand_over, shared_prefix_matches
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.rebase import crashpoints
from reference.rebase.durable import install_no_overwrite
from reference.rebase.session_host import open_from_disk
from reference.rebase.target import stage_target

if TYPE_CHECKING:
    from reference.rebase.run import RebaseRun


def install(run: RebaseRun, checkpoint: Mapping[str, Any]) -> None:
    """§6.8: Prepared, ArchiveVerified, the fingerprint made durable, the install, TargetCreated."""
    run.write_phase(Phase.PREPARED)
    run.write_phase(Phase.ARCHIVE_VERIFIED)
    assert run.operation is not None
    staged = stage_target(run.operation, checkpoint, project_path=run.project)
    run.operation = with_target_fingerprint(run.operation, staged.sha256, staged.size)
    run.write_phase(Phase.CHECKPOINT_READY)
    install_no_overwrite(Path(run.operation["targetSessionFile"]), staged.data, crash=crashpoints.reached)
    run.write_phase(Phase.TARGET_CREATED)


def verify_target(run: RebaseRun, branch: list[Any], *, hand_on: bool = False) -> RebaseState:
    assert run.operation is not None
    scope = current_scope()
    if scope is not None:
        scope.remember = hand_on
    try:
        state = load_rebase_state(run.operation["targetSessionFile"], branch, run.host.project_path,
                                  conn=run.conn)
    finally:
        if scope is not None:
            scope.remember = False
    if not state.verified:
        raise ContractViolation(Code.TARGET_INTEGRITY, "the target's lineage does not verify")
    return state


def activate(run: RebaseRun, source_file: str, size: int, source_hash: str) -> None:
    """§6.9: verify, switch through the host, then only the fresh context is used."""
    assert run.operation is not None
    operation = run.operation
    target_file = operation["targetSessionFile"]
    check_prefix(source_file, size, source_hash)  # §6.9 step 1: a real check, handed to step 3's lineage
    hand_over(source_file, size, source_hash)
    check_prefix(target_file, operation.get("targetSize"), operation.get("targetHash"), Code.TARGET_INTEGRITY)
    verify_target(run, open_from_disk(target_file).branch)
    fresh = run.host.switch_session(target_file)
    if fresh is None:
        raise ContractViolation(Code.ACTIVATION_CANCELLED, "the session switch was cancelled")
    try:  # inside Pi's withSession callback: any failure here notifies (§6.9 step 5)
        if fresh.session_id != operation["targetSessionId"]:
            raise ContractViolation(Code.TARGET_IDENTITY, "the fresh session is not the target")
        run.activated = True
        run.write_phase(Phase.ACTIVATED)
        verify_target(run, fresh.branch, hand_on=True)  # its source prefix check is a real one ...
        if not shared_prefix_matches(source_file, size, source_hash):  # ... that serves this one
            raise ContractViolation(Code.ARCHIVE_CHANGED, "the source prefix changed during activation")
        run.write_phase(Phase.VERIFIED)
    except Exception:
        run.host.notify("warning", f"rebase recoverable: {operation['id']}. Do not delete the source session.")
        raise
    run.host.notify("info", f"rebase verified: {operation['id']}. The source session is preserved; "
                             "historical verification remains unknown.")
