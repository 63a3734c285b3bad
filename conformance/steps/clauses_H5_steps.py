"""Steps written for clauses of contract.md §6.12-§6.14 that no scenario checked (issue 26).

The lock file and the target are read and written on disk, because their location and bytes are
the interop format (D1): a step appends the continuation's own mutations to a target, reads what
the second checkpoint carries, edits the pair of a target so that only one lineage check can fail
(the link's checkpointHash set again to SHA-256 of the edited checkpoint's compact JSON), and reads
the tables of the lock database with Python's sqlite3.  Nothing here imports the reference.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any, Final

from pytest_bdd import parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.rebase_calls import open_rebase
from conformance.steps.rebase_files import (
    CHECKPOINT_TYPE,
    HANDOFF_CLOSE,
    HANDOFF_TYPE,
    LINK_TYPE,
    checkpoint_data,
    records,
)
from conformance.world import RebaseWorld


@when(parsers.parse('the rebase target gets these lines appended, "{marker}" naming its last entry:'))
def when_target_lines(rebase: RebaseWorld, marker: str, docstring: str) -> None:
    path = rebase.target
    last = records(path)[-1]["id"]
    text = docstring.replace(marker, last).strip("\n")
    with path.open("ab") as handle:
        for line in text.split("\n"):
            handle.write((line.strip() + "\n").encode("utf-8"))


@then(parsers.parse('the checkpoint carries exactly the active pins "{pins}" and the active memories "{memories}"'))
def then_carried_ids(rebase: RebaseWorld, pins: str, memories: str) -> None:
    checkpoint = checkpoint_data(rebase)
    assert sorted(p["id"] for p in checkpoint["pins"]) == sorted(pins.split()), checkpoint["pins"]
    assert sorted(m["id"] for m in checkpoint["memories"]) == sorted(memories.split()), checkpoint["memories"]
    for item in (*checkpoint["pins"], *checkpoint["memories"]):
        assert item["status"] == "active", item


@then("the rebase lock file of the current session holds one empty table, lock_state (id INTEGER PRIMARY KEY)")
def then_lock_file_tables(rebase: RebaseWorld) -> None:
    path = rebase.lock_file
    assert path.is_file(), f"no lock file at {path}"
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
        names = [name for name, _ in tables]
        assert names == ["lock_state"], f"the lock file holds the tables {names}"
        assert " ".join(tables[0][1].split()) == "CREATE TABLE lock_state (id INTEGER PRIMARY KEY)", tables[0][1]
        rows = connection.execute("SELECT COUNT(*) FROM lock_state").fetchone()[0]
        assert rows == 0, f"the lock table holds {rows} rows"
    finally:
        connection.close()


@when(parsers.parse('the rebase host opens the session "{name}" beside the current one'))
def when_open_beside(adapter: Adapter, rebase: RebaseWorld, name: str) -> None:
    open_rebase(adapter, rebase, str(rebase.history.project.folder / f"{name}.jsonl"))


def _compact(value: Any) -> str:
    """JSON.stringify of the parsed value: compact, insertion order, non-ASCII raw (the target's
    values here are ASCII plus the handoff sentinel's em dash, where the two agree)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


#: ``{1001 empty objects}`` in an edit's new text stands for that many ``{}`` separated by commas.
EMPTY_OBJECTS: Final = re.compile(r"\{(\d+) empty objects\}")


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _rewrite_pair(rebase: RebaseWorld, data_change: Callable[[str], str], message_change: Callable[[str], str],
                  link_fields: Mapping[str, int | str] | None = None) -> None:
    """Edit the checkpoint data (line 1) and the handoff message (line 3) of the target, then set
    the link's checkpointHash (line 2) to SHA-256 of the new data's JSON.stringify, so that only
    the edited checks can fail (contract §6.13 step 3)."""
    path = rebase.target
    lines = path.read_bytes().decode("utf-8").split("\n")
    checkpoint, link, handoff = json.loads(lines[1]), json.loads(lines[2]), json.loads(lines[3])
    assert checkpoint["customType"] == CHECKPOINT_TYPE and link["customType"] == LINK_TYPE, "not a rebase target"
    assert handoff["customType"] == HANDOFF_TYPE, "line 4 of the target is not the handoff message"
    data = json.loads(data_change(_compact(checkpoint["data"])))
    checkpoint["data"] = data
    handoff["content"] = message_change(handoff["content"])
    link["data"].update(link_fields or {})
    link["data"]["checkpointHash"] = hashlib.sha256(_compact(data).encode("utf-8")).hexdigest()
    lines[1], lines[2], lines[3] = _compact(checkpoint), _compact(link), _compact(handoff)
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
        return _compact(data)

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
        return _compact({**json.loads(checkpoint), **fields})
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
    rebase.journal.write_bytes(_compact(record).encode("utf-8"))
