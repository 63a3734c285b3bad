"""The deterministic checkpoint, link, handoff and target bytes (contract §6.6, §6.8, §6.13,
§6.14; decisions D2, D3, D8)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.pilines import message, ts

from conformance.schemas import describe, errors
from reference.artifacts.checkpoint import (
    CHECKPOINT_TYPE,
    HANDOFF_CLOSE,
    HANDOFF_OPEN,
    HANDOFF_PREAMBLE,
    HANDOFF_TYPE,
    LIMITATIONS,
    LINK_TYPE,
    build_checkpoint,
    build_handoff,
    build_link,
    canonical_context,
    checkpoint_hash,
    handoff_content,
)
from reference.artifacts.ids import checkpoint_id
from reference.artifacts.journal import new_operation, with_target_fingerprint
from reference.artifacts.memory import MEMORY_TYPE, PIN_TYPE, MemorySnapshot, snapshot_memory
from reference.artifacts.pair import find_pair, verify_handoff, verify_pair
from reference.pi.context import context_entries, context_messages
from reference.pi.inspection import inspect_session
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify
from reference.primitives.textunits import chars_v1_tokens, utf16_length
from reference.rebase.target import iso_timestamp, stage_target, target_entry_ids

PROJECT = "/home/u/proj"
SOURCE = "/home/u/.pi/agent/sessions/--home-u-proj--/2025-06-01T12-00-00-000Z_source.jsonl"
CREATED = 1_750_000_000_000






def custom(entry_id: str, parent: str | None, second: int, custom_type: str, data: Any) -> dict[str, Any]:
    return {"type": "custom", "customType": custom_type, "data": data, "id": entry_id, "parentId": parent,
            "timestamp": ts(second)}


def upstream_fixture() -> list[dict[str, Any]]:
    """The upstream integration fixture: old, answer, a compaction keeping answer, then task."""
    return [
        message("old", None, 1, "user", "LastExportUtc old original decision"),
        message("answer", "old", 2, "assistant", "Noted."),
        {"type": "compaction", "id": "compact", "parentId": "answer", "timestamp": ts(3),
         "summary": "Earlier work summarized", "firstKeptEntryId": "answer", "tokensBefore": 1000},
        message("task", "compact", 4, "user", "Continue the implementation"),
    ]


def build(path: list[dict[str, Any]], *, target_tokens: int = 8000, **kwargs: Any) -> dict[str, Any]:
    return build_checkpoint(
        source_session_id="source", source_leaf_id=path[-1]["id"], source_size=4321, source_hash="ab" * 32,
        branch=path, context_entries=context_entries(path), created_at=CREATED, target_tokens=target_tokens,
        **kwargs,
    )


def code_of(call: Any) -> str:
    with pytest.raises(ContractViolation) as caught:
        call()
    return caught.value.code


def problems(instance: Any, ref: str) -> list[str]:
    return [describe(e) for e in errors(instance, ref)]


def operation(checkpoint: dict[str, Any]) -> dict[str, Any]:
    return new_operation(
        project_path=PROJECT, source_session_id=checkpoint["sourceSessionId"],
        source_session_file=SOURCE, source_leaf_id=checkpoint["sourceLeafId"],
        source_size=checkpoint["sourceSize"], source_hash=checkpoint["sourceHash"],
        target_session_id="0190d7a0-0000-7000-8000-00000000beef", now_ms=CREATED,
    )


# ----------------------------------------------------------------------------------------------
# the checkpoint object


def test_the_checkpoint_has_the_upstream_keys_in_order_and_validates() -> None:
    path = upstream_fixture()
    checkpoint = build(path)
    assert list(checkpoint) == [
        "sourceSessionId", "sourceLeafId", "sourceSize", "sourceHash", "sourceCompactionCount", "createdAt",
        "classification", "pins", "memories", "schemaVersion", "id", "handoff", "verificationState", "limitations",
    ]
    assert checkpoint["id"] == checkpoint_id("source", "task", "ab" * 32)
    assert checkpoint["sourceCompactionCount"] == 1
    assert checkpoint["createdAt"] == CREATED
    assert checkpoint["verificationState"] == "unknown"
    assert checkpoint["limitations"] == list(LIMITATIONS)
    assert checkpoint["classification"] == "normal"
    assert problems(checkpoint, "rebase/checkpoint.schema.json") == []


def test_the_handoff_quotes_exactly_the_compaction_aware_context() -> None:
    path = upstream_fixture()
    handoff = build(path)["handoff"]
    lines = handoff.split("\n")
    assert len(lines) == 8
    assert lines[0] == HANDOFF_OPEN and lines[-1] == HANDOFF_CLOSE
    assert tuple(lines[1:6]) == HANDOFF_PREAMBLE
    quoted = json.loads(lines[6])
    assert quoted == canonical_context(context_entries(path))
    # The compacted-away user message is not in the handoff; the kept and later ones are.
    assert [json.loads(line)["id"] for line in quoted.split("\n")] == ["compact", "answer", "task"]
    assert "LastExportUtc" not in handoff and "Continue the implementation" in handoff
    # Same total length as the upstream wording of lines 2-6, so budgets agree to the token.
    assert sum(utf16_length(line) for line in HANDOFF_PREAMBLE) == 418


def test_building_is_deterministic() -> None:
    first, second = build(upstream_fixture()), build(upstream_fixture())
    assert js_stringify(first) == js_stringify(second)
    assert stage_target(operation(first), first).data == stage_target(operation(second), second).data


def test_the_active_leaf_not_the_last_row_decides() -> None:
    path = upstream_fixture()
    sibling = message("wrong", "task", 5, "user", "WRONG_SIBLING_PAYLOAD")
    checkpoint = build(path)  # the branch to "task"; the sibling is not on it
    assert "WRONG_SIBLING_PAYLOAD" not in checkpoint["handoff"]
    assert "WRONG_SIBLING_PAYLOAD" in build([*path, sibling])["handoff"]


def body_for_tokens(tokens: int) -> list[dict[str, Any]]:
    """A one-message branch whose whole handoff is exactly ``tokens`` chars-v1 tokens."""
    def handoff_units(n: int) -> int:
        entry = message("m", None, 1, "user", "x" * n)
        return utf16_length(build_handoff(canonical_context([entry])))
    n = tokens * 4 - handoff_units(0)
    entry = message("m", None, 1, "user", "x" * n)
    assert handoff_units(n) == tokens * 4
    return [entry]


@pytest.mark.parametrize("budget", [512, 8000, 24_000])
def test_budget_boundaries_nothing_is_clipped(budget: int) -> None:
    exact = body_for_tokens(budget)
    text = exact[0]["message"]["content"][0]["text"]
    checkpoint = build(exact, target_tokens=budget)
    assert chars_v1_tokens(checkpoint["handoff"]) == budget
    assert f'\\"text\\":\\"{text}\\"' in checkpoint["handoff"]  # whole, inside the quoted context
    one_more = [message("m", None, 1, "user", text + "x")]
    assert code_of(lambda: build(one_more, target_tokens=budget)) == "checkpoint-budget"
    if budget < 24_000:
        assert f'\\"text\\":\\"{text}x\\"' in build(one_more, target_tokens=budget + 1)["handoff"]


@pytest.mark.parametrize("budget", [511, 24_001, 0, -1, 8000.5, True, "8000", None])
def test_the_budget_must_be_an_integer_from_512_to_24000(budget: Any) -> None:
    assert code_of(lambda: build(upstream_fixture(), target_tokens=budget)) == "checkpoint-budget"


def test_a_4000_char_message_does_not_fit_512_tokens() -> None:
    assert code_of(lambda: build([message("m", None, 1, "user", "y" * 4000)], target_tokens=512)) == "checkpoint-budget"


def test_an_empty_context_is_checkpoint_empty() -> None:
    assert code_of(lambda: build_checkpoint(
        source_session_id="s", source_leaf_id="l", source_size=1, source_hash="ab" * 32, branch=[],
        context_entries=[], created_at=CREATED, target_tokens=8000)) == "checkpoint-empty"


def test_item_limits_and_the_checkpoint_size_limit() -> None:
    path = upstream_fixture()
    pin: dict[str, Any] = {"id": "p", "scope": "session", "content": "c", "status": "active", "createdAt": 1, "updatedAt": 1,
           "provenance": {"sourceSessionId": "s", "mutationEntryId": "e", "sourceEntryIds": [], "contradicts": []}}
    assert len(build(path, pins=[pin] * 1000)["pins"]) == 1000
    assert code_of(lambda: build(path, pins=[pin] * 1001)) == "checkpoint-memory-budget"
    assert code_of(lambda: build(path, memories=[{}] * 1001)) == "checkpoint-memory-budget"
    # Counted before the context: too many items win over an empty context.
    assert code_of(lambda: build_checkpoint(
        source_session_id="s", source_leaf_id="l", source_size=1, source_hash="ab" * 32, branch=[],
        context_entries=[], created_at=CREATED, target_tokens=8000, pins=[pin] * 1001)) == "checkpoint-memory-budget"
    base = len(js_stringify(build(path, pins=[pin])))
    big = {**pin, "content": "c" + "z" * (1_048_576 - base)}
    assert utf16_length(js_stringify(build(path, pins=[big]))) == 1_048_576
    bigger = {**pin, "content": big["content"] + "z"}
    assert code_of(lambda: build(path, pins=[bigger])) == "checkpoint-memory-budget"
    astral = {**pin, "content": "c" + "😀" * ((1_048_576 - base) // 2 + 1)}  # UTF-16 units count
    assert code_of(lambda: build(path, pins=[astral])) == "checkpoint-memory-budget"


def test_classification_is_raised_by_markers_and_history_results() -> None:
    path = upstream_fixture()
    assert build(path, default_classification="internal")["classification"] == "internal"
    marked = [*path, message("s", "task", 5, "user", "[ds4:sensitive]token[/ds4:sensitive]")]
    assert build(marked)["classification"] == "sensitive"
    result = json.dumps({"schema": "ds4-history-result-v1", "quotedData": True, "status": "complete",
                         "hits": [{"classification": "local-only", "excerpt": "private-context-from-local"}]})
    read = {"type": "message", "id": "r", "parentId": "task", "timestamp": ts(6),
            "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "context_history_read",
                        "content": [{"type": "text", "text": result}], "isError": False, "timestamp": 6}}
    assert build([*path, read])["classification"] == "local-only"


@given(st.text(max_size=3000))
def test_the_handoff_either_fits_whole_or_is_refused(text: str) -> None:
    path = [message("m", None, 1, "user", text)]
    try:
        checkpoint = build(path, target_tokens=600)
    except ContractViolation as exc:
        assert exc.code == "checkpoint-budget"
        assert chars_v1_tokens(build_handoff(canonical_context(path))) > 600
        return
    assert chars_v1_tokens(checkpoint["handoff"]) <= 600
    assert json.loads(checkpoint["handoff"].split("\n")[6]) == canonical_context(path)


# ----------------------------------------------------------------------------------------------
# hash, link and target


def test_the_checkpoint_hash_is_sha256_of_json_stringify() -> None:
    checkpoint = build(upstream_fixture())
    expected = hashlib.sha256(json.dumps(checkpoint, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()
    assert checkpoint_hash(checkpoint) == expected  # no floats or odd characters in this one
    reordered = {"id": checkpoint["id"], **checkpoint}
    assert checkpoint_hash(reordered) != expected  # the key order is part of the hash


def test_the_link_binds_the_checkpoint() -> None:
    checkpoint = build(upstream_fixture())
    link = build_link(operation_id=operation(checkpoint)["id"], checkpoint=checkpoint, source_session_file=SOURCE,
                      project_path=PROJECT, target_session_id="t")
    assert list(link) == ["schemaVersion", "operationId", "checkpointId", "checkpointHash", "sourceSessionId",
                          "sourceSessionFile", "sourceLeafId", "sourceSize", "sourceHash", "projectPath",
                          "targetSessionId"]
    assert link["checkpointHash"] == checkpoint_hash(checkpoint)
    assert link["operationId"].removeprefix("rebase_") == link["checkpointId"].removeprefix("checkpoint_")
    assert problems(link, "rebase/link.schema.json") == []


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
                      "timestamp": iso_timestamp(CREATED), "cwd": PROJECT, "parentSession": SOURCE}
    assert list(cp_entry) == list(link_entry) == ["type", "customType", "data", "id", "parentId", "timestamp"]
    assert list(handoff_entry) == ["type", "customType", "content", "display", "id", "parentId", "timestamp"]
    assert [cp_entry["customType"], link_entry["customType"], handoff_entry["customType"]] == [
        CHECKPOINT_TYPE, LINK_TYPE, HANDOFF_TYPE]
    assert cp_entry["parentId"] is None
    assert link_entry["parentId"] == cp_entry["id"] and handoff_entry["parentId"] == link_entry["id"]
    assert [e["id"] for e in values[1:]] == target_entry_ids(op["targetSessionId"])
    assert all(len(e["id"]) == 8 and int(e["id"], 16) >= 0 for e in values[1:])
    assert cp_entry["data"] == checkpoint and link_entry["data"] == target.link
    assert handoff_entry["content"] == handoff_content(checkpoint) and handoff_entry["display"] is False
    assert target.sha256 == hashlib.sha256(target.data).hexdigest() and target.size == len(target.data)
    assert problems(header, "pi/session-header.schema.json") == []
    for entry in values[1:]:
        assert problems(entry, "pi/entry.schema.json") == []
    assert problems(cp_entry, "rebase/checkpoint.schema.json#/$defs/entry") == []
    assert problems(link_entry, "rebase/link.schema.json#/$defs/entry") == []
    assert problems(handoff_entry, "rebase/handoff.schema.json") == []
    fingerprinted = with_target_fingerprint(op, target.sha256, target.size)
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


# ----------------------------------------------------------------------------------------------
# the pair checks of the lineage verifier


def staged_pair() -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    checkpoint = build(upstream_fixture())
    target = stage_target(operation(checkpoint), checkpoint)
    return target, target.header, list(target.entries)


def check(cp_entry: Any, link_entry: Any, header: Any, **kwargs: Any) -> str | None:
    args: dict[str, Any] = dict(header=header, current_file=SOURCE.rsplit("/", 1)[0] + "/ds4-x.jsonl",
                                project_path=PROJECT, canonical=lambda p: p, cwd="/")
    args.update(kwargs)
    return verify_pair(cp_entry, link_entry, **args)


def test_a_staged_pair_verifies() -> None:
    _, header, entries = staged_pair()
    pair = find_pair(entries)
    assert pair.checkpoint_entry is entries[0] and pair.link_entry is entries[1] and pair.handoff_entry is entries[2]
    assert check(pair.checkpoint_entry, pair.link_entry, header) is None
    assert verify_handoff(pair.handoff_entry, pair.checkpoint_entry["data"], header=header, project_path=PROJECT,
                          canonical=lambda p: p) is None
    assert find_pair([]) == find_pair([message("m", None, 1, "user", "x")])


def test_tampering_is_found() -> None:
    _, header, entries = staged_pair()
    cp_entry, link_entry, handoff_entry = entries

    def with_data(entry: dict[str, Any], **change: Any) -> dict[str, Any]:
        return {**entry, "data": {**entry["data"], **change}}

    assert check(with_data(cp_entry, handoff=cp_entry["data"]["handoff"] + " "), link_entry, header) == "checkpoint-hash"
    assert check(with_data(cp_entry, id="checkpoint_" + "0" * 32), link_entry, header) == "checkpoint-id"
    assert check(cp_entry, with_data(link_entry, schemaVersion=2), header) == "link"
    assert check(None, link_entry, header) == "checkpoint-missing"
    assert check(cp_entry, link_entry, {**header, "version": 2}) == "header-version"
    assert check(cp_entry, link_entry, {**header, "id": "other"}) == "target-session"
    assert check(cp_entry, with_data(link_entry, sourceSize=1), header) == "sourceSize"
    assert check(cp_entry, with_data(link_entry, sourceSessionFile="/elsewhere/s.jsonl"), header) == "source-directory"
    assert check(cp_entry, link_entry, header, project_path="/home/u/other") == "project"
    assert check(cp_entry, link_entry, header, visited={"source"}) == "cycle"
    # A reordered checkpoint is the same data but not the same bytes.
    reordered = {**cp_entry, "data": dict(reversed(list(cp_entry["data"].items())))}
    assert check(reordered, link_entry, header) == "checkpoint-hash"
    checkpoint = cp_entry["data"]
    edited = {**handoff_entry, "content": handoff_entry["content"].replace("Deterministic", "Trusted")}
    kwargs: dict[str, Any] = dict(header=header, project_path=PROJECT, canonical=lambda p: p)
    assert verify_handoff(edited, checkpoint, **kwargs) == "handoff-content"
    assert verify_handoff(None, checkpoint, **kwargs) == "handoff-missing"
    assert verify_handoff(handoff_entry, {**checkpoint, "classification": "secret"}, **kwargs) == "handoff-content"
    assert verify_handoff(handoff_entry, checkpoint, **{**kwargs, "project_path": "/x"}) == "target-cwd"


def test_oversized_items_and_handoffs_fail_the_pair() -> None:
    _, header, entries = staged_pair()
    cp_entry = entries[0]
    changes: list[dict[str, Any]] = [{"pins": [{}] * 1001}, {"memories": None}, {"handoff": "h" * 120_001}]
    for change in changes:
        data = {**cp_entry["data"], **change}
        link = {**entries[1], "data": {**entries[1]["data"], "checkpointHash": checkpoint_hash(data)}}
        assert check({**cp_entry, "data": data}, link, header) in ("items", "handoff-size")


# ----------------------------------------------------------------------------------------------
# pins and session memory (§6.14)


def pin_add(pin_id: str, scope: str, content: str, mutation: str, **item: Any) -> dict[str, Any]:
    return {"schemaVersion": 1, "mutationId": mutation, "operation": "add", "createdAt": 1,
            "item": {"id": pin_id, "scope": scope, "content": content, "createdAt": 1, **item}}


def memory_add(memory_id: str, scope: str, claim: str, mutation: str, **item: Any) -> dict[str, Any]:
    return {"schemaVersion": 1, "mutationId": mutation, "operation": "add", "createdAt": 1,
            "item": {"id": memory_id, "scope": scope, "claim": claim, "createdAt": 1, "sourceEntryIds": [], **item}}


def memory_session() -> list[dict[str, Any]]:
    """A branch old -> task with pins and memories, plus a sibling branch off old."""
    return [
        message("old", None, 1, "user", "LastExportUtc old original decision"),
        message("side", "old", 2, "user", "a sibling branch"),
        message("task", "old", 3, "user", "Continue"),
        custom("p1", "task", 4, PIN_TYPE, pin_add("pin-branch", "branch", "LastExportUtc", "m1",
                                                    branchLeafId="task", sourceEntryId="old", classification="internal")),
        custom("p2", "p1", 5, PIN_TYPE, pin_add("pin-project", "project", "proj", "m2", projectPath=PROJECT)),
        custom("p3", "p2", 6, PIN_TYPE, pin_add("pin-side", "branch", "side only", "m3", branchLeafId="side")),
        custom("p4", "p3", 7, PIN_TYPE, pin_add("pin-session", "session", "session pin", "m4",
                                                  sourceEntryId="gone")),
        custom("p5", "p4", 8, PIN_TYPE, pin_add("pin-deleted", "session", "deleted", "m5")),
        custom("p6", "p5", 9, PIN_TYPE, {"schemaVersion": 1, "mutationId": "m6", "operation": "status",
                                           "pinId": "pin-deleted", "status": "deleted", "createdAt": 9}),
        custom("n1", "p6", 10, MEMORY_TYPE, memory_add("mem-1", "session", "LastExportUtc stays nullable", "n1",
                                                       key="lastexportutc", sourceEntryIds=["task", "old", "gone"])),
        custom("n2", "n1", 11, MEMORY_TYPE, memory_add("mem-project", "project", "p", "n2", projectPath=PROJECT)),
        custom("n3", "n2", 12, MEMORY_TYPE, memory_add("mem-2", "session", "LastExportUtc is required", "n3",
                                                       key="lastexportutc")),
        custom("n4", "n3", 13, MEMORY_TYPE, memory_add("mem-3", "session", "Use tabs", "n4")),
        custom("n5", "n4", 14, MEMORY_TYPE, {"schemaVersion": 1, "mutationId": "n5", "operation": "status",
                                             "memoryId": "mem-3", "status": "invalid", "reason": "wrong",
                                             "createdAt": 14}),
        custom("n6", "n5", 15, MEMORY_TYPE, memory_add("mem-4", "session", "Newest", "n6")),
        custom("bad", "n6", 16, MEMORY_TYPE, {"schemaVersion": 2, "mutationId": "x"}),
        custom("dup", "bad", 17, MEMORY_TYPE, memory_add("mem-dup", "session", "duplicate id", "n6")),
    ]


def snapshot(entries: list[dict[str, Any]], **kwargs: Any) -> MemorySnapshot:
    by_id = {e["id"]: e for e in entries}
    branch: list[str] = []
    leaf: str | None = entries[-1]["id"]
    while leaf is not None:
        branch.append(leaf)
        leaf = by_id[leaf]["parentId"]
    args: dict[str, Any] = dict(session_id="source", session_file=SOURCE, branch_ids=set(branch))
    args.update(kwargs)
    return snapshot_memory(entries, **args)


def ms(second: int) -> int:
    return 1_748_779_200_000 + second * 1000


def test_pins_follow_the_carry_rules_with_original_identity() -> None:
    pins = snapshot(memory_session()).pins
    assert [p["id"] for p in pins] == ["pin-branch", "pin-session"]
    branch_pin, session_pin = pins
    assert branch_pin == {
        "id": "pin-branch", "scope": "branch", "sessionId": "source", "branchLeafId": "task",
        "classification": "internal", "content": "LastExportUtc", "status": "active",
        "createdAt": ms(4), "updatedAt": ms(4), "sourceEntryId": "old",
        "provenance": {"sourceSessionId": "source", "sourceSessionFile": SOURCE, "mutationEntryId": "p1",
                       "sourceBranchEntryId": "task", "sourceEntryIds": ["old", "p1"], "contradicts": []},
    }
    # A source entry that is not in the session is dropped from the item, kept in the provenance.
    assert "sourceEntryId" not in session_pin
    assert session_pin["provenance"]["sourceEntryIds"] == ["gone", "p4"]
    for pin in pins:
        assert problems(pin, "rebase/checkpoint.schema.json#/$defs/pin") == []


def test_memories_follow_the_carry_rules_newest_first() -> None:
    memories = snapshot(memory_session()).memories
    # mem-2 lost the key to mem-1, mem-3 was invalidated, the project one is never carried,
    # the malformed and the duplicate-mutation entries are ignored.
    assert [m["id"] for m in memories] == ["mem-4", "mem-1"]
    first = memories[1]
    assert list(first) == ["id", "scope", "sessionId", "key", "claim", "status", "createdAt", "updatedAt",
                           "originSessionId", "sourceEntryIds", "provenance"]
    assert first["createdAt"] == ms(10) and first["originSessionId"] == "source"
    assert first["sourceEntryIds"] == ["old", "task", "n1"]  # existing entries only, by entry time
    assert first["provenance"]["sourceEntryIds"] == ["n1", "task", "old", "gone"]
    assert first["provenance"]["contradicts"] == ["mem-2"]
    for memory in memories:
        assert problems(memory, "rebase/checkpoint.schema.json#/$defs/memory") == []


def test_superseded_pins_and_memories() -> None:
    supersede = {"schemaVersion": 1, "mutationId": "s1", "operation": "supersede", "previousId": "pin-branch",
                 "createdAt": 20, "item": {"id": "pin-new", "scope": "branch", "branchLeafId": "task",
                                           "content": "LastExportUtc v2", "createdAt": 20}}
    entries = [*memory_session()[:4], custom("s1", "p1", 20, PIN_TYPE, supersede)]
    pins = snapshot(entries).pins
    assert [p["id"] for p in pins] == ["pin-new"]
    assert pins[0]["provenance"]["supersedes"] == "pin-branch"
    assert pins[0]["createdAt"] == ms(20)


def test_only_the_branch_leaf_decides_a_branch_pin() -> None:
    entries = memory_session()
    on_side = snapshot(entries, branch_ids={"old", "side"}).pins
    assert [p["id"] for p in on_side] == ["pin-side", "pin-session"]


def test_inherited_items_come_first_and_keep_their_session() -> None:
    inherited_pin = {"id": "pin-old", "scope": "branch", "sessionId": "grandparent", "branchLeafId": "elsewhere",
                     "content": "inherited", "status": "active", "createdAt": 1, "updatedAt": 1,
                     "provenance": {"sourceSessionId": "grandparent", "mutationEntryId": "g1",
                                    "sourceEntryIds": ["g1"], "contradicts": []}}
    deleted = {**inherited_pin, "id": "pin-gone", "status": "deleted"}
    project = {**inherited_pin, "id": "pin-proj", "scope": "project"}
    result = snapshot(memory_session(), inherited_pins=[inherited_pin, deleted, project],
                      inherited_memories=[{"id": "mem-1", "scope": "session", "status": "active", "claim": "old"}])
    assert [p["id"] for p in result.pins] == ["pin-old", "pin-branch", "pin-session"]
    # The native item replaces the inherited one with its id, in the inherited place.
    assert [m["id"] for m in result.memories] == ["mem-1", "mem-4"]
    assert result.memories[0]["claim"] == "LastExportUtc stays nullable"


def test_a_checkpoint_carries_the_snapshot() -> None:
    entries = memory_session()
    path = [entries[0], entries[2]]
    carried = snapshot(entries, branch_ids={"old", "task"})
    checkpoint = build(path, pins=carried.pins, memories=carried.memories)
    assert [p["id"] for p in checkpoint["pins"]] == ["pin-branch", "pin-session"]
    assert [m["id"] for m in checkpoint["memories"]] == ["mem-4", "mem-1"]
    assert problems(checkpoint, "rebase/checkpoint.schema.json") == []
    # Items are frozen copies: changing the snapshot afterwards does not change the checkpoint.
    carried.pins[0]["content"] = "changed"
    carried.pins[0]["provenance"]["contradicts"].append("x")
    assert checkpoint["pins"][0]["content"] == "LastExportUtc"
    assert checkpoint["pins"][0]["provenance"]["contradicts"] == []


def test_entry_times_that_do_not_parse() -> None:
    # An entry time JavaScript cannot parse sorts first (SQLite NULL) among a memory's sources,
    # and a mutation whose own entry time does not parse keeps its payload's createdAt.
    odd = {**message("odd", None, 1, "user", "x"), "timestamp": "yesterday"}
    entries = [
        message("first", None, 1, "user", "x"),
        odd,
        {**custom("n1", "first", 2, MEMORY_TYPE, memory_add("mem", "session", "claim", "n1",
                                                            sourceEntryIds=["first", "odd"])),
         "timestamp": "not a date"},
    ]
    memory = snapshot(entries, branch_ids={"first", "n1"}).memories[0]
    assert memory["sourceEntryIds"] == ["n1", "odd", "first"]  # NULL times first, then by id
    assert memory["createdAt"] == 1 and memory["updatedAt"] == 1
