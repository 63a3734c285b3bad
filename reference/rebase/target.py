"""The target file a rebase installs (contract §6.8; decisions D1): its header, the checkpoint,
link and handoff entries with their ids and timestamps, staged as bytes before any write.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from reference.artifacts.checkpoint import (
    CHECKPOINT_TYPE,
    HANDOFF_TYPE,
    LINK_TYPE,
    build_link,
    handoff_content,
)
from reference.pi.exact.header import CURRENT_VERSION
from reference.primitives.jsonbytes import js_stringify_bytes
from reference.primitives.textunits import sha256_text

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def iso_timestamp(ms: int) -> str:
    """``new Date(ms).toISOString()`` for years 0000-9999."""
    moment = _EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


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
    timestamp = iso_timestamp(int(operation["createdAt"]))
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

