"""Then steps on the last ``RebaseResult``: status, phase, counts, warnings and what it must not name."""

from __future__ import annotations

import json

from pytest_bdd import parsers, then, when

from conformance.interop_layout import checkpoint_id
from conformance.steps.rebase_files import (
    LIMITATIONS,
    checkpoint_data,
    records,
)
from conformance.world import RebaseWorld


@then(parsers.parse('the rebase result is unavailable with code "{code}"'))
def then_unavailable(rebase: RebaseWorld, code: str) -> None:
    result = rebase.last
    assert result["status"] == "unavailable" and result["warnings"] == [code], result


@then(parsers.parse('the rebase result is recoverable with code "{code}"'))
def then_recoverable(rebase: RebaseWorld, code: str) -> None:
    result = rebase.last
    assert result["status"] == "recoverable" and result["warnings"] == [code], result
    assert result["phase"] == "Recoverable" and result["operationId"] == rebase.operation_id, result


@then("the rebase result is a preview")
def then_preview(rebase: RebaseWorld) -> None:
    result = rebase.last
    assert result["status"] == "preview", result
    assert "phase" not in result and "sessionReplaced" not in result, result


@then("the rebase result is verified and the session was replaced")
def then_verified(rebase: RebaseWorld) -> None:
    result = rebase.last
    assert result["status"] == "verified", result
    assert result["phase"] == "Verified" and result["sessionReplaced"] is True, result
    assert rebase.response["currentSession"] == str(rebase.target), \
        "the host's current session is not the target"


@then(parsers.parse("the rebase result reports session replaced {replaced}"))
def then_replaced(rebase: RebaseWorld, replaced: str) -> None:
    assert rebase.last["sessionReplaced"] is (replaced == "true"), rebase.last


@then("the rebase result carries the three limitations as its warnings")
def then_limitations(rebase: RebaseWorld) -> None:
    assert rebase.last["warnings"] == LIMITATIONS, rebase.last


@then("the rebase result counts the source's entries and bytes")
def then_counts(rebase: RebaseWorld) -> None:
    result = rebase.last
    data = rebase.opened_bytes
    lines = [line for line in data.split(b"\n") if line.strip()]
    assert result["sourceEntries"] == len(lines) - 1, result
    assert result["sourceBytes"] == len(data), result


@then(parsers.parse("the rebase result preserves {pins:d} pins and {memories:d} memories"))
def then_preserved(rebase: RebaseWorld, pins: int, memories: int) -> None:
    result = rebase.last
    assert (result["preservedPins"], result["preservedMemories"]) == (pins, memories), result


@then(parsers.parse("the tool exchange diagnostics count {active:d} active and {historical:d} historical issues"))
def then_diagnostics(rebase: RebaseWorld, active: int, historical: int) -> None:
    result = rebase.last
    assert result.get("toolExchangeDiagnostics") == {"activeIssueCount": active, "historicalIssueCount": historical}, result


@then("the rebase results name no path, tool id or message body")
def then_no_paths(rebase: RebaseWorld) -> None:
    history = rebase.history
    text = json.dumps(rebase.results, ensure_ascii=False)
    source = rebase.source
    forbidden = [str(source), rebase.canonical_source, source.name, str(history.project.folder),
                 str(history.project.cwd), rebase.target.name]
    for record in records(source)[1:]:
        message = record.get("message") or {}
        content = message.get("content")
        if isinstance(content, str) and len(content) > 8:
            forbidden.append(content)
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict):
                forbidden.extend(str(block[key]) for key in ("id", "text") if key in block)
        if message.get("toolCallId"):
            forbidden.append(str(message["toolCallId"]))
    for value in forbidden:
        assert value not in text, f"a rebase result holds {value!r}"


@then("the rebase operation id is the one derived from the source session id, leaf and SHA-256")
def then_operation_derived(rebase: RebaseWorld) -> None:
    result = rebase.last
    expected = rebase.expected_operation_id()
    assert result["operationId"] == expected, (result, expected)
    assert result["checkpointId"] == checkpoint_id(expected), result


@then("the rebase operation id is the remembered one")
def then_same_operation(rebase: RebaseWorld) -> None:
    assert rebase.last.get("operationId", rebase.reported_operation) == rebase.remembered_operation


@then("the rebase operation id is not the remembered one")
def then_other_operation(rebase: RebaseWorld) -> None:
    operation = rebase.last.get("operationId")
    assert operation is not None and operation != rebase.remembered_operation, (operation, rebase.remembered_operation)


@when("the rebase operation id is remembered")
def when_remember_operation(rebase: RebaseWorld) -> None:
    rebase.remembered_operation = rebase.last["operationId"]


@then("the rebase result counts the handoff's chars-v1 tokens as its checkpoint tokens")
def then_tokens(rebase: RebaseWorld) -> None:
    handoff = checkpoint_data(rebase)["handoff"]
    units = len(handoff.encode("utf-16-le")) // 2
    assert rebase.last["checkpointTokens"] == -(-units // 4), (rebase.last, units)
