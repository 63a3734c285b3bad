"""A generated session and a HistoryService over it, for tests of the service as a whole."""

from __future__ import annotations

from pathlib import Path

from reference.config.defaults import default_config
from reference.primitives.clock import ManualClock
from reference.recall.service import HistoryHost, HistoryService
from testkit.pilines import jsonl, message, ts

CWD = "/home/user/projects/history"
SESSION_ID = "s-history"
WORDS = ("heron", "quokka", "marmot", "ibis", "tapir", "okapi")


def write_session(path: Path, count: int = 300) -> None:
    """``count`` user messages in a chain, the n-th saying ``WORDS[n % 6] note n`` and filler."""
    records = [{"type": "session", "version": 3, "id": SESSION_ID, "timestamp": ts(0), "cwd": CWD}]
    parent = None
    for n in range(count):
        records.append(message(f"e{n:05d}", parent, n + 1, "user", f"{WORDS[n % len(WORDS)]} note {n} " + "filler " * 20))
        parent = f"e{n:05d}"
    path.write_bytes(jsonl(records))


def history_service(session: Path, index: Path) -> HistoryService:
    """A service for a local provider (nothing omitted), trusted project, default configuration."""
    host = HistoryHost(session_file=str(session), project_path=CWD, project_trusted=True, config=default_config(),
                       provider="ollama", session_id=SESSION_ID)
    return HistoryService(host, index_path=str(index), clock=ManualClock(0))
