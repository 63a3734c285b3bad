"""Project-scope recall on sessions written by the real Pi 0.84.3: the fast paths (one FTS
statement for all sources, remembered sibling catch-ups) give the envelope of the per-source
loop, apart from refs.

One folder holds the ``--recall`` marker sessions and the ordinary random sessions of
``oracle/gen-sessions.mjs`` (as ``test_recall_on_pi_sessions.py`` makes them), all with the temp
project as header ``cwd``.  From several of them as the current session, with the default and a
small discovery cap, every query is asked of a long-lived service and of the plain form.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

pytestmark = pytest.mark.oracle

SEED = 20250611
QUERIES = ("pelican", "build script", "session", "rebase refactor", "naïve Straße", "function error", "`a/b/c`",
           "test file path", "quoted single", "`$HOME`", "日本語", "json", "pelican json error")


def _header(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_bytes().split(b"\n", 1)[0])
    return value


def test_project_recall_fast_paths_match_the_per_source_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from testkit.retrieval_oracle import retrieve_alone

    import reference.recall.recall_tool as recall_tool
    from reference.config.defaults import default_config
    from reference.primitives.clock import ManualClock
    from reference.recall.project_scope import ProjectSessions
    from reference.recall.scope import ScopeResolver
    from reference.recall.service import HistoryHost, HistoryService

    project = (tmp_path / "project").resolve()
    project.mkdir()
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name, extra in (("recall", ["--recall"]), ("random", [])):
        out = tmp_path / name
        _pi.run_node(_pi.GEN_SCRIPT, [str(out), "--seed", str(SEED), "--count", "8", *extra, "--cwd", str(project)])
        for path in sorted(out.glob("*.jsonl")):
            shutil.copyfile(path, folder / f"{name}-{path.name}")
    files = sorted(folder.glob("*.jsonl"))
    assert len(files) >= 12
    index = tmp_path / "index.sqlite"

    def service(current: Path, cap: int | None) -> HistoryService:
        config = default_config()
        config["historyTools"]["allowProjectScope"] = True
        if cap is not None:
            config["historyTools"]["maxProjectSessions"] = cap
        host = HistoryHost(session_file=str(current), project_path=str(project), project_trusted=True, config=config,
                           provider="anthropic", session_id=_header(current)["id"])
        return HistoryService(host, index_path=str(index), clock=ManualClock(0))

    def per_source(conn: Any, sources: Any, query: Any) -> Any:
        return [retrieve_alone(conn, source.session_id, source.authorized_ids, query) for source in sources]

    def without_refs(result: dict[str, Any]) -> dict[str, Any]:
        return {**result, "hits": [{k: v for k, v in hit.items() if k != "sourceRef"} for hit in result["hits"]]}

    compared = hits = 0
    sessions_seen: set[str] = set()
    for current in files[::3]:
        for cap in (None, 5):
            kept = service(current, cap)
            for query in QUERIES:
                for extra in ({}, {"limit": 4}, {"includeSummaries": True}, {"roles": ["assistant", "toolResult"]}):
                    params = {"query": query, "scope": "project", **extra}
                    fast = kept.recall(params).as_json()
                    # the plain form remembers no public ids (its fresh service, no privacy findings)
                    with monkeypatch.context() as patch:
                        patch.setattr(recall_tool, "retrieve", per_source)
                        plain_service = service(current, cap)
                        plain_service.scopes = ScopeResolver()
                        plain_service.scopes._project = ProjectSessions(remember=False)
                        plain = plain_service.recall(params).as_json()
                    assert fast["status"] in ("complete", "partial"), (fast["warnings"], params, current.name)
                    assert without_refs(fast) == without_refs(plain), (current.name, cap, params)
                    compared += 1
                    hits += len(fast["hits"])
                    sessions_seen.update(hit["sessionId"] for hit in fast["hits"])
    assert compared >= 400 and hits > compared and len(sessions_seen) >= 6
