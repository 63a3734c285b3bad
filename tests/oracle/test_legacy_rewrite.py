"""Pi rewrites a legacy (v1/v2) session file when it opens it; the reference never writes.

This is why every Pi call in the oracle works on a copy, and why ``inspect_session`` must only
report the legacy version instead of migrating in place.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

pytestmark = pytest.mark.oracle


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"


def _v1_file() -> str:
    """Version 1: no ``version`` key, no ids, a compaction pointing at an entry by index."""
    ts = "2025-01-0{}T10:00:00.000Z"
    entries: list[dict[str, Any]] = [
        {"type": "session", "id": "legacy-v1", "timestamp": ts.format(1), "cwd": "/home/user/old", "provider": "anthropic",
         "modelId": "claude-sonnet-4-5", "thinkingLevel": "off"},
        {"type": "message", "timestamp": ts.format(1), "message": {"role": "user", "content": "first question", "timestamp": 1}},
        {"type": "message", "timestamp": ts.format(1), "message": {
            "role": "assistant", "content": [{"type": "text", "text": "first answer"}], "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": 2}},
        {"type": "message", "timestamp": ts.format(2), "message": {"role": "user", "content": "second question — ü", "timestamp": 3}},
        {"type": "message", "timestamp": ts.format(2), "message": {
            "role": "assistant", "content": [{"type": "text", "text": "second answer"}], "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": 4}},
        {"type": "compaction", "timestamp": ts.format(3), "summary": "the first exchange", "firstKeptEntryIndex": 3,
         "tokensBefore": 1000},
        {"type": "thinking_level_change", "timestamp": ts.format(3), "thinkingLevel": "high"},
        {"type": "message", "timestamp": ts.format(4), "message": {"role": "user", "content": "third question", "timestamp": 5}},
    ]
    # The spaced header line is never written by Pi; only a rewrite would normalize it.
    head = json.dumps(entries[0], ensure_ascii=False) + "\n"
    return head + "".join(_line(e) for e in entries[1:])


def _v2_file() -> str:
    """Version 2: ids and parents, but an extension message still has role ``hookMessage``."""
    ts = "2025-02-01T10:00:0{}.000Z"
    entries: list[dict[str, Any]] = [
        {"type": "session", "version": 2, "id": "legacy-v2", "timestamp": ts.format(0), "cwd": "/home/user/old"},
        {"type": "message", "id": "00aa0001", "parentId": None, "timestamp": ts.format(1),
         "message": {"role": "user", "content": "hello", "timestamp": 1}},
        {"type": "message", "id": "00aa0002", "parentId": "00aa0001", "timestamp": ts.format(2),
         "message": {"role": "hookMessage", "customType": "ext", "content": "injected", "display": True, "timestamp": 2}},
        {"type": "message", "id": "00aa0003", "parentId": "00aa0002", "timestamp": ts.format(3),
         "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "provider": "p", "model": "m",
                     "stopReason": "stop", "timestamp": 3}},
    ]
    return "".join(_line(e) for e in entries)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("version", "build"), [(1, _v1_file), (2, _v2_file)], ids=["v1", "v2"])
def test_pi_rewrites_legacy_files_and_the_reference_does_not(tmp_path: Path, version: int, build: Any) -> None:
    from reference.pi.exact.inspection import inspect_session

    original = tmp_path / f"legacy-v{version}.jsonl"
    original.write_text(build(), encoding="utf-8")
    before = _sha256(original)

    # Pi, on a copy: SessionManager.open() migrates and rewrites the copy straight away.
    [answer] = _pi.ask_pi([{"file": str(original), "leaves": [{"default": True}]}], deterministic_ids=True)
    assert "error" not in answer, answer.get("error")
    assert answer["sha256"] == before
    assert answer["rewrittenOnOpen"] is True, "Pi did not rewrite the legacy file on open"
    assert answer["header"]["version"] == 3
    assert answer["fileUnchanged"] is True
    assert _sha256(original) == before

    # The reference, on the original: reads it, reports the legacy version, writes nothing.
    result = inspect_session(str(original))
    assert _sha256(original) == before, "inspect_session modified the legacy file"
    assert result["diagnostics"]["legacyVersion"] == version
    assert result["file"]["sha256"] == before


def test_pi_migration_really_changes_the_bytes(tmp_path: Path) -> None:
    """Guard for the test above: opening the same bytes twice in Pi gives a rewritten v3 both times."""
    original = tmp_path / "legacy.jsonl"
    original.write_text(_v1_file(), encoding="utf-8")
    answers = _pi.ask_pi([{"file": str(original), "leaves": [{"default": True}, None]}] * 2, deterministic_ids=True)
    assert len(answers) == 4
    assert all(a["rewrittenOnOpen"] and a["fileUnchanged"] for a in answers)
    # Deterministic ids: both opens migrate to the same ids (00000001, ...), the compaction keeps
    # the entry that firstKeptEntryIndex 3 named (the second question, 3rd entry -> id 00000003).
    default = answers[0]
    assert default["pathIds"] == [f"{i:08x}" for i in range(1, 8)]
    assert default["contextEntryIds"] == ["00000005", "00000003", "00000004", "00000006", "00000007"]
    assert answers[2]["pathIds"] == default["pathIds"]
    assert answers[1]["pathIds"] == [] and answers[1]["contextJson"]["messages"] == "[]"
