"""Then steps on the rebase journal record (§6.5) and on the host's notifications."""

from __future__ import annotations

import json

from pytest_bdd import parsers, then

from conformance import schemas
from conformance.interop_layout import (
    sha256_hex,
)
from conformance.protocol import Adapter
from conformance.steps.rebase_files import (
    checkpoint_data,
    journal_value,
    records,
)
from conformance.world import RebaseWorld

JOURNAL_SCHEMA = "rebase/journal.schema.json"


@then(parsers.parse('the rebase journal phase is "{phase}"'))
def then_journal_phase(rebase: RebaseWorld, phase: str) -> None:
    record = journal_value(rebase)
    assert record["phase"] == phase, record
    problems = [schemas.describe(e) for e in schemas.errors(record, JOURNAL_SCHEMA)]
    assert not problems, problems


@then(parsers.parse('the rebase journal records the error code "{code}"'))
def then_journal_error(rebase: RebaseWorld, code: str) -> None:
    assert journal_value(rebase)["errorCode"] == code


@then("the rebase journal is compact JSON of at most 32,000 bytes with no trailing newline")
def then_journal_bytes(adapter: Adapter, rebase: RebaseWorld) -> None:
    data = rebase.journal.read_bytes()
    text = data.decode("utf-8")
    assert len(data) <= 32_000 and not text.endswith("\n")
    assert adapter.request("json.canonicalize", {"text": text})["text"] == text, "the journal is not compact JSON"


@then("the rebase journal describes the source, the target and the operation")
def then_journal_fields(rebase: RebaseWorld) -> None:
    record = journal_value(rebase)
    data = rebase.opened_bytes
    header = json.loads(data.split(b"\n", 1)[0])
    target = rebase.target
    target_bytes = target.read_bytes()
    expected = {
        "schemaVersion": 1, "id": rebase.operation_id, "projectPath": str(rebase.history.project.cwd),
        "sourceSessionId": header["id"], "sourceSessionFile": rebase.canonical_source,
        "sourceSize": len(data), "sourceHash": sha256_hex(data),
        "targetSessionId": records(target)[0]["id"], "targetSessionFile": str(target),
        "targetSize": len(target_bytes), "targetHash": sha256_hex(target_bytes),
    }
    assert {key: record.get(key) for key in expected} == expected, record
    assert record["sourceLeafId"] == checkpoint_data(rebase)["sourceLeafId"]


@then(parsers.parse("the rebase journal was created and last updated at {now:d} ms"))
def then_journal_times(rebase: RebaseWorld, now: int) -> None:
    record = journal_value(rebase)
    assert (record["createdAt"], record["updatedAt"]) == (now, now), record


@then("the rebase journal holds the target fingerprint of the file on disk")
def then_journal_fingerprint(rebase: RebaseWorld) -> None:
    record = journal_value(rebase)
    data = rebase.target.read_bytes()
    assert record["targetSize"] == len(data) and record["targetHash"] == sha256_hex(data), record


@then(parsers.parse("the rebase journal was created at {created:d} ms and last updated at {updated:d} ms"))
def then_journal_created_updated(rebase: RebaseWorld, created: int, updated: int) -> None:
    record = journal_value(rebase)
    assert (record["createdAt"], record["updatedAt"]) == (created, updated), record


# ------------------------------------------------------------------ then: notifications


@then(parsers.parse('the host showed one {level} notification naming the operation'))
def then_notification(rebase: RebaseWorld, level: str) -> None:
    notifications = rebase.response["notifications"]
    assert [n["level"] for n in notifications] == [level], notifications
    assert rebase.operation_id in notifications[0]["message"], notifications


@then(parsers.parse('the {level} notification also mentions "{words}"'))
def then_notification_mentions(rebase: RebaseWorld, level: str, words: str) -> None:
    """The one notification of ``level`` holds every word, in any case (its wording is the port's
    own, contract §6.1; what it says is not)."""
    notifications = [n for n in rebase.response["notifications"] if n["level"] == level]
    assert len(notifications) == 1, rebase.response["notifications"]
    message = notifications[0]["message"].lower()
    missing = [word for word in words.split() if word.lower() not in message]
    assert not missing, (missing, notifications[0]["message"])


@then("the host showed no notification")
def then_no_notification(rebase: RebaseWorld) -> None:
    notifications = rebase.response["notifications"]
    assert notifications == [], notifications
