"""One minimal valid request per operation of protocol v1, for ``conformance smoke``.

Each request follows its operation's ``params`` in ``schemas/adapter/v1/operations.schema.json``
(a test holds every one of them to it) and needs no earlier scenario: the files it names are made
in a :class:`SmokeFolder` (Pi home, agent dir, project, sessions) from the packaged fixture
``linear``. The order of :func:`minimal_requests` is the order they are sent: an operation that
works on a history or a rebase comes after the ``history.open`` or ``rebase.open`` that makes it.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.protocol import JsonObject
from conformance.suite import fixture_manifest, fixture_path
from conformance.world import HistoryProject

#: The packaged session the file-reading operations and the history and rebase hosts open.
SESSION_FIXTURE: Final = "linear"
#: The id a rebase host hands out for its target, so a run names no random file.
TARGET_ID: Final = "01972b5c-0000-7000-8000-00000000a0a0"


@dataclass(frozen=True)
class SmokeFolder:
    """The files of a smoke run, under one temporary folder."""

    project: HistoryProject
    session: Path
    leaf: str

    @classmethod
    def make(cls, root: Path) -> SmokeFolder:
        """Pi home, agent dir, project and sessions folders under ``root``, and a copy of the fixture."""
        project = HistoryProject(home=root / "home", agent=root / "home" / "agent", cwd=root / "project",
                                 folder=root / "sessions", trusted=True)
        for folder in (project.home, project.agent, project.cwd, project.folder):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        session = project.folder / "current.jsonl"
        shutil.copyfile(fixture_path(SESSION_FIXTURE), session)
        session.chmod(0o600)
        leaf = str(fixture_manifest()[SESSION_FIXTURE]["facts"]["defaultLeafId"])
        return cls(project, session, leaf)


def minimal_requests(folder: SmokeFolder) -> dict[str, JsonObject]:
    """Operation name -> its minimal valid params, in the order they are sent."""
    host = folder.project.host_params()
    session = str(folder.session)
    index = str(folder.project.index_path)
    return {
        "host.facts": host,
        "config.show": host,
        "config.set": {**host, "path": "historyTools.maxResults", "value": "8", "global": False},
        "config.unset": {**host, "path": "historyTools.maxResults", "global": False},
        "session.records": {"path": session},
        "session.inspect": {"path": session},
        "session.node": {"path": session, "id": folder.leaf},
        "json.canonicalize": {"text": '{"b":1,"a":[true,null]}'},
        "text.measure": {"text": "smoke"},
        "text.slice": {"text": "smoke", "maxUnits": 3},
        "path.canonical": {"path": str(folder.project.cwd)},
        "path.sessionDirName": {"cwd": str(folder.project.cwd)},
        "clock.set": {"nowMs": 1_748_779_200_000},
        "clock.advance": {"ms": 1000},
        "history.open": {**host, "sessionFile": session, "indexPath": index},
        "history.setLeaf": {"leaf": folder.leaf},
        "history.setProvider": {"provider": "ollama"},
        "history.setAborted": {"aborted": False},
        "history.status": {"arguments": {}},
        "history.recall": {"arguments": {"query": "readManifest"}},
        "history.read": {"arguments": {"id": folder.leaf}},
        "history.contextEvent": {"messages": []},
        "history.providerRequest": {"payload": {"messages": []}},
        "history.restart": {},
        "egress.sanitize": {"payload": {"messages": []}, "provider": "ollama"},
        "rebase.open": {**host, "sessionFile": session, "indexPath": index, "targetSessionIds": [TARGET_ID]},
        "rebase.setFacts": {"idle": True},
        "rebase.run": {"mode": "dry-run"},
        "rebase.beforeCompact": {},
        "rebase.crash": {"point": "Prepared"},
    }
