"""Rules of contract §2.4-§2.5 that this port deliberately leaves out (issue 26): each test names
the clause and shows what the port does instead; features/unobservable.toml (via the lead's
mapping) gives the decision and the reason no scenario can see the rule."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from testkit.pilines import jsonl, message, ts
from testkit.rebased import rebased_source

from reference.config.defaults import default_config
from reference.primitives.clock import ManualClock
from reference.primitives.codes import Code
from reference.recall.envelope import RecallResult
from reference.recall.service import HistoryHost, HistoryService

EXCLUDED = "lineage-source-excluded"


def _session(path: Path, session_id: str, cwd: Path, text: str) -> None:
    path.write_bytes(jsonl([
        {"type": "session", "version": 3, "id": session_id, "timestamp": ts(0), "cwd": str(cwd)},
        message(f"{session_id}-m", None, 1, "user", text),
    ]))


def _recall(host: HistoryHost, index: Path, params: dict[str, object]) -> RecallResult:
    result = HistoryService(host, index_path=str(index), clock=ManualClock(1)).recall(params)
    assert isinstance(result, RecallResult), result
    return result


def test_the_history_host_has_no_runtime_phase_and_answers_in_either_context_mode(tmp_path: Path) -> None:
    """C2.4-4: the port has no DS4 runtime whose phase could be degraded, disabled or closed; the
    history host (decisions D9) carries no phase, and recall answers the same whether
    context.mode is observer or managed. Its only runtime-unavailable is an index it cannot open
    (C2.4-3, RECALL-032)."""
    assert not [field.name for field in dataclasses.fields(HistoryHost) if "phase" in field.name.lower()]
    project = tmp_path / "project"
    project.mkdir()
    session = tmp_path / "current.jsonl"
    _session(session, "s-current", project, "Keep PhaseMarker stable.")
    for mode in ("observer", "managed"):
        config = default_config()
        config["context"]["mode"] = mode
        host = HistoryHost(session_file=str(session), project_path=str(project), project_trusted=True,
                           config=config, provider="ollama", session_id="s-current")
        result = _recall(host, tmp_path / f"index-{mode}.sqlite", {"query": "`PhaseMarker`"}).as_json()
        assert (result["status"], result["warnings"]) == ("complete", []), (mode, result)
        assert [hit["entryId"] for hit in result["hits"]] == ["s-current-m"], (mode, result)


def test_project_scope_skips_no_session_for_an_exclusion_list(tmp_path: Path) -> None:
    """C2.5-25: the port has no project-memory exclusion list (docs/decisions.md H3), so every
    same-project session in the folder is searched; only the current file, another id's cwd and
    the current id are left out (C2.5-22..24)."""
    project = tmp_path / "project"
    project.mkdir()
    folder = tmp_path / "sessions"
    folder.mkdir()
    current = folder / "current.jsonl"
    _session(current, "s-current", project, "Nothing here.")
    for name in ("one", "two"):
        _session(folder / f"{name}.jsonl", f"s-{name}", project, "Keep ExcludeMarker stable.")
    config = default_config()
    config["historyTools"]["allowProjectScope"] = True
    host = HistoryHost(session_file=str(current), project_path=str(project), project_trusted=True,
                       config=config, provider="ollama", session_id="s-current")
    result = _recall(host, tmp_path / "index.sqlite", {"query": "`ExcludeMarker`", "scope": "project"}).as_json()
    assert (result["status"], result["warnings"]) == ("complete", []), result
    assert sorted(hit["entryId"] for hit in result["hits"]) == ["s-one-m", "s-two-m"], result
    assert EXCLUDED not in {member.value for member in Code}


def test_a_lineage_ancestor_is_never_skipped_as_excluded(tmp_path: Path) -> None:
    """C2.5-12: with no exclusion list (H3) a verified lineage ancestor is always synced and
    searched as lineage-ancestor, and lineage-source-excluded is never added."""
    project, _source, target, index = rebased_source(tmp_path)
    header = json.loads(target.read_text(encoding="utf-8").splitlines()[0])
    host = HistoryHost(session_file=str(target), project_path=str(project), project_trusted=True,
                       config=default_config(), session_id=header["id"], provider="ollama")
    result = _recall(host, index, {"query": "`LastExportUtc`", "scope": "current-lineage"})
    assert EXCLUDED not in result.warnings and list(result.warnings) == [], result.warnings
    assert [(hit.ref.entry_id, hit.ref.relation) for hit in result.hits] == [("old", "lineage-ancestor")]


@pytest.mark.parametrize("scope", ["current-branch", "current-session", "current-lineage", "project"])
def test_no_scope_ever_warns_lineage_source_excluded(tmp_path: Path, scope: str) -> None:
    """C2.5-12, C2.5-25: the code that reports an excluded session is never part of a result."""
    project = tmp_path / "project"
    project.mkdir()
    session = tmp_path / "current.jsonl"
    _session(session, "s-current", project, "Keep ScopeMarker stable.")
    config = default_config()
    config["historyTools"]["allowProjectScope"] = True
    host = HistoryHost(session_file=str(session), project_path=str(project), project_trusted=True,
                       config=config, provider="ollama", session_id="s-current")
    result = _recall(host, tmp_path / "index.sqlite", {"query": "`ScopeMarker`", "scope": scope})
    assert EXCLUDED not in result.warnings
