"""Lineage verification (contract §6.13, upstream ``loadRebaseState``) and the rebuildable rebase
projections (§5.3, migration 3).

Only a verified checkpoint/link pair on the active branch makes a session a continuation of
another; a ``parentSession`` header alone grants nothing.  Authority is the JSONL: the projection
tables are written after a clean verification and cleared otherwise, never read for a decision,
and rebuilt by the next verification after the index is deleted.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import IO, Any, Final, NamedTuple

from reference.artifacts.checkpoint import LINEAGE_CUSTOM_TYPES, find_pair, verify_handoff, verify_pair
from reference.artifacts.ids import ProjectPaths, journal_path
from reference.artifacts.journal import load_journal
from reference.artifacts.memory import MEMORY_TYPE, PIN_TYPE
from reference.lineage.proof import ProvenPrefix, prefix_holds, prefix_scan
from reference.pi.exact.header import is_current_version, same_project
from reference.pi.exact.reader import Record, RecordKind, open_session_file, read_header_line
from reference.pi.exact.session import load_session
from reference.pi.exact.tree import SessionTree
from reference.pi.model.session import BranchIds, SourceScan, scan_source, validate_branch
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify
from reference.primitives.jsvalues import get
from reference.primitives.platform_ops.paths import real_path

MAX_DEPTH: Final = 16


@dataclass(frozen=True)
class LineageSource:
    """One verified ancestor: the entries of its captured branch that lineage recall may see."""

    session_id: str
    session_file: str
    allowed_entry_ids: AbstractSet[str]  # a frozenset, or the scan's compact branch (BranchIds)


class VerifiedPair(NamedTuple):
    """A verified checkpoint/link pair of the walk, for the projections: the target's header id."""

    target_session_id: str
    checkpoint: dict[str, Any]
    link: dict[str, Any]


@dataclass(frozen=True)
class RebaseState:
    """What verification found: the nearest checkpoint (None when absent or invalid), the
    verified sources nearest first (partial when a warning stopped the walk), and warnings;
    with what the walk proved on the way, for the step that uses it next: the source prefixes it
    checked and the scans it read or was handed (docs/rebase.md, "What one run reads")."""

    checkpoint: dict[str, Any] | None = None
    sources: list[LineageSource] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    pairs: list[VerifiedPair] = field(default_factory=list)
    proven: list[ProvenPrefix] = field(default_factory=list)
    scans: list[SourceScan] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return self.checkpoint is not None and not self.warnings


class _Broken(Exception):
    """One pair failed a check; the walk stops with ``lineage-integrity-unavailable``."""


#: A verified source prefix's entry by id (decoded only when a carried item names one), or None.
Origin = Callable[[Any], Any]


def _decoder(path: str, find: Callable[[Any], Any], decode: Callable[[IO[bytes], Any], Any]) -> Origin:
    """The origin of a verified prefix: ``find`` an entry's record (by id) and ``decode`` it."""

    def value(entry_id: Any) -> Any:
        found = find(entry_id) if isinstance(entry_id, str) else None
        if found is None:
            return None
        with open_session_file(path) as stream:
            return decode(stream, found)

    return value


def _verify_source(
    link: Mapping[str, Any], project_path: str, state: RebaseState, proven: ProvenPrefix | None
) -> tuple[Origin, list[Any], AbstractSet[str]]:
    """The source half of §6.13 step 3: prefix, header, unique ids, ancestry, Pi's branch.
    Returns the origin, the entries of the source branch that lineage reads further (its
    ``custom`` and ``custom_message`` entries, at least) and the ids of that branch.  ``proven``
    is the prefix check just before this verification; what this one proves goes to ``state``."""
    source_file = link["sourceSessionFile"]
    size, leaf = link.get("sourceSize"), link.get("sourceLeafId")
    holds = prefix_holds(source_file, size, link.get("sourceHash"), proven)
    if holds is None or not isinstance(leaf, str):
        raise _Broken("source prefix")
    state.proven.append(holds)
    assert isinstance(size, int)
    header = read_header_line(source_file)
    if (not is_current_version(header.get("version"))
            or header.get("id") != link.get("sourceSessionId") or not same_project(header.get("cwd"), project_path)):
        raise _Broken("source header")
    scan = prefix_scan(source_file, size, str(link.get("sourceHash")), state.scans)
    if scan is None and os.stat(source_file).st_size == size:
        # The source has not grown since the rebase (the usual case): the compact scan, not a
        # Record per line, so verifying a large source's lineage stays small.
        scan = scan_source(source_file)
        if scan.size != size or scan.sha256 != link.get("sourceHash"):
            raise _Broken("source prefix")
        state.scans.append(scan)
    if scan is not None and scan.valid:  # the prefix just verified is the whole scanned file
        try:
            scan.validate_branch(leaf)
        except ContractViolation:
            raise _Broken("source ancestry") from None
        numbers = scan.branch(leaf)
        if not numbers or numbers[-1] != scan.ids[leaf]:
            raise _Broken("source branch")
        # only the entries a later lineage step looks at are decoded
        customs = scan.branch_customs(leaf, LINEAGE_CUSTOM_TYPES)
        return _decoder(scan.path, scan.ids.get, scan.decode), customs, BranchIds(scan, leaf)
    session = load_session(source_file)  # a grown source: only the records of the prefix count
    by_id: dict[str, Record] = {}
    for record in session.entries:
        if record.end > size:
            break
        if record.kind is not RecordKind.ENTRY or not record.is_object or not isinstance(record.type, str):
            continue  # upstream's reader drops lines it calls malformed
        if not isinstance(record.id, str) or record.id in by_id:
            raise _Broken("source ids")
        by_id[record.id] = record
    prefix_tree = SessionTree(list(by_id.values()))
    try:
        validate_branch(prefix_tree, leaf)
    except ContractViolation:
        raise _Broken("source ancestry") from None
    branch_records = session.tree().branch(leaf).path  # Pi opens the whole file, last id wins
    if not branch_records or branch_records[-1].id != leaf or any(r.id not in by_id for r in branch_records):
        raise _Broken("source branch")
    with open_session_file(source_file) as stream:
        branch = [session.decode(stream, record) for record in branch_records]
    return _decoder(session.path, by_id.get, session.decode), branch, frozenset(entry["id"] for entry in branch)


def _check_provenance(state: RebaseState, origins: Mapping[str, Origin]) -> bool:
    """§6.13 step 2: every carried item points at its own origin mutation, unchanged."""
    for _target, cp, _link in state.pairs:
        for item in [*get(cp, "pins"), *get(cp, "memories")]:
            if not isinstance(item, dict) or not isinstance(item.get("provenance"), dict):
                return False
            if item.get("status") != "active" or item.get("scope") == "project":
                return False
            provenance = item["provenance"]
            source = provenance.get("sourceSessionId")
            origin = origins.get(source) if isinstance(source, str) else None
            value = origin(provenance.get("mutationEntryId")) if origin else None
            is_pin = "content" in item
            payload = get(value, "data")
            original = get(payload, "item")
            if (get(value, "type") != "custom" or get(value, "customType") != (PIN_TYPE if is_pin else MEMORY_TYPE)
                    or get(payload, "schemaVersion") != 1 or not isinstance(original, dict)
                    or original.get("id") != item.get("id") or original.get("scope") != item.get("scope")
                    or original.get("classification") != item.get("classification")):
                return False
            text_key = "content" if is_pin else "claim"
            if original.get(text_key) != item.get(text_key):
                return False
            if is_pin and item.get("scope") == "branch":
                allowed = next((s.allowed_entry_ids for s in state.sources if s.session_id == source), frozenset())
                if original.get("branchLeafId") != item.get("branchLeafId") or item.get("branchLeafId") not in allowed:
                    return False
    return True


def load_rebase_state(
    session_file: str | None,
    branch: Sequence[Any],
    project_path: str,
    *,
    conn: sqlite3.Connection | None = None,
    proven: ProvenPrefix | None = None,
    scans: Iterable[SourceScan] = (),
) -> RebaseState:
    """Walk verified checkpoint/link pairs from ``branch`` (the entries of the active branch of
    ``session_file``), at most 16 deep, and project them when nothing failed.

    ``proven`` is a prefix check that passed just before this call (taken by the source check it
    is exactly, instead of a second hash) and ``scans`` the scans the caller read (taken for a
    source whose file is still the scanned bytes); the result says what this walk proved."""
    state = RebaseState(scans=list(scans))
    if not session_file or not os.path.isfile(session_file):
        state.warnings.append(Code.CANONICAL_SESSION_UNAVAILABLE)
        return state
    visited: set[str] = set()
    origins: dict[str, Origin] = {}
    checkpoint: dict[str, Any] | None = None  # the nearest
    current_file = real_path(session_file)
    current: Sequence[Any] = branch
    for depth in range(MAX_DEPTH):
        pair = find_pair(current)
        if pair.link_entry is None:
            break
        try:
            header = read_header_line(current_file)
            if verify_pair(pair, header=header, current_file=current_file, project=ProjectPaths(project_path),
                           visited=visited) is not None:
                raise _Broken("pair")
            link, cp = pair.link_entry["data"], pair.checkpoint_entry["data"]
            origin, ancestors, allowed = _verify_source(link, project_path, state, proven)
            if verify_handoff(pair.handoff_entry, cp, header=header, project=ProjectPaths(project_path)) is not None:
                raise _Broken("handoff")
        except (_Broken, ContractViolation, OSError, ValueError, KeyError, TypeError):
            state.warnings.append(Code.LINEAGE_INTEGRITY_UNAVAILABLE)
            break
        source_id = link["sourceSessionId"]
        visited.add(source_id)
        origins[source_id] = origin
        state.sources.append(LineageSource(source_id, link["sourceSessionFile"], allowed))
        if checkpoint is None:
            checkpoint = cp
        state.pairs.append(VerifiedPair(str(header["id"]), cp, link))
        current_file, current = link["sourceSessionFile"], ancestors
        if depth == MAX_DEPTH - 1:
            state.warnings.append(Code.LINEAGE_DEPTH_LIMIT)
    if checkpoint is not None and not state.warnings and not _check_provenance(state, origins):
        checkpoint = None
        state.warnings.append(Code.CHECKPOINT_MEMORY_PROVENANCE_INVALID)
    state = replace(state, checkpoint=checkpoint)
    if conn is not None:
        if state.warnings:
            clear_session(conn, header_id(session_file))
        else:
            project_pairs(conn, state.pairs)
    return state


def header_id(session_file: str) -> Any:
    """The session file's header ``id``; None when the file or its header cannot be read."""
    try:
        return read_header_line(session_file).get("id")
    except (OSError, ValueError):
        return None


# ----------------------------------------------------------------------------------------------
# the projections (§5.3): written after verification, never read for a decision, errors swallowed


def project_pairs(conn: sqlite3.Connection, pairs: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]]) -> None:
    for target_session_id, cp, link in pairs:
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("DELETE FROM rebase_checkpoints WHERE session_id = ? AND checkpoint_id <> ?",
                             (target_session_id, cp["id"]))
                conn.execute("INSERT OR REPLACE INTO rebase_checkpoints(checkpoint_id, session_id, payload_json) "
                             "VALUES (?, ?, ?)", (cp["id"], target_session_id, js_stringify(cp)))
                conn.execute("INSERT OR REPLACE INTO session_lineage(target_session_id, source_session_id, "
                             "source_leaf_id, checkpoint_id, payload_json) VALUES (?, ?, ?, ?, ?)",
                             (target_session_id, link["sourceSessionId"], link["sourceLeafId"], cp["id"],
                              js_stringify(link)))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except (sqlite3.Error, KeyError, TypeError):
            continue
        _project_journal(conn, link)


def _project_journal(conn: sqlite3.Connection, link: Mapping[str, Any]) -> None:
    """The operation journal a verified link names, so the ``rebase_operations`` rows come back
    after the index is deleted (the journal, not the row, is the authority)."""
    try:
        path = journal_path(str(link["sourceSessionFile"]), str(link["operationId"]))
        operation = load_journal(path.read_bytes(), requested_id=str(link["operationId"]),
                                 source_file=str(link["sourceSessionFile"]), project=ProjectPaths(str(link["projectPath"])))
    except (ContractViolation, OSError, KeyError):
        return
    project_operation(conn, operation)


def is_projected(conn: sqlite3.Connection, state: RebaseState) -> bool:
    """Whether every pair of ``state`` has its lineage row (False after the index was deleted)."""
    try:
        return all(conn.execute("SELECT 1 FROM session_lineage WHERE target_session_id = ? AND checkpoint_id = ?",
                                (target, cp.get("id"))).fetchone() is not None for target, cp, _link in state.pairs)
    except sqlite3.Error:
        return True


def clear_session(conn: sqlite3.Connection, session_id: Any) -> None:
    if not isinstance(session_id, str):
        return
    with contextlib.suppress(sqlite3.Error):
        conn.execute("DELETE FROM session_lineage WHERE target_session_id = ?", (session_id,))
        conn.execute("DELETE FROM rebase_checkpoints WHERE session_id = ?", (session_id,))


def project_operation(conn: sqlite3.Connection | None, operation: Mapping[str, Any]) -> None:
    if conn is None:
        return
    with contextlib.suppress(sqlite3.Error, KeyError, TypeError):
        conn.execute("INSERT OR REPLACE INTO rebase_operations(operation_id, phase, payload_json) VALUES (?, ?, ?)",
                     (operation["id"], operation["phase"], js_stringify(dict(operation))))
