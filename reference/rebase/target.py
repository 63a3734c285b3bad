"""A run's target (contract §6.6, §6.8, §6.9, §6.11 step 4; decisions D1): its checkpoint (the
one of an installed target, reused, or a new one built from the source archive when no target
exists yet); its file, staged as bytes before any write (the header, the checkpoint, link and
handoff entries with their ids and timestamps); the journal phases around its no-overwrite
install; its lineage verification, and the switch through the host with the verification before
and after it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from reference.artifacts.checkpoint import (
    CHECKPOINT_TYPE,
    HANDOFF_TYPE,
    LINK_TYPE,
    CheckpointConfig,
    build_checkpoint,
    build_link,
    handoff_content,
)
from reference.artifacts.ids import RebaseSource, checkpoint_id
from reference.artifacts.memory import MemorySnapshot, overlay_inherited, snapshot_memory
from reference.artifacts.phases import CrashPoint, Phase
from reference.lineage.chain import RebaseState, load_rebase_state
from reference.lineage.proof import ProvenPrefix, prefix_holds, prove_prefix
from reference.pi.exact.header import CURRENT_VERSION, is_current_version
from reference.pi.exact.reader import read_header_line
from reference.pi.exact.session import load_session
from reference.pi.leaf import DEFAULT_LEAF
from reference.pi.model.session import SourceScan
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify_bytes
from reference.primitives.jsvalues import get, to_iso_string
from reference.primitives.platform_ops.durable import install_no_overwrite
from reference.primitives.platform_ops.paths import canonical_path
from reference.primitives.textunits import sha256_text
from reference.rebase import crashpoints
from reference.rebase.archive import SourceArchive
from reference.rebase.host import OpenedSession, RebaseHost, holds_memory, open_from_disk
from reference.rebase.operation_journal import OperationJournal


def target_entry_ids(target_session_id: str, count: int = 3) -> list[str]:
    """Pi-shaped entry ids (8 lower-case hex) derived from the target session id, all distinct,
    so that rebuilding a target from its journal gives the same bytes."""
    ids: list[str] = []
    counter = 0
    while len(ids) < count:
        candidate = sha256_text(f"{target_session_id}:entry:{counter}")[:8]
        if candidate not in ids:
            ids.append(candidate)
        counter += 1
    return ids


@dataclass(frozen=True)
class StagedTarget:
    """The target's lines as objects, its bytes and the fingerprint the journal records."""

    header: dict[str, Any]
    entries: tuple[dict[str, Any], ...]
    data: bytes
    sha256: str
    size: int


def stage_target(
    operation: Mapping[str, Any], checkpoint: Mapping[str, Any], *, project_path: str | None = None
) -> StagedTarget:
    """The target file for ``operation``: a Pi v3 header (``id`` = ``targetSessionId``,
    ``parentSession`` = the canonical source) and the checkpoint, link and handoff entries.

    Deterministic: the header and entry timestamps are the operation's ``createdAt`` and the
    entry ids come from :func:`target_entry_ids`.  ``project_path`` is the canonical runtime
    path (default: the journal's).
    """
    project = str(operation["projectPath"]) if project_path is None else project_path
    source_file = str(operation["sourceSessionFile"])
    target_id = str(operation["targetSessionId"])
    timestamp = to_iso_string(int(operation["createdAt"]))
    link = build_link(operation_id=str(operation["id"]), checkpoint=checkpoint, source_session_file=source_file,
                      project_path=project, target_session_id=target_id)
    header = {"type": "session", "version": CURRENT_VERSION, "id": target_id, "timestamp": timestamp,
              "cwd": project, "parentSession": source_file}
    checkpoint_entry_id, link_entry_id, handoff_entry_id = target_entry_ids(target_id)
    entries = (
        {"type": "custom", "customType": CHECKPOINT_TYPE, "data": dict(checkpoint),
         "id": checkpoint_entry_id, "parentId": None, "timestamp": timestamp},
        {"type": "custom", "customType": LINK_TYPE, "data": link,
         "id": link_entry_id, "parentId": checkpoint_entry_id, "timestamp": timestamp},
        {"type": "custom_message", "customType": HANDOFF_TYPE, "content": handoff_content(checkpoint),
         "display": False, "id": handoff_entry_id, "parentId": link_entry_id, "timestamp": timestamp},
    )
    data = b"".join(js_stringify_bytes(line) + b"\n" for line in (header, *entries))
    return StagedTarget(header, entries, data, hashlib.sha256(data).hexdigest(), len(data))


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
