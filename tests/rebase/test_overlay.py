"""Pins and memories through two rebases (contract §6.14): inherited items travel on, and the
continuation's own unpin / invalidate overlays them (real files, real journal, real lock)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from reference.artifacts.memory import overlay_inherited
from reference.config.defaults import default_config
from reference.primitives.clock import ManualClock
from reference.rebase.host import RebaseHost
from reference.rebase.service import RebaseRequest, RebaseService

T0 = 1_767_225_600_000


def _entry(entry_id: str, parent: str | None, second: int, **fields: Any) -> dict[str, Any]:
    return {"id": entry_id, "parentId": parent, "timestamp": f"2026-01-01T00:00:{second:02d}.000Z", **fields}


def _pin_add(entry_id: str, parent: str, second: int, pin_id: str, content: str) -> dict[str, Any]:
    data = {"schemaVersion": 1, "mutationId": f"m-{entry_id}", "createdAt": T0 + second * 1000, "operation": "add",
            "item": {"id": pin_id, "scope": "session", "content": content, "createdAt": T0 + second * 1000}}
    return _entry(entry_id, parent, second, type="custom", customType="ds4-context-pin-v1", data=data)


def _memory_add(entry_id: str, parent: str, second: int, memory_id: str, claim: str) -> dict[str, Any]:
    data = {"schemaVersion": 1, "mutationId": f"m-{entry_id}", "createdAt": T0 + second * 1000, "operation": "add",
            "item": {"id": memory_id, "scope": "session", "claim": claim, "createdAt": T0 + second * 1000,
                     "sourceEntryIds": []}}
    return _entry(entry_id, parent, second, type="custom", customType="ds4-context-memory-v1", data=data)


def _status(entry_id: str, parent: str, second: int, *, pin_id: str | None = None,
            memory_id: str | None = None) -> dict[str, Any]:
    base = {"schemaVersion": 1, "mutationId": f"m-{entry_id}", "createdAt": T0 + second * 1000, "operation": "status"}
    if pin_id is not None:
        data = {**base, "pinId": pin_id, "status": "deleted", "reason": "no longer true"}
        return _entry(entry_id, parent, second, type="custom", customType="ds4-context-pin-v1", data=data)
    data = {**base, "memoryId": memory_id, "status": "invalid"}
    return _entry(entry_id, parent, second, type="custom", customType="ds4-context-memory-v1", data=data)


def _message(entry_id: str, parent: str | None, second: int, role: str, text: str) -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return _entry(entry_id, parent, second, type="message",
                  message={"role": role, "content": content, "timestamp": T0 + second * 1000})


def _append(path: Path, *entries: dict[str, Any]) -> None:
    with path.open("ab") as handle:
        for entry in entries:
            handle.write(json.dumps(entry).encode() + b"\n")


def _service(session: Path, project: Path, ids: list[str]) -> RebaseService:
    host = RebaseHost(session_file=str(session), project_path=str(project), project_trusted=True,
                      config=default_config())
    return RebaseService(host, clock=ManualClock(T0 + 60_000), new_session_id=lambda: ids.pop(0))


def _checkpoint(target: Path) -> dict[str, Any]:
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    data: dict[str, Any] = lines[1]["data"]
    return data


def _source(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    source = sessions / "source.jsonl"
    header = {"type": "session", "version": 3, "id": "source-1", "timestamp": "2026-01-01T00:00:00.000Z",
              "cwd": str(project)}
    _append(source, header, _message("u1", None, 1, "user", "LastExportUtc stays nullable"),
            _message("a1", "u1", 2, "assistant", "noted"),
            _pin_add("p1", "a1", 3, "pin-1", "Keep LastExportUtc nullable"),
            _memory_add("m1", "p1", 4, "memory-1", "LastExportUtc stays nullable"),
            _message("u2", "m1", 5, "user", "Continue the implementation"))
    return project, source


def test_inherited_items_travel_on_and_the_overlay_removes_them(tmp_path: Path) -> None:
    project, source = _source(tmp_path)
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    ids = ["target-1", "target-2", "target-3"]
    first = _service(source, project, ids).rebase(RebaseRequest()).result.to_json()
    assert first["status"] == "verified", first
    assert (first["preservedPins"], first["preservedMemories"]) == (1, 1)
    target = Path(next(str(p) for p in source.parent.glob("ds4-rebase_*.jsonl")))

    # A plain continuation carries the inherited items again, with their original provenance.
    second_target_service = _service(target, project, ["target-2"])
    _append(target, _message("t1", _last_id(target), 10, "user", "next step"))
    dry = second_target_service.rebase(RebaseRequest.of(dry_run=True)).result.to_json()
    assert dry["status"] == "preview", dry
    assert (dry["preservedPins"], dry["preservedMemories"]) == (1, 1)

    # The continuation unpins and invalidates them: its next rebase carries neither.
    _append(target, _status("t2", "t1", 11, pin_id="pin-1"), _status("t3", "t2", 12, memory_id="memory-1"))
    second = _service(target, project, ["target-3"]).rebase(RebaseRequest()).result.to_json()
    assert second["status"] == "verified", second
    assert (second["preservedPins"], second["preservedMemories"]) == (0, 0)
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before
    checkpoint = _checkpoint(Path(str(target.parent / f"ds4-{second['operationId']}.jsonl")))
    assert checkpoint["pins"] == [] and checkpoint["memories"] == []


def test_a_carried_pin_keeps_its_origin_provenance(tmp_path: Path) -> None:
    project, source = _source(tmp_path)
    result = _service(source, project, ["target-1"]).rebase(RebaseRequest()).result.to_json()
    checkpoint = _checkpoint(source.parent / f"ds4-{result['operationId']}.jsonl")
    (pin,) = checkpoint["pins"]
    assert pin["id"] == "pin-1" and pin["provenance"]["sourceSessionId"] == "source-1"
    assert pin["provenance"]["mutationEntryId"] == "p1"


def _last_id(path: Path) -> str:
    last: str = json.loads(path.read_text().splitlines()[-1])["id"]
    return last


def test_overlay_changes_only_copies() -> None:
    inherited = [{"id": "pin-1", "status": "active", "content": "x"}]
    branch = [_status("s1", None, 5, pin_id="pin-1")]
    overlaid = overlay_inherited(inherited, branch, pins=True)
    assert overlaid == [{"id": "pin-1", "status": "deleted", "content": "x", "updatedAt": T0 + 5000,
                         "statusReason": "no longer true"}]
    assert inherited == [{"id": "pin-1", "status": "active", "content": "x"}]


def test_overlay_supersede_marks_the_old_item() -> None:
    inherited = [{"id": "memory-1", "status": "active", "claim": "old"}]
    data = {"schemaVersion": 1, "mutationId": "m-s", "createdAt": T0, "operation": "supersede",
            "previousId": "memory-1", "item": {"id": "memory-2", "scope": "session", "claim": "new",
                                               "createdAt": T0, "sourceEntryIds": []}}
    branch = [_entry("s1", None, 7, type="custom", customType="ds4-context-memory-v1", data=data)]
    (item,) = overlay_inherited(inherited, branch, pins=False)
    assert (item["status"], item["supersededBy"], item["updatedAt"]) == ("superseded", "memory-2", T0 + 7000)
