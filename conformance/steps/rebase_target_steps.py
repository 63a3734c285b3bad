"""Then steps on the files a rebase leaves: source, target, temporary files, lock and child process."""

from __future__ import annotations

import json
import os
import sqlite3

from pytest_bdd import parsers, then

from conformance import schemas
from conformance.interop_layout import (
    OPERATION_ID,
    TARGET_GLOB,
    operations_folder,
    sha256_hex,
    target_name,
    target_path,
)
from conformance.protocol import Adapter
from conformance.steps.rebase_calls import TARGET_IDS
from conformance.steps.rebase_files import (
    CHECKPOINT_TYPE,
    HANDOFF_TYPE,
    LINK_TYPE,
    custom_entries,
    records,
    target_entries,
)
from conformance.world import RebaseWorld


@then("the rebase source is byte-identical to before")
def then_source_unchanged(rebase: RebaseWorld) -> None:
    data = rebase.opened_bytes
    now = rebase.source.read_bytes()
    assert sha256_hex(now) == sha256_hex(data), "the source session file changed"


@then("the rebase source still starts with its bytes from before")
def then_source_prefix(rebase: RebaseWorld) -> None:
    data = rebase.opened_bytes
    now = rebase.source.read_bytes()
    assert len(now) > len(data) and now[: len(data)] == data


@then("no rebase operations folder exists")
def then_no_operations(rebase: RebaseWorld) -> None:
    folder = operations_folder(rebase.source_dir)
    assert not folder.exists(), sorted(os.listdir(folder))


@then("no rebase target exists")
def then_no_target(rebase: RebaseWorld) -> None:
    assert not list(rebase.source_dir.glob(TARGET_GLOB)), sorted(os.listdir(rebase.source_dir))


@then("exactly one rebase target exists, named after the operation, beside the source")
def then_one_target(rebase: RebaseWorld) -> None:
    folder = rebase.source_dir
    targets = sorted(p.name for p in folder.glob(TARGET_GLOB))
    operation = rebase.operation_id
    assert OPERATION_ID.fullmatch(operation), operation
    assert targets == [target_name(operation)], targets


@then("no temporary file is left beside the rebase target")
def then_no_temporary(rebase: RebaseWorld) -> None:
    leftovers = sorted(p.name for p in rebase.source_dir.iterdir() if p.name.endswith(".tmp"))
    assert leftovers == [], leftovers


@then("the rebase target header is version 3, names the canonical source as parentSession and the project as cwd")
def then_target_header(rebase: RebaseWorld) -> None:
    header = records(rebase.target)[0]
    assert header["type"] == "session" and header["version"] == 3, header
    assert header["parentSession"] == rebase.canonical_source, header
    assert header["cwd"] == str(rebase.history.project.cwd), header
    assert header["id"] in TARGET_IDS, header


@then("the rebase target ends with a newline and holds one checkpoint, one link and one handoff entry")
def then_target_entries(rebase: RebaseWorld) -> None:
    data = rebase.target.read_bytes()
    assert data.endswith(b"\n") and not data.endswith(b"\n\n")
    kinds = [(e["type"], e.get("customType")) for e in target_entries(rebase)]
    assert kinds[:3] == [("custom", CHECKPOINT_TYPE), ("custom", LINK_TYPE), ("custom_message", HANDOFF_TYPE)], kinds
    for custom_type in (CHECKPOINT_TYPE, LINK_TYPE, HANDOFF_TYPE):
        assert len(custom_entries(rebase, custom_type)) == 1, kinds


@then("the rebase target entries validate against the rebase schemas")
def then_target_schemas(rebase: RebaseWorld) -> None:
    for custom_type, ref in ((CHECKPOINT_TYPE, "rebase/checkpoint.schema.json#/$defs/entry"),
                             (LINK_TYPE, "rebase/link.schema.json#/$defs/entry"),
                             (HANDOFF_TYPE, "rebase/handoff.schema.json")):
        entry = custom_entries(rebase, custom_type)[0]
        problems = [schemas.describe(e) for e in schemas.errors(entry, ref)]
        assert not problems, (custom_type, problems)


@then("the rebase target is byte-identical to the remembered one")
def then_target_same(rebase: RebaseWorld) -> None:
    assert rebase.target.read_bytes() == rebase.target_bytes


@then("the rebase target still holds the appended message unchanged")
def then_target_appended(rebase: RebaseWorld) -> None:
    assert rebase.target.read_bytes() == rebase.appended_target


@then("every line of the rebase target is compact JSON")
def then_target_compact(adapter: Adapter, rebase: RebaseWorld) -> None:
    """Compact JSON is asked of the implementation (``json.canonicalize``), line by line."""
    text = rebase.target.read_bytes().decode("utf-8")
    assert text.endswith("\n"), "the target does not end with a newline"
    for number, line in enumerate(text[:-1].split("\n")):
        compact = adapter.request("json.canonicalize", {"text": line})["text"]
        assert compact == line, f"line {number} of the target is not compact JSON: {line[:120]!r}"


@then("the rebase target is the host's current session")
def then_current_target(rebase: RebaseWorld) -> None:
    assert rebase.response["currentSession"] == str(rebase.target)


@then("the rebase source is still the host's current session")
def then_current_source(rebase: RebaseWorld) -> None:
    current = rebase.response["currentSession"]
    assert current is not None and os.path.realpath(current) == rebase.canonical_source, current


@then("the rebase lock of the current session is free")
def then_lock_free(rebase: RebaseWorld) -> None:
    path = rebase.lock_file
    assert path.exists(), "no lock file was created"
    connection = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
    finally:
        connection.close()


@then("the rebase lock file of the current session holds one empty table, lock_state (id INTEGER PRIMARY KEY)")
def then_lock_file_tables(rebase: RebaseWorld) -> None:
    """Read with Python's own ``sqlite3``, read-only: the lock file's location and schema are interop (D1)."""
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


@then(parsers.parse("the child process exited with code {code:d}"))
def then_child_exit(rebase: RebaseWorld, code: int) -> None:
    crash = rebase.crash
    assert crash["exitCode"] == code, crash
    assert "Error:" not in crash.get("stderr", ""), crash


@then("the newest rebase target names the first rebase target as its parentSession")
def then_target_of_target(rebase: RebaseWorld) -> None:
    """A plain rebase asked from a rebase target rebases that target: the lineage source is taken
    only when recovering (contract §6.2 steps 10 to 13)."""
    assert len(rebase.results) >= 2, rebase.results
    first = target_path(rebase.source_dir, rebase.results[0]["operationId"])
    newest = rebase.target
    assert newest != first and newest.is_file(), (newest, first)
    header = json.loads(newest.read_text(encoding="utf-8").splitlines()[0])
    assert header.get("parentSession") == os.path.realpath(first), (header.get("parentSession"), str(first))
