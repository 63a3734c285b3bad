"""The source archive a rebase starts from: one read of the source, checked the way contract §6.2
steps 15-21 and §6.3 require, and the prefix check that every later step repeats (step 24, §6.9).

Read-only: the file is opened through :func:`reference.reader.open_session_file` and never
through anything that could migrate it, so a version 1 or 2 file is refused before any other
check looks at it (``unsupported-source-version``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference.context import context_entries
from reference.errors import ContractViolation
from reference.jsvalues import is_safe_integer
from reference.paths import canonical_path
from reference.reader import CURRENT_VERSION, Record, RecordKind, open_session_file
from reference.session import SessionFile, load_session
from reference.tree import SessionTree

_HEX64: Final = re.compile(r"[a-f0-9]{64}")
_CHUNK: Final = 1024 * 1024


def sha256_prefix(path: str, size: int) -> str | None:
    """SHA-256 of bytes ``[0, size)`` of ``path``; None when the file is shorter."""
    digest = hashlib.sha256()
    remaining = size
    with open_session_file(path) as stream:
        while remaining > 0:
            chunk = stream.read(min(_CHUNK, remaining))
            if not chunk:
                return None
            digest.update(chunk)
            remaining -= len(chunk)
    return digest.hexdigest()


def prefix_matches(path: str, size: Any, expected: Any) -> bool:
    """Upstream ``checkPrefix``: a safe size of at least 1, 64 lower-case hex, a file at least
    that long whose first ``size`` bytes hash to ``expected``."""
    if not is_safe_integer(size) or size < 1 or not isinstance(expected, str) or not _HEX64.fullmatch(expected):
        return False
    try:
        if os.stat(path).st_size < size:
            return False
        return sha256_prefix(path, int(size)) == expected
    except OSError:
        return False


def check_prefix(path: str, size: Any, expected: Any, code: str = "archive-changed") -> None:
    """:func:`prefix_matches` or ``code`` (``archive-changed`` for a source, ``target-integrity``
    for a target)."""
    if not prefix_matches(path, size, expected):
        raise ContractViolation(code, "the captured prefix of the session file no longer matches its fingerprint")


def same_project(cwd: Any, project_path: str) -> bool:
    """The header ``cwd`` is a string naming the project (compared as canonical paths)."""
    return isinstance(cwd, str) and canonical_path(cwd) == canonical_path(project_path)


def is_pi_entry(record: Record) -> bool:
    """Upstream ``isPiSessionEntryRecord``: string ``type``, ``id`` and ``timestamp``, and a
    ``parentId`` that is a string or null."""
    return (record.is_object and isinstance(record.type, str) and isinstance(record.id, str)
            and (record.parent_id is None or isinstance(record.parent_id, str)) and record.timestamped)


@dataclass
class SourceArchive:
    """A complete canonical source (§6.3) captured at one leaf."""

    session: SessionFile
    tree: SessionTree
    leaf_id: str
    branch: list[Any]  # the decoded entries root → leaf
    context: list[Any]  # Pi's compaction-aware context entries at the leaf

    @property
    def path(self) -> str:
        return self.session.path

    @property
    def session_id(self) -> str:
        return self.session.session_id

    @property
    def size(self) -> int:
        return self.session.size

    @property
    def sha256(self) -> str:
        return self.session.sha256

    @property
    def record_count(self) -> int:
        """Parsed records, header included (upstream ``archive.records.length``)."""
        return len(self.session.entries) + 1 + self.session.diagnostics.extra_headers.count

    def branch_ids(self) -> set[str]:
        return {entry["id"] for entry in self.branch}

    def all_entries(self) -> list[Any]:
        """Every entry decoded, in file order (the pin and memory replay reads them all)."""
        with open_session_file(self.path) as stream:
            return [self.session.decode(stream, record) for record in self.session.entries]


def check_header(header: dict[str, Any], project_path: str) -> None:
    """Steps 15-16: version 3 before anything else is looked at, then the project."""
    version = header.get("version")
    if isinstance(version, bool) or version != CURRENT_VERSION:
        raise ContractViolation("unsupported-source-version",
                                f"session version {version!r} is not 3; Pi would rewrite the file on open")
    if not same_project(header.get("cwd"), project_path):
        raise ContractViolation("source-scope-mismatch", "the session header cwd is not this project")


def validate_branch(tree: SessionTree, leaf_id: str) -> None:
    """Step 20: from the leaf, ``parentId`` links reach a root through valid entries, no cycle."""
    seen: set[str] = set()
    current: Any = leaf_id
    while current is not None:
        record = tree.by_id.get(current) if isinstance(current, str) else None
        if record is None or not is_pi_entry(record) or current in seen:
            raise ContractViolation("archive-branch-invalid", "the leaf's ancestry is broken or cyclic")
        seen.add(current)
        current = record.parent_id


def _incomplete(record: Record) -> bool:
    """Upstream ``parseLine`` calls a line malformed unless it is an object with a string type."""
    return record.kind in (RecordKind.MALFORMED, RecordKind.FALSY, RecordKind.OVERSIZE) or (
        record.kind is RecordKind.ENTRY and not (record.is_object and isinstance(record.type, str)))


def check_records(session: SessionFile) -> SessionTree:
    """Steps 17-18: no malformed, oversize or unterminated line; every entry a valid Pi entry
    with a unique id (later ``session`` records are skipped)."""
    diagnostics = session.diagnostics
    if (diagnostics.malformed.count or diagnostics.falsy.count or diagnostics.oversize.count
            or diagnostics.unterminated_tail or any(_incomplete(record) for record in session.entries)):
        raise ContractViolation("archive-incomplete",
                                "the source has a malformed, oversize or unterminated line; it is reported, never repaired")
    ids: set[str] = set()
    for record in session.entries:
        if not is_pi_entry(record) or record.id in ids:
            raise ContractViolation("archive-invalid-ids", f"line {record.line} is not a Pi entry with a unique id")
        ids.add(record.id)
    return SessionTree(session.entries)


def decode_path(session: SessionFile, records: Sequence[Record]) -> list[Any]:
    with open_session_file(session.path) as stream:
        return [session.decode(stream, record) for record in records]


def capture_source(path: str, project_path: str, leaf_id: Any) -> SourceArchive:
    """Steps 15-21 on ``path`` at ``leaf_id`` (the host's active leaf, "default" for Pi's leaf on
    load, or the journal's)."""
    session = load_session(path)
    check_header(session.header, project_path)
    tree = check_records(session)
    if leaf_id == "default":
        leaf_id = tree.default_leaf_id
    if not isinstance(leaf_id, str) or not leaf_id:
        raise ContractViolation("source-empty", "the session has no leaf to rebase")
    validate_branch(tree, leaf_id)
    branch_records = tree.branch(leaf_id).path
    if not branch_records or branch_records[-1].id != leaf_id:
        raise ContractViolation("source-leaf-unavailable", "Pi's branch does not end at the captured leaf")
    branch = decode_path(session, branch_records)
    return SourceArchive(session, tree, leaf_id, branch, context_entries(branch))
