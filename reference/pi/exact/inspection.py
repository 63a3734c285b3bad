"""``session inspect``: one session read the way Pi 0.84.3 reads it, as a JSON-able object.

The result composes the reader, the tree, the compaction-aware context and the tool-exchange
analysis.  It never writes: the file's SHA-256 is the same before and after.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from reference.pi.exact.context import (
    UnbuildableContext,
    context_entries,
    context_messages,
    context_settings,
)
from reference.pi.exact.reader import open_session_file
from reference.pi.exact.session import (
    DIAGNOSTIC_SAMPLE,
    LineSample,
    ReadDiagnostics,
    SessionFile,
    load_session,
)
from reference.pi.exact.toolexchange import analyse
from reference.pi.exact.tree import SessionTree, entry_id_text
from reference.pi.leaf import DEFAULT_LEAF
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import UNDEFINED


def _diagnostics(session: SessionFile, leaf_walk_missing: Any, leaf_walk_cycle: bool) -> dict[str, Any]:
    tree = session.tree()
    return diagnostics_json(
        session.legacy_version, session.unsupported_version, session.invalid_header_fields, session.diagnostics,
        [k if isinstance(k, str) else None for k in tree.duplicate_ids],
        ((entry_id_text(record.id), problem) for record, problem in tree.broken_links()),
        bool(leaf_walk_missing is not None or leaf_walk_cycle))


def diagnostics_json(legacy: int | None, unsupported: Any, invalid_header_fields: list[str], read: ReadDiagnostics,
                     duplicate_ids: list[Any], broken_links: Iterable[tuple[Any, str]],
                     leaf_path_truncated: bool) -> dict[str, Any]:
    """The ``diagnostics`` of an inspection, the model's (:mod:`reference.pi.session_inspect`) and
    this one's alike: ``broken_links`` gives (entry id, ``"missing-parent"`` or ``"cycle"``)."""
    broken: dict[str, LineSample] = {"missing-parent": LineSample(), "cycle": LineSample()}
    for entry_id, problem in broken_links:
        broken[problem].add(entry_id)
    return {
        "legacyVersion": legacy,
        "unsupportedVersion": unsupported,
        "invalidHeaderFields": invalid_header_fields,
        "malformedLines": read.malformed.to_json(),
        "blankLines": read.blank.to_json(),
        "skippedFalsyLines": read.falsy.to_json(),
        "nonEntryLines": read.non_entries.to_json(),
        "extraHeaderLines": read.extra_headers.to_json(),
        "oversizeRecords": read.oversize.to_json(),
        "crlfLines": read.crlf_lines,
        "unterminatedTail": read.unterminated_tail,
        "duplicateIds": {"count": len(duplicate_ids), "ids": duplicate_ids[:DIAGNOSTIC_SAMPLE]},
        "brokenAncestry": {
            "missingParents": broken["missing-parent"].to_json("ids"),
            "cycles": broken["cycle"].to_json("ids"),
            "leafPathTruncated": leaf_path_truncated,
        },
    }


def inspect_session(path: str | os.PathLike[str], leaf: Any = DEFAULT_LEAF) -> dict[str, Any]:
    """Read ``path`` and describe it at ``leaf`` (an entry id, ``None`` for an empty leaf, or
    :data:`DEFAULT_LEAF`)."""
    return describe_session(load_session(path), leaf)


def describe_session(session: SessionFile, leaf: Any = DEFAULT_LEAF) -> dict[str, Any]:
    """:func:`inspect_session` of a session already loaded."""
    header = session.header
    tree = session.tree()
    legacy = session.legacy_version is not None
    leaf_id = inspected_leaf(leaf, tree.default_leaf_id, lambda entry_id: tree.get(entry_id) is not None,
                             session.legacy_version)
    result: dict[str, Any] = {
        "file": {"path": session.path, "size": session.size, "sha256": session.sha256},
        "version": header.get("version"),
        "sessionId": session.session_id,
        "cwd": header.get("cwd"),
        "parentSession": header.get("parentSession"),
        "entryCount": len(session.entries),
        "defaultLeafId": None if legacy else entry_id_text(tree.default_leaf_id),
        "leafId": entry_id_text(leaf_id),
    }
    if legacy:
        # Never treated as version 3: no tree and no context are built from a legacy file.
        walk_missing, walk_cycle = None, False
        result.update(pathIds=[], contextEntryIds=[], context=[], settings={"model": None, "thinkingLevel": "off"})
        result["toolExchange"] = {"activeIssueCount": 0, "historicalIssueCount": 0}
        result["contextError"] = None
    else:
        walk_missing, walk_cycle = _describe_context(session, tree, leaf_id, result)
    result["diagnostics"] = _diagnostics(session, walk_missing, walk_cycle)
    return result


def inspected_leaf(leaf: Any, default_leaf: Any, known: Callable[[str], bool], legacy: int | None = None) -> Any:
    """The entry id a description is at: Pi's default leaf, none, or an entry of the session
    (``known``; a legacy file has no entry ids), the exact path's and the model's alike."""
    if leaf is DEFAULT_LEAF:
        return None if legacy is not None else default_leaf
    if leaf is None:
        return None
    if not isinstance(leaf, str):
        raise ContractViolation(Code.INVALID_LEAF, "the leaf must be an entry id or null")
    if legacy is not None:
        raise ContractViolation(
            Code.UNSUPPORTED_SOURCE_VERSION, f"version {legacy} session files have no entry ids; Pi would rewrite it"
        )
    if not known(leaf):
        raise ContractViolation(Code.UNKNOWN_LEAF, f"entry {leaf} is not in the session")
    return leaf


def _describe_context(session: SessionFile, tree: SessionTree, leaf_id: Any,
                      result: dict[str, Any]) -> tuple[Any, bool]:
    """The branch, the compaction-aware context, its settings and the tool-exchange analysis at
    ``leaf_id`` into ``result``; the session path's missing parent and cycle."""
    branch = tree.branch(leaf_id)
    session_path = tree.session_path(leaf_id)
    with open_session_file(session.path) as stream:
        path_values = [session.decode(stream, record) for record in session_path.path]
        branch_values = (
            path_values
            if branch.path == session_path.path
            else [session.decode(stream, record) for record in branch.path]
        )
    context_values = context_entries(path_values)
    result["pathIds"] = [entry_id_text(record.id) for record in branch.path]
    result["contextEntryIds"] = [entry_id_text(value.get("id", UNDEFINED)) if isinstance(value, dict) else None
                                 for value in context_values]
    try:
        messages = context_messages(context_values)
        settings = context_settings(path_values)
        result["context"] = messages
        result["settings"] = settings.to_json()
        result["toolExchange"] = analyse(messages, context_messages(branch_values)).to_json()
        result["contextError"] = None
    except UnbuildableContext as exc:
        result["context"] = None
        result["settings"] = None
        result["toolExchange"] = None
        result["contextError"] = str(exc)
    return session_path.missing_parent, session_path.cycle


def describe_node(path: str | os.PathLike[str], entry_id: str) -> dict[str, Any]:
    """One entry's place in the tree: its ancestry, children and siblings, in file order."""
    session = load_session(path)
    if session.legacy_version is not None:
        raise ContractViolation(
            Code.UNSUPPORTED_SOURCE_VERSION, f"version {session.legacy_version} session files have no entry ids"
        )
    tree = session.tree()
    record = tree.get(entry_id)
    if record is None:
        raise ContractViolation(Code.UNKNOWN_ENTRY, f"entry {entry_id} is not in the session")
    walk = tree.ancestry(record)
    return {
        "id": entry_id,
        "type": record.type,
        "parentId": entry_id_text(record.parent_id),
        "ancestorIds": [entry_id_text(r.id) for r in walk.path[:-1]],
        "childIds": [entry_id_text(r.id) for r in tree.children_of(entry_id)],
        "siblingIds": [entry_id_text(r.id) for r in tree.siblings_of(record)],
        "isRoot": tree.parent_of(record) is None,
        "missingParent": entry_id_text(walk.missing_parent),
        "cycle": walk.cycle,
    }
