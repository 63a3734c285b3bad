"""What the lineage verifier checks on a checkpoint/link pair (contract §6.13 step 3): the pair
on a branch, the checks that need no source file, in upstream order, and the handoff.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference.artifacts.checkpoint import (
    CHECKPOINT_TYPE,
    HANDOFF_TYPE,
    LINK_TYPE,
    MAX_HANDOFF_CHARS,
    SCHEMA_VERSION,
    checkpoint_hash,
)
from reference.artifacts.ids import ProjectPaths
from reference.artifacts.memory import MAX_MEMORIES, MAX_PINS, MEMORY_TYPE, PIN_TYPE
from reference.pi.exact.header import is_current_version
from reference.primitives.jsvalues import (
    get,
    strict_equal,
)
from reference.primitives.textunits import utf16_length
from reference.privacy.policy import is_level

#: The ``customType`` of every custom entry a rebase or a lineage step reads from a branch: the
#: pair and handoff, pin and memory mutations (a branch's other custom entries are never decoded
#: for long, docs/rebase.md "Memory").
LINEAGE_CUSTOM_TYPES: Final = frozenset({CHECKPOINT_TYPE, LINK_TYPE, HANDOFF_TYPE, PIN_TYPE, MEMORY_TYPE})


@dataclass(frozen=True)
class RebasePair:
    """The first link, checkpoint and handoff entries on a branch (any may be missing)."""

    link_entry: Any = None
    checkpoint_entry: Any = None
    handoff_entry: Any = None


def _first(branch: Sequence[Any], kind: str, custom_type: str) -> Any:
    return next((e for e in branch if get(e, "type") == kind and get(e, "customType") == custom_type), None)


def find_pair(branch: Sequence[Any]) -> RebasePair:
    """Only the first of each on the active branch counts; ``parentSession`` grants nothing."""
    return RebasePair(
        _first(branch, "custom", LINK_TYPE),
        _first(branch, "custom", CHECKPOINT_TYPE),
        _first(branch, "custom_message", HANDOFF_TYPE),
    )


def _array_within(value: Any, limit: int) -> bool:
    return isinstance(value, list) and len(value) <= limit


def verify_pair(
    pair: RebasePair, *, header: Any, current_file: str, project: ProjectPaths, visited: Collection[Any] = ()
) -> str | None:
    """The pair checks that need no source file, in upstream order; the first failure's name,
    or None.  ``current_file`` is the real path of the file holding the pair, ``header`` its
    parsed header.  The caller still checks the source prefix, header, ids and branch, then
    :func:`verify_handoff`; any failure is ``lineage-integrity-unavailable``."""
    link = get(pair.link_entry, "data")
    if not isinstance(link, dict) or not strict_equal(get(link, "schemaVersion"), SCHEMA_VERSION):
        return "link"
    if pair.checkpoint_entry is None or get(pair.checkpoint_entry, "type") != "custom":
        return "checkpoint-missing"
    cp = get(pair.checkpoint_entry, "data")
    if not is_current_version(get(header, "version")):
        return "header-version"
    if not isinstance(cp, dict) or not strict_equal(get(cp, "schemaVersion"), SCHEMA_VERSION):
        return "checkpoint"
    if not strict_equal(get(cp, "id"), get(link, "checkpointId")):
        return "checkpoint-id"
    if checkpoint_hash(cp) != get(link, "checkpointHash"):
        return "checkpoint-hash"
    for key in ("sourceSessionId", "sourceLeafId", "sourceSize", "sourceHash"):
        if not strict_equal(get(cp, key), get(link, key)):
            return key
    if not strict_equal(get(link, "targetSessionId"), get(header, "id")):
        return "target-session"
    source_file = get(link, "sourceSessionFile")
    if not isinstance(source_file, str) or not project.same_folder(source_file, current_file):
        return "source-directory"
    link_project = get(link, "projectPath")
    if not isinstance(link_project, str) or not project.is_project(link_project):
        return "project"
    source_id = get(link, "sourceSessionId")
    if isinstance(source_id, str) and source_id in visited:
        return "cycle"
    if not _array_within(get(cp, "pins"), MAX_PINS) or not _array_within(get(cp, "memories"), MAX_MEMORIES):
        return "items"
    handoff = get(cp, "handoff")
    if not isinstance(handoff, str) or utf16_length(handoff) > MAX_HANDOFF_CHARS:
        return "handoff-size"
    return None


def verify_handoff(handoff_entry: Any, checkpoint: Any, *, header: Any, project: ProjectPaths) -> str | None:
    """The handoff message must repeat the checkpoint's own handoff exactly, inside markers of a
    valid classification, and the target header's ``cwd`` must be the project."""
    if get(handoff_entry, "type") != "custom_message":
        return "handoff-missing"
    level = get(checkpoint, "classification")
    handoff = get(checkpoint, "handoff")
    content = get(handoff_entry, "content")
    if not is_level(level) or not isinstance(handoff, str) or content != f"[ds4:{level}]{handoff}[/ds4:{level}]":
        return "handoff-content"
    cwd = get(header, "cwd")
    if not isinstance(cwd, str) or not project.is_project(cwd):
        return "target-cwd"
    return None

