"""A real project for the audit's tests: generated sessions, one rebased, all in one reference index.

The session folder holds the rebase's journal; the index holds the operation, checkpoint and
lineage rows, caught up by the reference's own indexer.
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.audit.journals import operations_dir
from reference.config.defaults import default_config
from reference.primitives.clock import ManualClock
from reference.rebase.host import RebaseHost
from reference.rebase.service import RebaseRequest, RebaseService
from reference.recall.catchup import catch_up
from reference.recall.index_schema import open_index
from testkit.pilines import jsonl, message, ts


@dataclass
class Project:
    """A project folder, its sessions folder (with a rebase's journal) and the index of all of it."""

    root: Path
    sessions: Path
    index: Path

    @property
    def journals(self) -> Path:
        return operations_dir(self.sessions)


def write_session(sessions: Path, cwd: Path, session_id: str, count: int) -> Path:
    records: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": session_id, "timestamp": ts(0),
                                      "cwd": str(cwd)}]
    for number in range(count):
        parent = records[-1]["id"] if number else None
        records.append(message(f"{session_id}-{number}", parent, number + 1, ("user", "assistant")[number % 2],
                               f"text {number} of {session_id}"))
    path = sessions / f"2025-06-01T12-00-00-000Z_{session_id}.jsonl"
    path.write_bytes(jsonl(records))
    return path


def rebase_once(project: Path, source: Path, index: Path) -> Path:
    host = RebaseHost(session_file=str(source), project_path=str(project), project_trusted=True,
                      config=default_config())
    result = RebaseService(host, clock=ManualClock(1_750_000_000_000), index_path=str(index)).rebase(RebaseRequest()).result.to_json()
    assert result["status"] == "verified", result
    return Path(host.session_file)


def make_project(root: Path, *, sessions: Path | None = None) -> Project:
    """Three generated sessions, the first rebased, all four session files caught up into one index
    (``<root>/agent/recall-rebase/index.sqlite``); the sessions in ``<root>/sessions`` unless named."""
    project, sessions = root / "project", sessions or root / "sessions"
    project.mkdir()
    sessions.mkdir(parents=True)
    index = root / "agent" / "recall-rebase" / "index.sqlite"
    files = [write_session(sessions, project, name, count) for name, count in (("alpha", 7), ("beta", 5), ("gamma", 3))]
    files.append(rebase_once(project, files[0], index))
    with closing(open_index(index)) as connection:
        for path in files:
            catch_up(connection, str(path))
    return Project(root, sessions, index)
