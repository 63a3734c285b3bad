"""Clauses of contract §2.7/§2.12 and §3.5 that only a row vanishing between the catch-up and the
lookup shows: every catch-up repairs missing locators (§5.1), so through the adapter protocol only a
concurrent writer could cause them; here the lookup itself is made to miss (issue 26)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from testkit.history_service import CWD, SESSION_ID, history_service, write_session

from reference.config.defaults import default_config
from reference.primitives.clock import ManualClock
from reference.primitives.jsonbytes import js_stringify
from reference.rebase.host import RebaseHost
from reference.rebase.service import RebaseRequest, RebaseService
from reference.recall import hits, read_tool
from reference.recall.catchup import catch_up
from reference.recall.host_facts import HistoryHost
from reference.recall.service import HistoryService

T0 = 1_767_225_600_000


def _no_locator(_conn: Any, _entry_key: str) -> None:
    return None


@pytest.fixture
def service_and_hits(tmp_path: Path) -> tuple[Any, dict[str, Any]]:
    write_session(tmp_path / "s.jsonl", 12)
    service = history_service(tmp_path / "s.jsonl", tmp_path / "index.sqlite")
    found = service.recall({"query": "heron"}).as_json()
    assert found["status"] == "complete" and len(found["hits"]) == 2, found
    return service, found


def test_a_hit_without_its_index_locator_is_skipped_with_index_source_missing(
        service_and_hits: tuple[Any, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """C2.12-11 (C2.7-1): a hit whose stored row is gone adds index-source-missing and is skipped;
    any warning makes the result partial (C2.12-15)."""
    service, _ = service_and_hits
    monkeypatch.setattr(hits, "entry_locator", _no_locator)
    result = service.recall({"query": "heron"}).as_json()
    assert (result["status"], result["coverage"], result["hits"]) == ("partial", "partial", []), result
    assert result["warnings"] == ["index-source-missing"], result


def test_a_read_without_its_locator_is_source_unavailable(
        service_and_hits: tuple[Any, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """C3.5-2, C3.5-3: no locator for ``<sessionId>:<entryId>`` is source-unavailable."""
    service, found = service_and_hits
    ref = found["hits"][0]["sourceRef"]
    assert service.read({"sourceRef": ref}).as_json()["status"] == "complete"
    monkeypatch.setattr(read_tool, "entry_locator", _no_locator)
    result = service.read({"sourceRef": ref}).as_json()
    assert (result["status"], result["warnings"]) == ("unavailable", ["source-unavailable"]), result


# ---------------------------------------------------------------- a lineage source that cannot sync


def _lineage_target(tmp_path: Path) -> tuple[Path, Path]:
    """A source session in ``project`` and its verified rebase target (one lineage pair)."""
    project, folder = tmp_path / "project", tmp_path / "sessions"
    project.mkdir()
    folder.mkdir()
    source = folder / "source.jsonl"
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "source-1", "timestamp": "2026-01-01T00:00:00.000Z",
         "cwd": str(project)},
        {"type": "message", "id": "old", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "LastExportUtc old original decision", "timestamp": T0 + 1000}},
        {"type": "message", "id": "task", "parentId": "old", "timestamp": "2026-01-01T00:00:03.000Z",
         "message": {"role": "user", "content": "Continue the implementation", "timestamp": T0 + 3000}},
    ]
    source.write_bytes(b"".join(js_stringify(line).encode() + b"\n" for line in lines))
    host = RebaseHost(session_file=str(source), project_path=str(project), project_trusted=True,
                      config=default_config())
    result = RebaseService(host, clock=ManualClock(T0 + 60_000)).rebase(RebaseRequest()).result.to_json()
    assert result["status"] == "verified", result
    return project, folder / f"ds4-{result['operationId']}.jsonl"


def test_a_lineage_source_that_cannot_sync_warns_lineage_source_unavailable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """C2.12-4 (C2.5-14): a verified lineage source whose catch-up fails is left out with
    lineage-source-unavailable; the current session still answers, and the result is partial."""
    project, target = _lineage_target(tmp_path)
    target_id = json.loads(target.read_text().splitlines()[0])["id"]
    host = HistoryHost(session_file=str(target), project_path=str(project), project_trusted=True,
                       config=default_config(), provider="ollama", session_id=target_id)
    service = HistoryService(host, index_path=str(tmp_path / "index.sqlite"), clock=ManualClock(T0 + 120_000))
    query = {"query": "`LastExportUtc`", "scope": "current-lineage"}
    found = service.recall(query).as_json()
    assert (found["status"], [h["entryId"] for h in found["hits"]]) == ("complete", ["old"]), found

    def failing_for_the_source(conn: Any, session_file: str, **kwargs: Any) -> Any:
        if Path(session_file).name == "source.jsonl":
            raise OSError("the source cannot be read now")
        return catch_up(conn, session_file, **kwargs)

    monkeypatch.setattr("reference.recall.scope.catch_up", failing_for_the_source)
    result = service.recall(query).as_json()
    assert (result["status"], result["coverage"]) == ("partial", "partial"), result
    assert result["warnings"] == ["lineage-source-unavailable"] and result["hits"] == [], result


def test_a_folder_that_cannot_be_listed_is_project_discovery_unavailable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """C2.12-6 (C2.5-20): project discovery that cannot list the session folder keeps the sources
    found so far (the current session) and reports only project-discovery-unavailable."""
    write_session(tmp_path / "s.jsonl", 12)
    config = default_config()
    config["historyTools"] = {**config["historyTools"], "allowProjectScope": True}
    host = HistoryHost(session_file=str(tmp_path / "s.jsonl"), project_path=CWD, project_trusted=True,
                       config=config, provider="ollama", session_id=SESSION_ID)
    service = HistoryService(host, index_path=str(tmp_path / "index.sqlite"), clock=ManualClock(0))
    query = {"query": "heron", "scope": "project"}
    assert service.recall(query).as_json()["warnings"] == []

    def unlistable(_path: Any) -> Any:
        raise PermissionError("the folder cannot be listed")

    monkeypatch.setattr(os, "scandir", unlistable)  # what project discovery lists with
    result = service.recall(query).as_json()
    assert (result["status"], result["warnings"]) == ("partial", ["project-discovery-unavailable"]), result
    assert [h["entryId"] for h in result["hits"]] == ["e00006", "e00000"], result


RECALL_CODES = (
    # C2.12-1: the unavailable codes
    "aborted", "disabled", "runtime-unavailable", "invalid-query", "invalid-scope", "invalid-budget", "invalid-date",
    "invalid-date-range", "invalid-role", "invalid-filter", "ephemeral-session", "source-scope-mismatch",
    "project-scope-disabled", "project-untrusted", "history-unavailable",
    # C2.12-2 .. C2.12-14: the warning codes
    "source-coverage-partial", "lineage-source-excluded", "lineage-source-unavailable",
    "lineage-integrity-unavailable", "lineage-depth-limit", "checkpoint-memory-provenance-invalid",
    "canonical-session-unavailable", "project-discovery-unavailable", "project-discovery-limit",
    "project-source-unavailable", "retrieval-degraded", "lexical-retrieval-disabled", "index-source-missing",
    "source-unavailable-or-changed", "privacy-omitted", "output-budget",
)


def test_every_recall_code_of_the_contract_is_catalogued() -> None:
    """C2.12: each code is a contract code with exactly this spelling, documented in docs/errors.md;
    lineage-source-excluded (C2.12-3) only answers an exclusion list this port does not build
    (docs/decisions.md H3), so it is neither catalogued nor ever emitted."""
    from reference.primitives.codes import Code

    root = Path(__file__).parents[2]
    errors = (root / "docs" / "errors.md").read_text(encoding="utf-8")
    for code in RECALL_CODES:
        if code == "lineage-source-excluded":
            assert code not in {member.value for member in Code}
            continue
        assert Code(code) == code
        assert f"`{code}`" in errors, code
    decisions = (root / "docs" / "decisions.md").read_text(encoding="utf-8")
    assert "**H3. No exclusion list.**" in decisions
