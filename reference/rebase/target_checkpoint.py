"""The checkpoint of a run's target (contract §6.6, §6.11 step 4): the one of an installed target,
reused, or a new one built from the source archive when no target exists yet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reference.artifacts.checkpoint import CheckpointConfig, build_checkpoint
from reference.artifacts.ids import RebaseSource, checkpoint_id
from reference.artifacts.memory import MemorySnapshot, overlay_inherited, snapshot_memory
from reference.lineage.chain import RebaseState
from reference.lineage.proof import ProvenPrefix, prove_prefix
from reference.pi.exact.header import is_current_version
from reference.pi.exact.reader import read_header_line
from reference.pi.exact.session import load_session
from reference.pi.leaf import DEFAULT_LEAF
from reference.pi.model.session import SourceScan
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import get
from reference.primitives.platform_ops.paths import canonical_path
from reference.rebase.activation import verify_target
from reference.rebase.archive import SourceArchive
from reference.rebase.host import OpenedSession, RebaseHost, holds_memory, open_from_disk
from reference.rebase.operation_journal import OperationJournal


@dataclass(frozen=True)
class ExistingTarget:
    """§6.11 step 4: the installed target's checkpoint, and the target as it was opened to verify it."""

    checkpoint: dict[str, Any]
    opened: OpenedSession


def host_leaf(host: RebaseHost, archive: SourceArchive) -> Any:
    """Pi's current leaf, resolving DEFAULT_LEAF (the last entry in file order): the archive's
    when the current session is the archive's file, by whichever path either was named (a
    symlinked sessions folder, say), so that file is not read again whole."""
    leaf, current = host.leaf, host.session_file
    if leaf is not DEFAULT_LEAF or not current:
        return leaf
    if canonical_path(current) == canonical_path(archive.scan.path):
        return archive.scan.last_id  # Pi's leaf on load: the last entry in file order
    return load_session(current).tree().default_leaf_id


def existing_target(journal: OperationJournal, project_path: str, header_id: str, leaf: str, *,
                    source: ProvenPrefix, scans: Sequence[SourceScan] = ()) -> ExistingTarget:
    """§6.11 step 4: reuse the installed target's checkpoint; never a second target.  ``source``
    is step 24's proof of the operation's source prefix, taken by the lineage check just after."""
    operation = journal.operation
    target_file = operation["targetSessionFile"]
    prove_prefix(target_file, operation.get("targetSize"), operation.get("targetHash"), Code.TARGET_INTEGRITY)
    try:
        version = read_header_line(target_file).get("version")
    except (OSError, ValueError):
        version = None
    if not is_current_version(version):
        raise ContractViolation(Code.TARGET_INTEGRITY, "the target is not a version 3 session")
    opened = open_from_disk(target_file)
    state = verify_target(journal, opened.branch, project_path, proven=source, scans=scans)
    if get(state.checkpoint, "id") != checkpoint_id(header_id, leaf, source.sha256):
        raise ContractViolation(Code.TARGET_INTEGRITY, "the target's checkpoint is not this operation's")
    assert state.checkpoint is not None
    return ExistingTarget(state.checkpoint, opened)


def build_target_checkpoint(operation: dict[str, Any], host: RebaseHost, archive: SourceArchive, own: RebaseState,
                            source: ProvenPrefix) -> dict[str, Any]:
    """§6.6: only when no target exists; the source must not have moved since the journal."""
    if (operation["sourceSize"] != archive.scan.size or operation["sourceLeafId"] != host_leaf(host, archive)
            or host.current_session_id() != archive.session_id):
        raise ContractViolation(Code.SOURCE_MOVED_BEFORE_CHECKPOINT, "the source moved since the operation began")
    inherited = own.checkpoint or {}
    scan = archive.scan
    # Every entry when the source holds a pin or memory mutation (their replay needs the entry
    # times), else nothing: a source without them costs no second decode.
    entries = scan.decode_many(range(scan.entry_count)) if holds_memory(scan.custom_entries()) else []
    carried = snapshot_memory(
        entries, session_id=archive.session_id, session_file=archive.scan.path,
        branch_ids=archive.branch_ids(), inherited=MemorySnapshot(
            tuple(overlay_inherited(get(inherited, "pins") or (), archive.branch_subset, pins=True)),
            tuple(overlay_inherited(get(inherited, "memories") or (), archive.branch_subset, pins=False))))
    return build_checkpoint(
        RebaseSource(archive.session_id, archive.leaf_id, source.size, source.sha256), branch=archive.branch_subset,
        context_entries=archive.context, created_at=int(operation["createdAt"]),
        config=CheckpointConfig.of(host.config), carried=carried)
