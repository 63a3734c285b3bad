"""The deterministic checkpoint, its hash and the link bytes (contract §6.6, §6.13; decisions D2,
D3, D8)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.checkpoints import CREATED, PROJECT, SOURCE, build, operation, problems, upstream_fixture
from testkit.pilines import message, ts
from testkit.profiles import examples

from reference.artifacts.checkpoint import (
    HANDOFF_CLOSE,
    HANDOFF_OPEN,
    HANDOFF_PREAMBLE,
    LIMITATIONS,
    CheckpointConfig,
    build_checkpoint,
    build_handoff,
    build_link,
    canonical_context,
    checkpoint_hash,
)
from reference.artifacts.ids import RebaseSource, checkpoint_id
from reference.artifacts.memory import MemorySnapshot
from reference.pi.exact.context import context_entries
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify
from reference.primitives.textunits import chars_v1_tokens, utf16_length
from reference.rebase.target import stage_target


def code_of(call: Any) -> str:
    with pytest.raises(ContractViolation) as caught:
        call()
    return caught.value.code



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
        RebaseSource("s", "l", 1, "ab" * 32), branch=[], context_entries=[], created_at=CREATED,
        config=CheckpointConfig(8000))) == "checkpoint-empty"


def test_item_limits_and_the_checkpoint_size_limit() -> None:
    path = upstream_fixture()
    pin: dict[str, Any] = {"id": "p", "scope": "session", "content": "c", "status": "active", "createdAt": 1, "updatedAt": 1,
           "provenance": {"sourceSessionId": "s", "mutationEntryId": "e", "sourceEntryIds": [], "contradicts": []}}
    assert len(build(path, pins=[pin] * 1000)["pins"]) == 1000
    assert code_of(lambda: build(path, pins=[pin] * 1001)) == "checkpoint-memory-budget"
    assert code_of(lambda: build(path, memories=[{}] * 1001)) == "checkpoint-memory-budget"
    # Counted before the context: too many items win over an empty context.
    assert code_of(lambda: build_checkpoint(
        RebaseSource("s", "l", 1, "ab" * 32), branch=[], context_entries=[], created_at=CREATED,
        config=CheckpointConfig(8000), carried=MemorySnapshot((pin,) * 1001))) == "checkpoint-memory-budget"
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


@examples(deep=200, ci=200)
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
# hash and link


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
