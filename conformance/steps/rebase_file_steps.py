"""Steps that edit the rebase files between runs: the target, the journal, the source and the lock.

The journal and the target are read from disk, because their location and bytes are the interop
format (D1); so is the lock file, which a step may hold with Python's own ``sqlite3`` to stand
for another process.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from pytest_bdd import parsers, when

from conformance.steps.rebase_files import (
    CHECKPOINT_TYPE,
    records,
    rewrite_line,
)
from conformance.world import RebaseWorld


@when("the rebase target is deleted")
def when_delete_target(rebase: RebaseWorld) -> None:
    rebase.target.unlink()


@when("a user message is appended to the rebase target")
def when_append_target(rebase: RebaseWorld) -> None:
    path = rebase.target
    last = records(path)[-1]
    entry = {"type": "message", "id": "c0ffee01", "parentId": last["id"], "timestamp": "2026-01-02T00:00:00.000Z",
             "message": {"role": "user", "content": "Carry on in the continuation", "timestamp": 1767312000000}}
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))
    rebase.appended_target = path.read_bytes()


@when(parsers.parse('the timestamp of the checkpoint entry in the rebase target becomes "{stamp}"'))
def when_restamp(rebase: RebaseWorld, stamp: str) -> None:
    def change(line: str) -> str:
        head, separator, _ = line.rpartition('"timestamp":"')
        assert separator and head.count(CHECKPOINT_TYPE) == 1, "line 2 of the target is not the checkpoint entry"
        return f'{head}"timestamp":"{stamp}"}}'
    rewrite_line(rebase.target, 1, change)


@when(parsers.parse('the checkpoint data in the rebase target is edited, "{old}" becoming "{new}"'))
def when_edit_checkpoint(rebase: RebaseWorld, old: str, new: str) -> None:
    def change(line: str) -> str:
        assert CHECKPOINT_TYPE in line and old in line, f"{old!r} is not in the checkpoint entry"
        return line.replace(old, new)
    rewrite_line(rebase.target, 1, change)


@when(parsers.parse("the rebase journal field \"{name}\" is changed to {value}"))
def when_journal_field(rebase: RebaseWorld, name: str, value: str) -> None:
    path = rebase.journal
    record = json.loads(path.read_bytes())
    record[name] = json.loads(value.replace("{source}", json.dumps(rebase.canonical_source)[1:-1]))
    path.write_bytes(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


@when("the rebase journal is deleted")
def when_journal_deleted(rebase: RebaseWorld) -> None:
    rebase.journal.unlink()


@when(parsers.parse("the rebase journal is padded with spaces to {size:d} bytes"))
def when_journal_padded(rebase: RebaseWorld, size: int) -> None:
    path = rebase.journal
    data = path.read_bytes()
    path.write_bytes(data + b" " * (size - len(data)))


@when(parsers.parse('the rebase journal is replaced by the text "{text}"'))
def when_journal_text(rebase: RebaseWorld, text: str) -> None:
    rebase.journal.write_bytes(text.encode("utf-8"))


@when("the current history session grows by one user message")
def when_source_grows(rebase: RebaseWorld) -> None:
    path = rebase.source
    last = records(path)[-1]
    entry = {"type": "message", "id": "later", "parentId": last["id"], "timestamp": "2026-01-01T02:00:00.000Z",
             "message": {"role": "user", "content": "A later message in the preserved source",
                         "timestamp": 1767232800000}}
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))


@when("another process holds the rebase lock of the current session")
def when_hold_lock(rebase: RebaseWorld, request: pytest.FixtureRequest) -> None:
    path = rebase.lock_file
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    request.addfinalizer(connection.close)
    connection.execute("CREATE TABLE IF NOT EXISTS lock_state (id INTEGER PRIMARY KEY)")
    connection.execute("BEGIN IMMEDIATE")
    rebase.held_lock = connection


@when("the other process releases the rebase lock")
def when_release_lock(rebase: RebaseWorld) -> None:
    connection = rebase.held_lock
    assert connection is not None, "no other process holds the rebase lock"
    rebase.held_lock = None
    connection.execute("ROLLBACK")
    connection.close()
