"""A checkpoint built from the upstream integration fixture, its rebase operation, and schema
problems: what the checkpoint, pair, memory and target tests build on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.schemas import describe, errors
from reference.artifacts.checkpoint import CheckpointConfig, build_checkpoint
from reference.artifacts.ids import RebaseSource
from reference.artifacts.journal import new_operation
from reference.artifacts.memory import MemorySnapshot
from reference.pi.exact.context import context_entries
from testkit.pilines import message, ts

PROJECT = "/home/u/proj"
SOURCE = "/home/u/.pi/agent/sessions/--home-u-proj--/2025-06-01T12-00-00-000Z_source.jsonl"
CREATED = 1_750_000_000_000


def upstream_fixture() -> list[dict[str, Any]]:
    """The upstream integration fixture: old, answer, a compaction keeping answer, then task."""
    return [
        message("old", None, 1, "user", "LastExportUtc old original decision"),
        message("answer", "old", 2, "assistant", "Noted."),
        {"type": "compaction", "id": "compact", "parentId": "answer", "timestamp": ts(3),
         "summary": "Earlier work summarized", "firstKeptEntryId": "answer", "tokensBefore": 1000},
        message("task", "compact", 4, "user", "Continue the implementation"),
    ]


def build(path: list[dict[str, Any]], *, target_tokens: int = 8000, pins: Sequence[dict[str, Any]] = (),
          memories: Sequence[dict[str, Any]] = (), default_classification: str = "normal") -> dict[str, Any]:
    return build_checkpoint(
        RebaseSource("source", path[-1]["id"], 4321, "ab" * 32), branch=path, context_entries=context_entries(path),
        created_at=CREATED, config=CheckpointConfig(target_tokens, default_classification), carried=MemorySnapshot(tuple(pins), tuple(memories)),
    )


def problems(instance: Any, ref: str) -> list[str]:
    return [describe(e) for e in errors(instance, ref)]


def operation(checkpoint: dict[str, Any]) -> dict[str, Any]:
    source = RebaseSource(checkpoint["sourceSessionId"], checkpoint["sourceLeafId"], checkpoint["sourceSize"],
                          checkpoint["sourceHash"])
    return new_operation(
        source, project_path=PROJECT, source_session_file=SOURCE,
        target_session_id="0190d7a0-0000-7000-8000-00000000beef", now_ms=CREATED,
    )
