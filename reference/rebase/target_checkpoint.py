"""The checkpoint of a run's target (contract §6.6, §6.11 step 4): the one of an installed target,
reused, or a new one built from the source archive when no target exists yet."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference.artifacts.checkpoint import build_checkpoint
from reference.artifacts.ids import checkpoint_id
from reference.artifacts.memory import overlay_inherited, snapshot_memory
from reference.lineage.chain import RebaseState
from reference.pi.exact.header import is_current_version
from reference.pi.exact.reader import read_header_line
from reference.pi.exact.session import load_session
from reference.pi.leaf import DEFAULT_LEAF
from reference.pi.prefix import check_prefix
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import get
from reference.primitives.platform_ops import canonical_path
from reference.rebase.activation import verify_target
from reference.rebase.archive import SourceArchive
from reference.rebase.session_host import holds_memory, open_from_disk

if TYPE_CHECKING:
    from reference.rebase.run import RebaseRun


def memory_entries(archive: SourceArchive) -> list[Any]:
    """Every entry when the source holds a pin or memory mutation (their replay needs the entry
    times), else nothing: a source without them costs no second decode."""
    if not holds_memory(archive.custom_entries()):
        return []
    return archive.all_entries()


def host_leaf(run: RebaseRun, archive: SourceArchive) -> Any:
    """Pi's current leaf, resolving DEFAULT_LEAF (the last entry in file order): the archive's
    when the current session is the archive's file, by whichever path either was named (a
    symlinked sessions folder, say), so that file is not read again whole."""
    leaf, current = run.host.leaf, run.host.session_file
    if leaf is not DEFAULT_LEAF or not current:
        return leaf
    if canonical_path(current) == canonical_path(archive.path):
        return archive.default_leaf_id
    return load_session(current).tree().default_leaf_id


def existing_target(run: RebaseRun, header_id: str, leaf: str, source_hash: str) -> dict[str, Any]:
    """§6.11 step 4: reuse the installed target's checkpoint; never a second target."""
    assert run.operation is not None
    operation = run.operation
    target_file = operation["targetSessionFile"]
    check_prefix(target_file, operation.get("targetSize"), operation.get("targetHash"), Code.TARGET_INTEGRITY)
    try:
        version = read_header_line(target_file).get("version")
    except (OSError, ValueError):
        version = None
    if not is_current_version(version):
        raise ContractViolation(Code.TARGET_INTEGRITY, "the target is not a version 3 session")
    state = verify_target(run, open_from_disk(target_file).branch)
    if get(state.checkpoint, "id") != checkpoint_id(header_id, leaf, source_hash):
        raise ContractViolation(Code.TARGET_INTEGRITY, "the target's checkpoint is not this operation's")
    assert state.checkpoint is not None
    return state.checkpoint


def build_target_checkpoint(run: RebaseRun, archive: SourceArchive, own: RebaseState, size: int, source_hash: str) -> dict[str, Any]:
    """§6.6: only when no target exists; the source must not have moved since the journal."""
    assert run.operation is not None
    operation = run.operation
    if (operation["sourceSize"] != archive.size or operation["sourceLeafId"] != host_leaf(run, archive)
            or run.host.current_session_id() != archive.session_id):
        raise ContractViolation(Code.SOURCE_MOVED_BEFORE_CHECKPOINT, "the source moved since the operation began")
    inherited = own.checkpoint or {}
    snapshot = snapshot_memory(
        memory_entries(archive), session_id=archive.session_id, session_file=archive.path,
        branch_ids=archive.branch_ids(),
        inherited_pins=overlay_inherited(get(inherited, "pins") or (), archive.branch_subset, pins=True),
        inherited_memories=overlay_inherited(get(inherited, "memories") or (), archive.branch_subset, pins=False))
    privacy = get(run.host.config, "privacy")
    rebase = get(run.host.config, "sessionRebase")
    return build_checkpoint(
        source_session_id=archive.session_id, source_leaf_id=archive.leaf_id, source_size=size,
        source_hash=source_hash, branch=archive.branch_subset, context_entries=archive.context,
        created_at=int(operation["createdAt"]), target_tokens=get(rebase, "checkpointTargetTokens"),
        pins=snapshot.pins, memories=snapshot.memories,
        default_classification=get(privacy, "defaultClassification") or "normal")
