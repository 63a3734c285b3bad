"""Lineage verification (contract §6.13) on real rebase chains: the depth limit, carried-item
provenance, and the projections coming back after the index is deleted."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from reference.config.defaults import default_config
from reference.lineage import chain as lineage
from reference.lineage.chain import load_rebase_state
from reference.primitives.clock import ManualClock
from reference.primitives.jsonbytes import js_stringify
from reference.primitives.textunits import sha256_text
from reference.rebase.host import RebaseHost, open_from_disk
from reference.rebase.service import RebaseRequest, RebaseService

T0 = 1_767_225_600_000


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_bytes(b"".join(js_stringify(line).encode() + b"\n" for line in lines))


def _source(tmp_path: Path, *, pin: bool = False) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    folder = tmp_path / "sessions"
    folder.mkdir()
    source = folder / "source.jsonl"
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "source-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(project)},
        {"type": "message", "id": "old", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "LastExportUtc old original decision", "timestamp": T0 + 1000}},
    ]
    parent = "old"
    if pin:
        data = {"schemaVersion": 1, "mutationId": "m1", "operation": "add", "createdAt": T0 + 2000,
                "item": {"id": "pin-1", "scope": "session", "content": "Keep it nullable", "createdAt": T0 + 2000}}
        lines.append({"type": "custom", "customType": "ds4-context-pin-v1", "data": data, "id": "p1",
                      "parentId": "old", "timestamp": "2026-01-01T00:00:02.000Z"})
        parent = "p1"
    lines.append({"type": "message", "id": "task", "parentId": parent, "timestamp": "2026-01-01T00:00:03.000Z",
                  "message": {"role": "user", "content": "Continue the implementation", "timestamp": T0 + 3000}})
    _write(source, lines)
    return project, source


def _rebase(session: Path, project: Path) -> Path:
    host = RebaseHost(session_file=str(session), project_path=str(project), project_trusted=True,
                      config=default_config())
    result = RebaseService(host, clock=ManualClock(T0 + 60_000)).rebase(RebaseRequest()).result.to_json()
    assert result["status"] == "verified", result
    return session.parent / f"ds4-{result['operationId']}.jsonl"


def _continue_with_compaction(target: Path, number: int) -> None:
    """Pi continues the target and compacts it, so the next handoff quotes only the new turn."""
    last = json.loads(target.read_text().splitlines()[-1])["id"]
    stamp = f"2026-01-02T00:{number:02d}:00.000Z"
    user, summary, task = f"u{number:07x}", f"c{number:07x}", f"t{number:07x}"
    entries = [
        {"type": "message", "id": user, "parentId": last, "timestamp": stamp,
         "message": {"role": "user", "content": f"step {number}", "timestamp": T0}},
        {"type": "compaction", "id": summary, "parentId": user, "timestamp": stamp, "summary": "earlier steps",
         "firstKeptEntryId": user, "tokensBefore": 10},
        {"type": "message", "id": task, "parentId": summary, "timestamp": stamp,
         "message": {"role": "user", "content": f"continue {number}", "timestamp": T0}},
    ]
    with target.open("ab") as handle:
        for entry in entries:
            handle.write(js_stringify(entry).encode() + b"\n")


def _state(session: Path, project: Path, conn: sqlite3.Connection | None = None) -> lineage.RebaseState:
    return load_rebase_state(str(session), open_from_disk(str(session)).branch, str(project), conn=conn)


def test_a_chain_reaching_the_limit_warns_lineage_depth_limit(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """With the limit at 2 (16 in the product), the second verified pair on a chain is at the last
    depth: the walk warns, so that target cannot verify and its rebase stays recoverable."""
    monkeypatch.setattr(lineage, "MAX_DEPTH", 2)
    project, source = _source(tmp_path)
    first = _rebase(source, project)
    assert _state(first, project).verified
    _continue_with_compaction(first, 1)
    host = RebaseHost(session_file=str(first), project_path=str(project), project_trusted=True,
                      config=default_config())
    result = RebaseService(host, clock=ManualClock(T0 + 120_000)).rebase(RebaseRequest()).result.to_json()
    assert (result["status"], result["warnings"]) == ("recoverable", ["target-integrity"])
    second = first.parent / f"ds4-{result['operationId']}.jsonl"
    state = _state(second, project)
    assert state.warnings == ["lineage-depth-limit"]
    assert [s.session_id for s in state.sources][-1] == "source-1" and len(state.sources) == 2


def test_a_changed_carried_pin_drops_the_checkpoint(tmp_path: Path) -> None:
    project, source = _source(tmp_path, pin=True)
    target = _rebase(source, project)
    assert _state(target, project).verified
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    checkpoint = lines[1]["data"]
    checkpoint["pins"][0]["content"] = "Something the user never pinned"
    lines[2]["data"]["checkpointHash"] = sha256_text(js_stringify(checkpoint))  # the pair itself still holds
    _write(target, lines)
    state = _state(target, project)
    assert state.warnings == ["checkpoint-memory-provenance-invalid"]
    assert state.checkpoint is None


def test_projections_come_back_after_the_index_is_deleted(tmp_path: Path) -> None:
    from reference.recall.index_schema import open_index

    project, source = _source(tmp_path)
    target = _rebase(source, project)
    index = tmp_path / "index.sqlite"
    for _ in range(2):  # the second time on a brand-new database
        conn = open_index(index)
        try:
            assert _state(target, project, conn).verified
            rows = conn.execute("SELECT source_session_id FROM session_lineage").fetchall()
            operations = conn.execute("SELECT phase FROM rebase_operations").fetchall()
        finally:
            conn.close()
        assert rows == [("source-1",)]
        assert operations == [("Verified",)]
        for leftover in tmp_path.glob("index.sqlite*"):
            leftover.unlink()


def test_a_failed_verification_clears_the_session_rows(tmp_path: Path) -> None:
    from reference.recall.index_schema import open_index

    project, source = _source(tmp_path)
    target = _rebase(source, project)
    conn = open_index(tmp_path / "index.sqlite")
    try:
        assert _state(target, project, conn).verified
        source.write_bytes(source.read_bytes().replace(b"old original", b"new original"))
        assert _state(target, project, conn).warnings == ["lineage-integrity-unavailable"]
        assert conn.execute("SELECT count(*) FROM session_lineage").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM rebase_checkpoints").fetchone() == (0,)
    finally:
        conn.close()
