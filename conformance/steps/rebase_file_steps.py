"""Steps that edit the rebase files between runs: the target, the journal, the source and the lock.

The journal and the target are read from disk, because their location and bytes are the interop
format (D1); so is the lock file, which a step may hold with Python's own ``sqlite3`` to stand
for another process.  An edit of the target's checkpoint/link pair sets the link's checkpointHash
again to SHA-256 of the edited checkpoint's compact JSON, so that only one lineage check can fail.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Callable, Mapping
from typing import Final

import pytest
from pytest_bdd import parsers, when

from conformance.steps.common import js_json
from conformance.steps.rebase_files import (
    CHECKPOINT_TYPE,
    HANDOFF_CLOSE,
    HANDOFF_TYPE,
    LINK_TYPE,
    checkpoint_data,
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


@when("the rebase target gets these lines appended:")
def when_target_lines(rebase: RebaseWorld, docstring: str) -> None:
    """Lines written after the staged bytes (the fingerprint still holds); ``{last}`` is the id
    of the target's last entry before them."""
    path = rebase.target
    last = records(path)[-1]["id"]
    text = docstring.replace("{last}", last)
    with path.open("ab") as handle:
        handle.write((text.rstrip("\n") + "\n").encode("utf-8"))


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


@when(parsers.parse('the rebase journal field "sourceSize" grows by {extra:d}'))
def when_journal_size_grows(rebase: RebaseWorld, extra: int) -> None:
    """The recorded source size reaches ``extra`` bytes past the end of the source; the recorded
    hash stays the SHA-256 of the whole source as it was captured."""
    path = rebase.journal
    record = json.loads(path.read_bytes())
    record["sourceSize"] += extra
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


# ------------------------------------------------------------------ the target's pair, its hash following


#: ``{1001 empty objects}`` in an edit's new text stands for that many ``{}`` separated by commas.
EMPTY_OBJECTS: Final = re.compile(r"\{(\d+) empty objects\}")


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _rewrite_pair(rebase: RebaseWorld, data_change: Callable[[str], str], message_change: Callable[[str], str],
                  link_fields: Mapping[str, int | str] | None = None) -> None:
    """Edit the checkpoint data (line 1) and the handoff message (line 3) of the target, then set
    the link's checkpointHash (line 2) to SHA-256 of the new data's JSON.stringify, so that only
    the edited checks can fail (contract §6.13 step 3).  JSON.stringify is ``js_json``: the
    target's values here are ASCII plus the handoff sentinel's em dash, where the two agree."""
    path = rebase.target
    lines = path.read_bytes().decode("utf-8").split("\n")
    checkpoint, link, handoff = json.loads(lines[1]), json.loads(lines[2]), json.loads(lines[3])
    assert checkpoint["customType"] == CHECKPOINT_TYPE and link["customType"] == LINK_TYPE, "not a rebase target"
    assert handoff["customType"] == HANDOFF_TYPE, "line 4 of the target is not the handoff message"
    data = json.loads(data_change(js_json(checkpoint["data"])))
    checkpoint["data"] = data
    handoff["content"] = message_change(handoff["content"])
    link["data"].update(link_fields or {})
    link["data"]["checkpointHash"] = hashlib.sha256(js_json(data).encode("utf-8")).hexdigest()
    lines[1], lines[2], lines[3] = js_json(checkpoint), js_json(link), js_json(handoff)
    path.write_bytes("\n".join(lines).encode("utf-8"))


@when(parsers.parse('the checkpoint of the rebase target is edited, "{old}" becoming "{new}" in its data and '
                    '"{old_message}" becoming "{new_message}" in its handoff message, its hash following'))
def when_edit_pair(rebase: RebaseWorld, old: str, new: str, old_message: str, new_message: str) -> None:
    def change(old_text: str, new_text: str) -> Callable[[str], str]:
        new_text = EMPTY_OBJECTS.sub(lambda m: ",".join(["{}"] * int(m[1])), new_text)

        def apply(text: str) -> str:
            assert old_text in text, f"{old_text!r} is not in {text[:200]!r}"
            return text.replace(old_text, new_text)
        return apply
    _rewrite_pair(rebase, change(old, new), change(old_message, new_message))


@when(parsers.parse("the handoff of the rebase target's checkpoint is padded to {units:d} UTF-16 units, "
                    "in its data and in its message, its hash following"))
def when_pad_handoff(rebase: RebaseWorld, units: int) -> None:
    handoff = checkpoint_data(rebase)["handoff"]
    close = "\n" + HANDOFF_CLOSE
    assert handoff.endswith(close) and units >= _utf16_units(handoff), "the handoff cannot be padded"
    padded = handoff[: -len(close)] + "x" * (units - _utf16_units(handoff)) + close
    assert _utf16_units(padded) == units

    def data_change(text: str) -> str:
        data = json.loads(text)
        data["handoff"] = padded
        return js_json(data)

    def message_change(content: str) -> str:
        assert handoff in content, "the handoff message does not repeat the checkpoint's handoff"
        return content.replace(handoff, padded)
    _rewrite_pair(rebase, data_change, message_change)


@when(parsers.parse('the current session file is edited in place, "{old}" becoming "{new}", '
                    'and the pair in the rebase target follows its new size and SHA-256'))
def when_edit_source_pair(rebase: RebaseWorld, old: str, new: str) -> None:
    """A source the pair still binds by size and hash, so that only the source checks after the
    prefix check can fail (contract §6.13 step 3)."""
    path = rebase.source
    text = path.read_bytes().decode("utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in the current session file"
    data = text.replace(old, new).encode("utf-8")
    path.write_bytes(data)
    fields: dict[str, int | str] = {"sourceSize": len(data), "sourceHash": hashlib.sha256(data).hexdigest()}

    def data_change(checkpoint: str) -> str:
        return js_json({**json.loads(checkpoint), **fields})
    _rewrite_pair(rebase, data_change, lambda content: content, fields)


@when("the rebase target is replaced by the remembered one, the journal's target fingerprint following")
def when_swap_target(rebase: RebaseWorld) -> None:
    """Another operation's installed target under this operation's name, with a journal whose
    fingerprint matches it: only the checkpoint id can tell them apart (contract §6.11 step 4)."""
    data = rebase.target_bytes
    assert data is not None, "no rebase target was remembered"
    rebase.target.write_bytes(data)
    record = json.loads(rebase.journal.read_bytes())
    record["targetSize"], record["targetHash"] = len(data), hashlib.sha256(data).hexdigest()
    rebase.journal.write_bytes(js_json(record).encode("utf-8"))


# ------------------------------------------------------------------ the lock


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
