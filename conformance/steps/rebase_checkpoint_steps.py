"""Then steps on the target's checkpoint, handoff and link entries (contract §6.6, §6.13, §6.14)."""

from __future__ import annotations

import json

from pytest_bdd import parsers, then

from conformance.interop_layout import (
    checkpoint_id,
    sha256_hex,
)
from conformance.protocol import Adapter
from conformance.steps.rebase_files import (
    HANDOFF_CLOSE,
    HANDOFF_OPEN,
    LIMITATIONS,
    LINK_TYPE,
    checkpoint_data,
    custom_entries,
    handoff_entry,
    records,
)
from conformance.world import RebaseWorld


@then(parsers.parse('the checkpoint classification is "{level}" and the handoff message carries it'))
def then_classification(rebase: RebaseWorld, level: str) -> None:
    checkpoint = checkpoint_data(rebase)
    assert checkpoint["classification"] == level, checkpoint["classification"]
    entry = handoff_entry(rebase)
    assert entry["content"] == f"[ds4:{level}]{checkpoint['handoff']}[/ds4:{level}]"
    assert entry["display"] is False


@then("the checkpoint id shares the operation id's suffix")
def then_checkpoint_id(rebase: RebaseWorld) -> None:
    checkpoint = checkpoint_data(rebase)
    assert checkpoint["id"] == checkpoint_id(rebase.expected_operation_id())


@then(parsers.parse('the checkpoint captures the source at leaf "{leaf}" with {compactions:d} compaction'))
@then(parsers.parse('the checkpoint captures the source at leaf "{leaf}" with {compactions:d} compactions'))
def then_checkpoint_source(rebase: RebaseWorld, leaf: str, compactions: int) -> None:
    checkpoint = checkpoint_data(rebase)
    data = rebase.opened_bytes
    header = json.loads(data.split(b"\n", 1)[0])
    assert (checkpoint["sourceSessionId"], checkpoint["sourceLeafId"]) == (header["id"], leaf), checkpoint
    assert (checkpoint["sourceSize"], checkpoint["sourceHash"]) == (len(data), sha256_hex(data)), checkpoint
    assert checkpoint["sourceCompactionCount"] == compactions, checkpoint


@then(parsers.parse("the checkpoint was created at {now:d} ms, its verification state is unknown and its limitations are the result's warnings"))
def then_checkpoint_state(rebase: RebaseWorld, now: int) -> None:
    checkpoint = checkpoint_data(rebase)
    assert checkpoint["createdAt"] == now, checkpoint["createdAt"]
    assert checkpoint["verificationState"] == "unknown", checkpoint
    assert checkpoint["limitations"] == LIMITATIONS, checkpoint
    assert rebase.last["warnings"] == LIMITATIONS, rebase.last  # actual == expected, as the report reads it


@then(parsers.parse('the handoff has eight lines and quotes the context entries "{ids}" as one JSON string'))
def then_handoff_lines(rebase: RebaseWorld, ids: str) -> None:
    lines = checkpoint_data(rebase)["handoff"].split("\n")
    assert len(lines) == 8, lines
    assert (lines[0], lines[7]) == (HANDOFF_OPEN, HANDOFF_CLOSE), lines
    canonical = json.loads(lines[6])
    assert isinstance(canonical, str), lines[6]
    assert [json.loads(part)["id"] for part in canonical.split("\n")] == ids.split(), canonical


@then(parsers.parse('the handoff contains "{text}"'))
def then_handoff_contains(rebase: RebaseWorld, text: str) -> None:
    assert text in checkpoint_data(rebase)["handoff"]


@then(parsers.parse('the handoff does not contain "{text}"'))
def then_handoff_lacks(rebase: RebaseWorld, text: str) -> None:
    assert text not in checkpoint_data(rebase)["handoff"]
    assert text not in handoff_entry(rebase)["content"]


@then(parsers.parse('line {number:d} of the handoff mentions "{words}"'))
def then_handoff_line_mentions(rebase: RebaseWorld, number: int, words: str) -> None:
    """Line ``number`` (1-based) holds every word, in any case: the wording of lines 2-6 is the
    port's own (contract §6.6), what each statement says is not."""
    lines = checkpoint_data(rebase)["handoff"].split("\n")
    line = lines[number - 1].lower()
    missing = [word for word in words.split() if word.lower() not in line]
    assert not missing, (missing, lines[number - 1])


@then("the link binds the checkpoint by its hash to the source prefix and the target")
def then_link(adapter: Adapter, rebase: RebaseWorld) -> None:
    checkpoint = checkpoint_data(rebase)
    link = custom_entries(rebase, LINK_TYPE)[0]["data"]
    serialized = adapter.request("json.canonicalize", {"text": json.dumps(checkpoint)})["text"]
    header = records(rebase.target)[0]
    assert link["checkpointHash"] == sha256_hex(serialized.encode("utf-8")), link
    assert link["checkpointId"] == checkpoint["id"] and link["operationId"] == rebase.operation_id, link
    for key in ("sourceSessionId", "sourceLeafId", "sourceSize", "sourceHash"):
        assert link[key] == checkpoint[key], key
    assert link["sourceSessionFile"] == rebase.canonical_source, link
    assert link["projectPath"] == str(rebase.history.project.cwd), link
    assert link["targetSessionId"] == header["id"], link


@then(parsers.parse('the checkpoint carries the pins "{pins}" and the memories "{memories}"'))
def then_items(rebase: RebaseWorld, pins: str, memories: str) -> None:
    checkpoint = checkpoint_data(rebase)
    assert [p["id"] for p in checkpoint["pins"]] == pins.split(), checkpoint["pins"]
    assert [m["id"] for m in checkpoint["memories"]] == memories.split(), checkpoint["memories"]
    for item in (*checkpoint["pins"], *checkpoint["memories"]):
        assert item["status"] == "active" and item["scope"] != "project", item
        provenance = item["provenance"]
        assert provenance["sourceSessionId"] == checkpoint["sourceSessionId"], provenance
        assert provenance["sourceSessionFile"] == rebase.canonical_source, provenance


@then(parsers.parse('the checkpoint carries the active pins "{pins}" and the active memories "{memories}", '
                    'inherited or its own, in any order'))
def then_carried_ids(rebase: RebaseWorld, pins: str, memories: str) -> None:
    """A continuation's checkpoint (§6.14), whose items may come from an ancestor: only their ids,
    in any order, and their status are checked, not the scope and provenance the step above checks."""
    checkpoint = checkpoint_data(rebase)
    assert sorted(p["id"] for p in checkpoint["pins"]) == sorted(pins.split()), checkpoint["pins"]
    assert sorted(m["id"] for m in checkpoint["memories"]) == sorted(memories.split()), checkpoint["memories"]
    for item in (*checkpoint["pins"], *checkpoint["memories"]):
        assert item["status"] == "active", item


@then(parsers.parse('the carried pin "{pin_id}" keeps its original content "{content}" and its {field} "{value}"'))
def then_pin_identity(rebase: RebaseWorld, pin_id: str, content: str, field: str, value: str) -> None:
    pin = next(p for p in checkpoint_data(rebase)["pins"] if p["id"] == pin_id)
    assert pin["content"] == content and str(pin[field]) == value, pin
