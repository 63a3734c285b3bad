"""Steps for clauses of contract §6.1-§6.9 that no earlier row checked (issue 26): the operation
identity after the source grows, the handoff's statement lines, the target's compact lines, the
journal's times across phases, and a journal whose source prefix reaches past the source.

Nothing here imports the reference: the files are read from disk (their bytes are the interop
format, D1) and compact JSON is asked of the implementation with ``json.canonicalize``.
"""

from __future__ import annotations

import json

from pytest_bdd import given, parsers, then, when

from conformance import schemas
from conformance.protocol import Adapter
from conformance.steps.rebase_calls import CRASH_SCHEMA
from conformance.steps.rebase_files import (
    checkpoint_data,
    journal_value,
    records,
)
from conformance.world import RebaseWorld


@then("the rebase operation id is not the remembered one")
def then_other_operation(rebase: RebaseWorld) -> None:
    operation = rebase.last.get("operationId")
    assert operation is not None and operation != rebase.remembered_operation, (operation, rebase.remembered_operation)


@then(parsers.parse('line {number:d} of the handoff mentions "{words}"'))
def then_handoff_line_mentions(rebase: RebaseWorld, number: int, words: str) -> None:
    """Line ``number`` (1-based) holds every word, in any case: the wording of lines 2-6 is the
    port's own (contract §6.6), what each statement says is not."""
    lines = checkpoint_data(rebase)["handoff"].split("\n")
    line = lines[number - 1].lower()
    missing = [word for word in words.split() if word.lower() not in line]
    assert not missing, (missing, lines[number - 1])


@then("every line of the rebase target is compact JSON")
def then_target_compact(adapter: Adapter, rebase: RebaseWorld) -> None:
    text = rebase.target.read_bytes().decode("utf-8")
    assert text.endswith("\n"), "the target does not end with a newline"
    for number, line in enumerate(text[:-1].split("\n")):
        compact = adapter.request("json.canonicalize", {"text": line})["text"]
        assert compact == line, f"line {number} of the target is not compact JSON: {line[:120]!r}"


@then(parsers.parse("the rebase journal was created at {created:d} ms and last updated at {updated:d} ms"))
def then_journal_created_updated(rebase: RebaseWorld, created: int, updated: int) -> None:
    record = journal_value(rebase)
    assert (record["createdAt"], record["updatedAt"]) == (created, updated), record


@when(parsers.parse('the rebase journal field "sourceSize" grows by {extra:d}'))
def when_journal_size_grows(rebase: RebaseWorld, extra: int) -> None:
    """The recorded source size reaches ``extra`` bytes past the end of the source; the recorded
    hash stays the SHA-256 of the whole source as it was captured."""
    path = rebase.journal
    record = json.loads(path.read_bytes())
    record["sourceSize"] += extra
    path.write_bytes(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


@when("the rebase target gets these lines appended:")
def when_target_lines(rebase: RebaseWorld, docstring: str) -> None:
    """Lines written after the staged bytes (the fingerprint still holds); ``{last}`` is the id
    of the target's last entry before them."""
    path = rebase.target
    last = records(path)[-1]["id"]
    text = docstring.replace("{last}", last)
    with path.open("ab") as handle:
        handle.write((text.rstrip("\n") + "\n").encode("utf-8"))


@then(parsers.parse('the {level} notification also mentions "{words}"'))
def then_notification_mentions(rebase: RebaseWorld, level: str, words: str) -> None:
    """The one notification of ``level`` holds every word, in any case (its wording is the port's
    own, contract §6.1; what it says is not)."""
    notifications = [n for n in rebase.response["notifications"] if n["level"] == level]
    assert len(notifications) == 1, rebase.response["notifications"]
    message = notifications[0]["message"].lower()
    missing = [word for word in words.split() if word.lower() not in message]
    assert not missing, (missing, notifications[0]["message"])


@given(parsers.parse("the current history session also holds a session pin of {count:d} characters"))
def given_big_pin(rebase: RebaseWorld, count: int) -> None:
    """One confirmed session pin whose content is ``count`` characters, after the last entry."""
    path = rebase.source
    parent = records(path)[-1]["id"]
    data = {"schemaVersion": 1, "mutationId": "m-big", "operation": "add", "createdAt": 1767225640000,
            "item": {"id": "pin-big", "scope": "session", "content": "p" * count, "createdAt": 1767225640000}}
    entry = {"type": "custom", "customType": "ds4-context-pin-v1", "data": data, "id": "pinbig",
             "parentId": parent, "timestamp": "2026-01-01T00:00:40.000Z"}
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))


@when(parsers.parse('a recovery of the rebase operation crashes at "{point}" in a child process'))
def when_recovery_crash(adapter: Adapter, rebase: RebaseWorld, point: str) -> None:
    """``rebase.crash`` armed at ``point`` for ``--recover`` of the scenario's operation: a
    resumed operation that never reaches ``point`` runs to its end (exit code 0)."""
    response = adapter.request("rebase.crash", {"point": point, "operationId": rebase.operation_id})
    problems = [schemas.describe(e) for e in schemas.errors(response, CRASH_SCHEMA)]
    assert not problems, (problems, response)
    rebase.last_crash = response
