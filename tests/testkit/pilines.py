"""Pi session lines for tests: timestamps, message entries and JSONL bytes, one way everywhere."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from reference.primitives.jsonbytes import js_stringify


def ts(second: int) -> str:
    """An ISO timestamp ``second`` seconds after 2025-06-01T12:00:00Z."""
    return f"2025-06-01T12:{second // 60:02d}:{second % 60:02d}.000Z"


def message(entry_id: str, parent: str | None, second: int, role: str, text: str) -> dict[str, Any]:
    """A Pi message entry; assistant messages carry Pi's provider fields."""
    body: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": second}
    if role == "assistant":
        body.update(api="x", provider="p", model="m", stopReason="stop")
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": ts(second), "message": body}


def jsonl(records: list[dict[str, Any]]) -> bytes:
    """Compact ``JSON.stringify`` lines, each ending in a LF, as Pi writes them."""
    return "".join(js_stringify(record) + "\n" for record in records).encode("utf-8")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compacted_session(session_id: str, cwd: Path) -> list[dict[str, Any]]:
    """A small session ready to rebase: a decision, its answer, a compaction, and the task at the
    leaf ``task`` (the crash campaign's source and the kill-anywhere test's)."""
    return [
        {"type": "session", "version": 3, "id": session_id, "timestamp": ts(0), "cwd": str(cwd)},
        message("old", None, 1, "user", "LastExportUtc old original decision"),
        message("answer", "old", 2, "assistant", "Noted."),
        {"type": "compaction", "id": "compact", "parentId": "answer", "timestamp": ts(3),
         "summary": "Earlier work summarized", "firstKeptEntryId": "answer", "tokensBefore": 1000},
        message("task", "compact", 4, "user", "Continue the implementation"),
    ]
