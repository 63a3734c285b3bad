"""Carrying pins and session memory into the continuation (contract §6.14)."""

from __future__ import annotations

from typing import Any

from testkit.checkpoints import PROJECT, SOURCE, build, problems
from testkit.pilines import message, ts

from reference.artifacts.memory import MEMORY_TYPE, PIN_TYPE, MemorySnapshot, snapshot_memory


def custom(entry_id: str, parent: str | None, second: int, custom_type: str, data: Any) -> dict[str, Any]:
    return {"type": "custom", "customType": custom_type, "data": data, "id": entry_id, "parentId": parent,
            "timestamp": ts(second)}


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
    result = snapshot(memory_session(), inherited=MemorySnapshot(
        (inherited_pin, deleted, project), ({"id": "mem-1", "scope": "session", "status": "active", "claim": "old"},)))
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
