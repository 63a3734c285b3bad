"""Steps written for clauses of contract.md §6.12-§6.14 that no scenario checked (issue 26).

The lock file and the target are read and written on disk, because their location and bytes are
the interop format (D1): a step appends the continuation's own mutations to a target, reads what
the second checkpoint carries, and reads the tables of the lock database with Python's sqlite3.
"""

from __future__ import annotations

import sqlite3

from pytest_bdd import parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.rebase_calls import open_rebase
from conformance.steps.rebase_files import checkpoint_data, records
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
