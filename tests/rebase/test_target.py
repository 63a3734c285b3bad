"""The target bytes: a Pi v3 session whose context is the handoff message (contract §6.8;
decision D2)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from testkit.checkpoints import CREATED, PROJECT, SOURCE, build, operation, problems, upstream_fixture

from reference.artifacts.checkpoint import CHECKPOINT_TYPE, HANDOFF_TYPE, LINK_TYPE, handoff_content
from reference.pi.exact.context import context_entries, context_messages
from reference.pi.exact.inspection import inspect_session
from reference.primitives.clock import ManualClock
from reference.primitives.jsonbytes import js_stringify
from reference.primitives.jsvalues import to_iso_string
from reference.rebase.operation_journal import OperationJournal
from reference.rebase.target import stage_target, target_entry_ids


def test_the_target_bytes_are_a_pi_v3_session() -> None:
    checkpoint = build(upstream_fixture())
    op = operation(checkpoint)
    target = stage_target(op, checkpoint)
    assert target.data.endswith(b"\n") and b"\r" not in target.data
    lines = target.data.decode().split("\n")[:-1]
    assert len(lines) == 4
    values = [json.loads(line) for line in lines]
    assert [js_stringify(value) for value in values] == lines
    header, cp_entry, link_entry, handoff_entry = values
    assert list(header) == ["type", "version", "id", "timestamp", "cwd", "parentSession"]
    assert header == {"type": "session", "version": 3, "id": op["targetSessionId"],
                      "timestamp": to_iso_string(CREATED), "cwd": PROJECT, "parentSession": SOURCE}
    assert list(cp_entry) == list(link_entry) == ["type", "customType", "data", "id", "parentId", "timestamp"]
    assert list(handoff_entry) == ["type", "customType", "content", "display", "id", "parentId", "timestamp"]
    assert [cp_entry["customType"], link_entry["customType"], handoff_entry["customType"]] == [
        CHECKPOINT_TYPE, LINK_TYPE, HANDOFF_TYPE]
    assert cp_entry["parentId"] is None
    assert link_entry["parentId"] == cp_entry["id"] and handoff_entry["parentId"] == link_entry["id"]
    assert [e["id"] for e in values[1:]] == target_entry_ids(op["targetSessionId"])
    assert all(len(e["id"]) == 8 and int(e["id"], 16) >= 0 for e in values[1:])
    assert cp_entry["data"] == checkpoint and link_entry["data"] == target.entries[1]["data"]
    assert handoff_entry["content"] == handoff_content(checkpoint) and handoff_entry["display"] is False
    assert target.sha256 == hashlib.sha256(target.data).hexdigest() and target.size == len(target.data)
    assert problems(header, "pi/session-header.schema.json") == []
    for entry in values[1:]:
        assert problems(entry, "pi/entry.schema.json") == []
    assert problems(cp_entry, "rebase/checkpoint.schema.json#/$defs/entry") == []
    assert problems(link_entry, "rebase/link.schema.json#/$defs/entry") == []
    assert problems(handoff_entry, "rebase/handoff.schema.json") == []
    journal = OperationJournal(ManualClock(), None)
    journal.adopt(op, persisted=False)
    journal.fingerprint(target.sha256, target.size)
    fingerprinted = journal.operation
    assert problems({**fingerprinted, "phase": "CheckpointReady"}, "rebase/journal.schema.json") == []


def test_the_target_context_is_the_handoff_message(tmp_path: Path) -> None:
    checkpoint = build(upstream_fixture())
    target = stage_target(operation(checkpoint), checkpoint)
    file = tmp_path / "ds4-target.jsonl"
    file.write_bytes(target.data)
    seen = inspect_session(file)
    assert seen["version"] == 3 and seen["sessionId"] == operation(checkpoint)["targetSessionId"]
    assert seen["parentSession"] == SOURCE
    assert seen["diagnostics"]["malformedLines"]["count"] == 0
    assert len(seen["context"]) == 1
    handoff = seen["context"][0]
    assert handoff["role"] == "custom" and handoff["customType"] == HANDOFF_TYPE
    assert handoff["content"] == handoff_content(checkpoint)
    assert handoff["display"] is False and "details" not in json.loads(js_stringify(handoff))
    # The same through the pure context functions.
    assert context_messages(context_entries(list(target.entries)))[0]["content"] == handoff_content(checkpoint)


def test_a_rebuilt_target_is_byte_identical() -> None:
    op = operation(build(upstream_fixture()))
    first = stage_target(op, build(upstream_fixture()))
    rebuilt = stage_target(json.loads(js_stringify(op)), build(upstream_fixture()))
    assert rebuilt.data == first.data and rebuilt.sha256 == first.sha256
