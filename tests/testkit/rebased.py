"""A rebased session on disk, for the tests that look at a target and its lineage source."""

from __future__ import annotations

from pathlib import Path

from reference.config.defaults import default_config
from reference.primitives.clock import ManualClock
from reference.rebase.host import RebaseHost
from reference.rebase.service import RebaseRequest, RebaseService
from testkit.pilines import jsonl, message, ts


def rebased_source(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A source with a compaction, rebased once: (project, source, target, index)."""
    project, sessions = tmp_path / "project", tmp_path / "sessions"
    project.mkdir()
    sessions.mkdir()
    source = sessions / "2025-06-01T12-00-00-000Z_source.jsonl"
    source.write_bytes(jsonl([
        {"type": "session", "version": 3, "id": "s-source", "timestamp": ts(0), "cwd": str(project)},
        message("old", None, 1, "user", "LastExportUtc old original decision"),
        message("answer", "old", 2, "assistant", "Noted."),
        {"type": "compaction", "id": "compact", "parentId": "answer", "timestamp": ts(3),
         "summary": "Earlier work summarized", "firstKeptEntryId": "answer", "tokensBefore": 1000},
        message("task", "compact", 4, "user", "Continue the implementation"),
    ]))
    index = tmp_path / "agent" / "index.sqlite"
    host = RebaseHost(session_file=str(source), project_path=str(project), project_trusted=True,
                      config=default_config())
    result = RebaseService(host, clock=ManualClock(1_767_229_200_000), index_path=str(index)).rebase(
        RebaseRequest.of()).result.to_json()
    return project, source, sessions / f"ds4-{result['operationId']}.jsonl", index
