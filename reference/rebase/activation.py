"""Installing and activating a run's target (contract §6.8, §6.9): the journal phases around the
no-overwrite install, the target's lineage verification, and the switch through the host with
the verification before and after it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from reference.artifacts.phases import CrashPoint, Phase
from reference.lineage.chain import RebaseState, load_rebase_state
from reference.lineage.proof import ProvenPrefix, prefix_holds, prove_prefix
from reference.pi.model.session import SourceScan
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.durable import install_no_overwrite
from reference.rebase import crashpoints
from reference.rebase.host import OpenedSession, RebaseHost, open_from_disk
from reference.rebase.operation_journal import OperationJournal
from reference.rebase.target import stage_target


def install(journal: OperationJournal, checkpoint: Mapping[str, Any], project: str) -> None:
    """§6.8: Prepared, ArchiveVerified, the fingerprint made durable, the install, TargetCreated."""
    journal.write(Phase.PREPARED)
    journal.write(Phase.ARCHIVE_VERIFIED)
    staged = stage_target(journal.operation, checkpoint, project_path=project)
    journal.fingerprint(staged.sha256, staged.size)
    journal.write(Phase.CHECKPOINT_READY)
    install_no_overwrite(Path(journal.operation["targetSessionFile"]), staged.data,  # §6.5 step 6
                         on_staged=partial(crashpoints.reached, CrashPoint.TARGET_STAGED),
                         on_installed=partial(crashpoints.reached, CrashPoint.TARGET_INSTALLED))
    journal.write(Phase.TARGET_CREATED)


def verify_target(journal: OperationJournal, branch: Sequence[Any], project_path: str, *,
                  proven: ProvenPrefix | None = None, scans: Sequence[SourceScan] = ()) -> RebaseState:
    """§6.9 step 3 (§6.11 step 4.3): the target's lineage verifies, or ``target-integrity``."""
    state = load_rebase_state(journal.operation["targetSessionFile"], branch, project_path, conn=journal.conn,
                              proven=proven, scans=scans)
    if not state.verified:
        raise ContractViolation(Code.TARGET_INTEGRITY, "the target's lineage does not verify")
    return state


def activate(journal: OperationJournal, host: RebaseHost, source: ProvenPrefix, *,
             opened: OpenedSession | None = None, scans: Sequence[SourceScan] = ()) -> None:
    """§6.9: verify, switch through the host, then only the fresh context is used.  ``source`` is
    the operation's source prefix (as recorded: the prefix of the journal's size and hash),
    ``opened`` the target as §6.11 step 4 opened it just before, ``scans`` the run's scans."""
    operation = journal.operation
    target_file = operation["targetSessionFile"]
    # §6.9 step 1: a real check, whose proof step 3's lineage takes for the same source prefix
    before = prove_prefix(source.path, source.size, source.sha256)
    prove_prefix(target_file, operation.get("targetSize"), operation.get("targetHash"), Code.TARGET_INTEGRITY)
    verify_target(journal, (opened or open_from_disk(target_file)).branch, host.project_path,
                  proven=before, scans=scans)
    fresh = host.switch_session(target_file)
    if fresh is None:
        raise ContractViolation(Code.ACTIVATION_CANCELLED, "the session switch was cancelled")
    try:  # inside Pi's withSession callback: any failure here notifies (§6.9 step 5)
        if fresh.session_id != operation["targetSessionId"]:
            raise ContractViolation(Code.TARGET_IDENTITY, "the fresh session is not the target")
        journal.write(Phase.ACTIVATED)
        after = verify_target(journal, fresh.branch, host.project_path, scans=scans)
        # its source prefix check is a real one, whose proof serves the re-check that follows
        proof = next((p for p in after.proven if p == source), None)
        if prefix_holds(source.path, source.size, source.sha256, proof) is None:
            raise ContractViolation(Code.ARCHIVE_CHANGED, "the source prefix changed during activation")
        journal.write(Phase.VERIFIED)
    except Exception:
        host.notify("warning", f"rebase recoverable: {operation['id']}. Do not delete the source session.")
        raise
    host.notify("info", f"rebase verified: {operation['id']}. The source session is preserved; "
                        "historical verification remains unknown.")
