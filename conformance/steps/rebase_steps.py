"""Steps for the session rebase: REBASE, ATOMIC, CHECKPOINT, JOURNAL, LOCK, RECOVER, LINEAGE and
CRASH scenarios (contract §6, §7.2; decisions D1, D2, D8, D9, D11).

A scenario builds its project, Pi home and source session with the history steps
(:mod:`conformance.steps.history_steps`: ``a trusted history project``, ``the current history
session with these lines:``, ``the global history configuration:``), opens that session in the
implementation's rebase host (``rebase.open``, every host fact settable) and runs
``rebase.run`` in one of its modes.  Every response is checked against the operations schema,
so every ``RebaseResult`` against ``schemas/rebase/rebase-result.schema.json``.

What the harness can compute from bytes it wrote (source SHA-256, canonical path, operation id,
target file name) it computes itself.  It reads the journal and the target from disk, because
their location and bytes are the interop format (D1); so is the lock file, which a step may hold
with Python's own ``sqlite3`` to stand for another process.  Nothing here imports the reference.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from conformance import schemas
from conformance.protocol import Adapter, ContractError
from conformance.steps.history_steps import State, _history, _host_params, _lines, _open, _record

RUN_SCHEMA = "adapter/v1/operations.schema.json#/$defs/rebase.run/properties/result"
JOURNAL_SCHEMA = "rebase/journal.schema.json"
LIMITATIONS = ["deterministic-handoff", "verification-not-inferred", "older-state-requires-recall"]
CHECKPOINT_TYPE = "ds4-rebase-checkpoint-v1"
LINK_TYPE = "ds4-rebase-link-v1"
HANDOFF_TYPE = "ds4-rebase-handoff-v1"
HANDOFF_OPEN = "[DS4 REBASE HANDOFF \u2014 QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]"
HANDOFF_CLOSE = "[END DS4 REBASE HANDOFF]"
OPERATION_ID = re.compile(r"rebase_[a-f0-9]{32}")
#: Ids the host hands out for new targets, so that a scenario can name them (a dry run draws one too).
TARGET_IDS = [f"7a2e0c1d-0000-4000-8000-{n:012d}" for n in range(1, 9)]


def _rebase(state: State) -> dict[str, Any]:
    rebase: dict[str, Any] = state.setdefault("rebase", {"results": []})
    return rebase


def _source(state: State) -> Path:
    path: Path = _history(state)["sessions"]["current"]
    return path


def _canonical_source(state: State) -> str:
    return os.path.realpath(_source(state))


def _source_dir(state: State) -> Path:
    return Path(_canonical_source(state)).parent


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


# ------------------------------------------------------------------ derived names


def _expected_operation_id(state: State, leaf: str | None = None) -> str:
    """``rebase_`` + SHA-256("<header id>:<leaf>:<SHA-256 of the source>")[:32], from the bytes."""
    rebase = _rebase(state)
    data = rebase.get("source_bytes") or _source(state).read_bytes()
    records = [json.loads(line) for line in data.split(b"\n") if line.strip()]
    leaf = leaf or rebase.get("leaf") or records[-1]["id"]
    suffix = _sha256(f"{records[0]['id']}:{leaf}:{_sha256(data)}".encode())[:32]
    return f"rebase_{suffix}"


def _operation_id(state: State) -> str:
    rebase = _rebase(state)
    operation: str = rebase.get("operation") or _expected_operation_id(state)
    return operation


def _target(state: State) -> Path:
    return _source_dir(state) / f"ds4-{_operation_id(state)}.jsonl"


def _journal(state: State) -> Path:
    return _source_dir(state) / ".ds4-rebase" / "operations" / f"{_operation_id(state)}.json"


def _journal_value(state: State) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(_journal(state).read_bytes())
    return value


def _lock_file(state: State) -> Path:
    canonical = _canonical_source(state)
    return Path(canonical).parent / ".ds4-rebase" / "locks" / f"{_sha256(canonical.encode())}.sqlite"


def _target_entries(state: State) -> list[dict[str, Any]]:
    return _records(_target(state))[1:]


def _custom(state: State, custom_type: str) -> list[dict[str, Any]]:
    return [e for e in _target_entries(state) if e.get("customType") == custom_type]


def _checkpoint(state: State) -> dict[str, Any]:
    entries = _custom(state, CHECKPOINT_TYPE)
    assert entries, "the target holds no checkpoint entry"
    data: dict[str, Any] = entries[0]["data"]
    return data


def _handoff_entry(state: State) -> dict[str, Any]:
    entries = _custom(state, HANDOFF_TYPE)
    assert entries, "the target holds no handoff message"
    return entries[0]


def _rewrite_line(path: Path, index: int, change: Any) -> None:
    """Replace line ``index`` (0 = header) with ``change(line_text)``, bytes elsewhere kept."""
    lines = path.read_bytes().split(b"\n")
    lines[index] = change(lines[index].decode("utf-8")).encode("utf-8")
    path.write_bytes(b"\n".join(lines))


# ------------------------------------------------------------------ given


@given(parsers.parse('the session "{name}" beside the current one, with these lines:'))
def given_beside(scenario_state: State, name: str, docstring: str) -> None:
    """``{cwd}`` is the project folder, ``{source}`` the canonical path of the current session."""
    history = _history(scenario_state)
    text = docstring.replace("{source}", json.dumps(_canonical_source(scenario_state))[1:-1])
    _record(scenario_state, name, Path(history["folder"]) / f"{name}.jsonl", _lines(text, history["cwd"]))


@given(parsers.parse('the current history session also holds a user message "{entry_id}" of {count:d} "{piece}" characters'))
def given_long_message(scenario_state: State, entry_id: str, count: int, piece: str) -> None:
    path = _source(scenario_state)
    records = _records(path)
    entry = {"type": "message", "id": entry_id, "parentId": records[-1]["id"],
             "timestamp": "2026-01-01T00:00:30.000Z",
             "message": {"role": "user", "content": piece * count, "timestamp": 1767225630000}}
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))


@given(parsers.parse("the current history session also holds {count:d} session pins"))
def given_many_pins(scenario_state: State, count: int) -> None:
    """``count`` pin additions chained after the last entry (the §6.6 item limit is 1000)."""
    path = _source(scenario_state)
    parent = _records(path)[-1]["id"]
    lines = []
    for number in range(count):
        entry_id = f"pin{number:05x}"
        data = {"schemaVersion": 1, "mutationId": f"m-{entry_id}", "operation": "add", "createdAt": 1767225640000,
                "item": {"id": f"pin-{number}", "scope": "session", "content": f"Pinned fact {number}",
                         "createdAt": 1767225640000}}
        lines.append(json.dumps({"type": "custom", "customType": "ds4-context-pin-v1", "data": data, "id": entry_id,
                                 "parentId": parent, "timestamp": "2026-01-01T00:00:40.000Z"}, separators=(",", ":")))
        parent = entry_id
    with path.open("ab") as handle:
        handle.write(("\n".join(lines) + "\n").encode("utf-8"))


# ------------------------------------------------------------------ when: the host


def _open_rebase(adapter: Adapter, state: State, session_file: str | None = None, **facts: Any) -> None:
    history, rebase = _history(state), _rebase(state)
    rebase.setdefault("source_bytes", _source(state).read_bytes())
    if "leaf" in facts:
        rebase["leaf"] = facts["leaf"]
    params = {**_host_params(state), "sessionFile": session_file or str(_source(state)),
              "indexPath": str(Path(history["agent"]) / "index" / "history.sqlite"),
              "targetSessionIds": list(TARGET_IDS), **facts}
    adapter.request("rebase.open", params)


@when("the rebase host opens the current session")
def when_open(adapter: Adapter, scenario_state: State) -> None:
    _open_rebase(adapter, scenario_state)


@when(parsers.parse('the rebase host opens the current session at leaf "{leaf}"'))
def when_open_leaf(adapter: Adapter, scenario_state: State, leaf: str) -> None:
    _open_rebase(adapter, scenario_state, leaf=leaf)


@when("the rebase host opens the current session with these facts:")
def when_open_facts(adapter: Adapter, scenario_state: State, docstring: str) -> None:
    _open_rebase(adapter, scenario_state, **json.loads(docstring))


@when("the rebase host opens a session that has no file")
def when_open_ephemeral(adapter: Adapter, scenario_state: State) -> None:
    _open_rebase(adapter, scenario_state, str(Path(_history(scenario_state)["folder"]) / "never-written.jsonl"))


@when("the rebase host opens the rebase target")
def when_open_target(adapter: Adapter, scenario_state: State) -> None:
    _open_rebase(adapter, scenario_state, str(_target(scenario_state)))


@when(parsers.parse('the rebase host opens the current session through the symbolic link "{name}"'))
def when_open_alias(adapter: Adapter, scenario_state: State, name: str) -> None:
    link = Path(_history(scenario_state)["folder"]) / name
    if not link.is_symlink():
        link.parent.mkdir(parents=True, exist_ok=True)
        try:
            link.symlink_to(_source(scenario_state))
        except (OSError, NotImplementedError) as exc:  # INTERPRETING: fail, naming the missing primitive
            raise AssertionError(f"this platform cannot create a symbolic link (needed primitive: symlink): {exc}") from None
    _open_rebase(adapter, scenario_state, str(link))


@when("the rebase host facts change to:")
def when_facts(adapter: Adapter, scenario_state: State, docstring: str) -> None:
    facts = json.loads(docstring)
    if "leaf" in facts:
        _rebase(scenario_state)["leaf"] = facts["leaf"]
    adapter.request("rebase.setFacts", facts)


def _run(adapter: Adapter, state: State, params: dict[str, Any]) -> dict[str, Any]:
    try:
        response = adapter.request("rebase.run", params)
    except ContractError as exc:  # a rebase answers with a RebaseResult, never with a protocol error
        raise AssertionError(f"rebase.run refused at the protocol level: {exc.code}: {exc.message}") from None
    problems = [schemas.describe(e) for e in schemas.errors(response, RUN_SCHEMA)]
    assert not problems, (problems, response)
    rebase = _rebase(state)
    result: dict[str, Any] = response["result"]
    rebase["response"] = response
    rebase["last"] = result
    rebase["results"].append(result)
    if result.get("operationId"):
        rebase["operation"] = result["operationId"]
    return result


@when("a rebase dry run is asked")
def when_dry_run(adapter: Adapter, scenario_state: State) -> None:
    _run(adapter, scenario_state, {"mode": "dry-run"})


@when("a rebase is asked")
def when_run(adapter: Adapter, scenario_state: State) -> None:
    _run(adapter, scenario_state, {"mode": "run"})


@when("the rebase service is asked directly for a rebase")
def when_run_service(adapter: Adapter, scenario_state: State) -> None:
    _run(adapter, scenario_state, {"mode": "run", "layer": "service"})


@when("the rebase operation is recovered")
def when_recover(adapter: Adapter, scenario_state: State) -> None:
    _run(adapter, scenario_state, {"mode": "recover", "operationId": _operation_id(scenario_state)})


@when(parsers.parse('recovery of the operation "{operation_id}" is asked'))
def when_recover_id(adapter: Adapter, scenario_state: State, operation_id: str) -> None:
    _run(adapter, scenario_state, {"mode": "recover", "operationId": operation_id})


@when(parsers.parse('a rebase crashes at "{point}" in a child process'))
def when_crash(adapter: Adapter, scenario_state: State, point: str) -> None:
    response = adapter.request("rebase.crash", {"point": point})
    problems = [schemas.describe(e) for e in schemas.errors(
        response, "adapter/v1/operations.schema.json#/$defs/rebase.crash/properties/result")]
    assert not problems, (problems, response)
    _rebase(scenario_state)["crash"] = response


@when("the rebase files are remembered")
def when_remember(scenario_state: State) -> None:
    rebase = _rebase(scenario_state)
    rebase["target_bytes"] = _target(scenario_state).read_bytes()
    rebase["remembered_operation"] = _operation_id(scenario_state)


# ------------------------------------------------------------------ when: files


@when("the rebase target is deleted")
def when_delete_target(scenario_state: State) -> None:
    _target(scenario_state).unlink()


@when("a user message is appended to the rebase target")
def when_append_target(scenario_state: State) -> None:
    path = _target(scenario_state)
    last = _records(path)[-1]
    entry = {"type": "message", "id": "c0ffee01", "parentId": last["id"], "timestamp": "2026-01-02T00:00:00.000Z",
             "message": {"role": "user", "content": "Carry on in the continuation", "timestamp": 1767312000000}}
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))
    _rebase(scenario_state)["appended_target"] = path.read_bytes()


@when(parsers.parse('the timestamp of the checkpoint entry in the rebase target becomes "{stamp}"'))
def when_restamp(scenario_state: State, stamp: str) -> None:
    def change(line: str) -> str:
        head, separator, _ = line.rpartition('"timestamp":"')
        assert separator and head.count(CHECKPOINT_TYPE) == 1, "line 2 of the target is not the checkpoint entry"
        return f'{head}"timestamp":"{stamp}"}}'
    _rewrite_line(_target(scenario_state), 1, change)


@when(parsers.parse('the checkpoint data in the rebase target is edited, "{old}" becoming "{new}"'))
def when_edit_checkpoint(scenario_state: State, old: str, new: str) -> None:
    def change(line: str) -> str:
        assert CHECKPOINT_TYPE in line and old in line, f"{old!r} is not in the checkpoint entry"
        return line.replace(old, new)
    _rewrite_line(_target(scenario_state), 1, change)


@when(parsers.parse("the rebase journal field \"{name}\" is changed to {value}"))
def when_journal_field(scenario_state: State, name: str, value: str) -> None:
    path = _journal(scenario_state)
    record = json.loads(path.read_bytes())
    record[name] = json.loads(value.replace("{source}", json.dumps(_canonical_source(scenario_state))[1:-1]))
    path.write_bytes(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


@when("the rebase journal is deleted")
def when_journal_deleted(scenario_state: State) -> None:
    _journal(scenario_state).unlink()


@when(parsers.parse("the rebase journal is padded with spaces to {size:d} bytes"))
def when_journal_padded(scenario_state: State, size: int) -> None:
    path = _journal(scenario_state)
    data = path.read_bytes()
    path.write_bytes(data + b" " * (size - len(data)))


@when(parsers.parse('the rebase journal is replaced by the text "{text}"'))
def when_journal_text(scenario_state: State, text: str) -> None:
    _journal(scenario_state).write_bytes(text.encode("utf-8"))


@when("the current history session grows by one user message")
def when_source_grows(scenario_state: State) -> None:
    path = _source(scenario_state)
    last = _records(path)[-1]
    entry = {"type": "message", "id": "later", "parentId": last["id"], "timestamp": "2026-01-01T02:00:00.000Z",
             "message": {"role": "user", "content": "A later message in the preserved source",
                         "timestamp": 1767232800000}}
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))


@when("another process holds the rebase lock of the current session")
def when_hold_lock(scenario_state: State, request: pytest.FixtureRequest) -> None:
    path = _lock_file(scenario_state)
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    request.addfinalizer(connection.close)
    connection.execute("CREATE TABLE IF NOT EXISTS lock_state (id INTEGER PRIMARY KEY)")
    connection.execute("BEGIN IMMEDIATE")
    _rebase(scenario_state)["held_lock"] = connection


@when("the other process releases the rebase lock")
def when_release_lock(scenario_state: State) -> None:
    connection: sqlite3.Connection = _rebase(scenario_state).pop("held_lock")
    connection.execute("ROLLBACK")
    connection.close()


@when("the history host opens the rebase target")
def when_history_target(adapter: Adapter, scenario_state: State) -> None:
    _open(adapter, scenario_state, provider="openai", sessionFile=str(_target(scenario_state)))


@when("the history active leaf moves to the checkpoint entry of the rebase target")
def when_history_leaf_checkpoint(adapter: Adapter, scenario_state: State) -> None:
    entry = _custom(scenario_state, CHECKPOINT_TYPE)[0]
    adapter.request("history.setLeaf", {"leaf": entry["id"]})


# ------------------------------------------------------------------ then: the result


def _last(state: State) -> dict[str, Any]:
    last: dict[str, Any] = _rebase(state)["last"]
    return last


@then(parsers.parse('the rebase result is unavailable with code "{code}"'))
def then_unavailable(scenario_state: State, code: str) -> None:
    result = _last(scenario_state)
    assert result["status"] == "unavailable" and result["warnings"] == [code], result


@then(parsers.parse('the rebase result is recoverable with code "{code}"'))
def then_recoverable(scenario_state: State, code: str) -> None:
    result = _last(scenario_state)
    assert result["status"] == "recoverable" and result["warnings"] == [code], result
    assert result["phase"] == "Recoverable" and result["operationId"] == _operation_id(scenario_state), result


@then("the rebase result is a preview")
def then_preview(scenario_state: State) -> None:
    result = _last(scenario_state)
    assert result["status"] == "preview", result
    assert "phase" not in result and "sessionReplaced" not in result, result


@then("the rebase result is verified and the session was replaced")
def then_verified(scenario_state: State) -> None:
    result = _last(scenario_state)
    assert result["status"] == "verified", result
    assert result["phase"] == "Verified" and result["sessionReplaced"] is True, result
    assert _rebase(scenario_state)["response"]["currentSession"] == str(_target(scenario_state)), \
        "the host's current session is not the target"


@then(parsers.parse("the rebase result reports session replaced {replaced}"))
def then_replaced(scenario_state: State, replaced: str) -> None:
    assert _last(scenario_state)["sessionReplaced"] is (replaced == "true"), _last(scenario_state)


@then("the rebase result carries the three limitations as its warnings")
def then_limitations(scenario_state: State) -> None:
    assert _last(scenario_state)["warnings"] == LIMITATIONS, _last(scenario_state)


@then("the rebase result counts the source's entries and bytes")
def then_counts(scenario_state: State) -> None:
    result = _last(scenario_state)
    data = _rebase(scenario_state)["source_bytes"]
    records = [line for line in data.split(b"\n") if line.strip()]
    assert result["sourceEntries"] == len(records) - 1, result
    assert result["sourceBytes"] == len(data), result


@then(parsers.parse("the rebase result preserves {pins:d} pins and {memories:d} memories"))
def then_preserved(scenario_state: State, pins: int, memories: int) -> None:
    result = _last(scenario_state)
    assert (result["preservedPins"], result["preservedMemories"]) == (pins, memories), result


@then(parsers.parse("the tool exchange diagnostics count {active:d} active and {historical:d} historical issues"))
def then_diagnostics(scenario_state: State, active: int, historical: int) -> None:
    result = _last(scenario_state)
    assert result.get("toolExchangeDiagnostics") == {"activeIssueCount": active, "historicalIssueCount": historical}, result


@then("the rebase results name no path, tool id or message body")
def then_no_paths(scenario_state: State) -> None:
    history = _history(scenario_state)
    text = json.dumps(_rebase(scenario_state)["results"], ensure_ascii=False)
    source = _source(scenario_state)
    forbidden = [str(source), _canonical_source(scenario_state), source.name, str(history["folder"]),
                 str(history["cwd"]), _target(scenario_state).name]
    for record in _records(source)[1:]:
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
def then_operation_derived(scenario_state: State) -> None:
    result = _last(scenario_state)
    expected = _expected_operation_id(scenario_state)
    assert result["operationId"] == expected, (result, expected)
    assert result["checkpointId"] == "checkpoint_" + expected.removeprefix("rebase_"), result


@then("the rebase operation id is the remembered one")
def then_same_operation(scenario_state: State) -> None:
    rebase = _rebase(scenario_state)
    assert _last(scenario_state).get("operationId", rebase.get("operation")) == rebase["remembered_operation"]


@when("the rebase operation id is remembered")
def when_remember_operation(scenario_state: State) -> None:
    _rebase(scenario_state)["remembered_operation"] = _last(scenario_state)["operationId"]


@then("the rebase result counts the handoff's chars-v1 tokens as its checkpoint tokens")
def then_tokens(scenario_state: State) -> None:
    handoff = _checkpoint(scenario_state)["handoff"]
    units = len(handoff.encode("utf-16-le")) // 2
    assert _last(scenario_state)["checkpointTokens"] == -(-units // 4), (_last(scenario_state), units)


# ------------------------------------------------------------------ then: files


@then("the rebase source is byte-identical to before")
def then_source_unchanged(scenario_state: State) -> None:
    data = _rebase(scenario_state)["source_bytes"]
    now = _source(scenario_state).read_bytes()
    assert _sha256(now) == _sha256(data), "the source session file changed"


@then("the rebase source still starts with its bytes from before")
def then_source_prefix(scenario_state: State) -> None:
    data = _rebase(scenario_state)["source_bytes"]
    now = _source(scenario_state).read_bytes()
    assert len(now) > len(data) and now[: len(data)] == data


@then("no rebase operations folder exists")
def then_no_operations(scenario_state: State) -> None:
    folder = _source_dir(scenario_state) / ".ds4-rebase" / "operations"
    assert not folder.exists(), sorted(os.listdir(folder))


@then("no rebase target exists")
def then_no_target(scenario_state: State) -> None:
    assert not list(_source_dir(scenario_state).glob("ds4-rebase_*")), sorted(os.listdir(_source_dir(scenario_state)))


@then("exactly one rebase target exists, named after the operation, beside the source")
def then_one_target(scenario_state: State) -> None:
    folder = _source_dir(scenario_state)
    targets = sorted(p.name for p in folder.glob("ds4-rebase_*"))
    operation = _operation_id(scenario_state)
    assert OPERATION_ID.fullmatch(operation), operation
    assert targets == [f"ds4-{operation}.jsonl"], targets


@then("no temporary file is left beside the rebase target")
def then_no_temporary(scenario_state: State) -> None:
    leftovers = sorted(p.name for p in _source_dir(scenario_state).iterdir() if p.name.endswith(".tmp"))
    assert leftovers == [], leftovers


@then("the rebase target header is version 3, names the canonical source as parentSession and the project as cwd")
def then_target_header(scenario_state: State) -> None:
    header = _records(_target(scenario_state))[0]
    assert header["type"] == "session" and header["version"] == 3, header
    assert header["parentSession"] == _canonical_source(scenario_state), header
    assert header["cwd"] == str(_history(scenario_state)["cwd"]), header
    assert header["id"] in TARGET_IDS, header


@then("the rebase target ends with a newline and holds one checkpoint, one link and one handoff entry")
def then_target_entries(scenario_state: State) -> None:
    data = _target(scenario_state).read_bytes()
    assert data.endswith(b"\n") and not data.endswith(b"\n\n")
    kinds = [(e["type"], e.get("customType")) for e in _target_entries(scenario_state)]
    assert kinds[:3] == [("custom", CHECKPOINT_TYPE), ("custom", LINK_TYPE), ("custom_message", HANDOFF_TYPE)], kinds
    for custom_type in (CHECKPOINT_TYPE, LINK_TYPE, HANDOFF_TYPE):
        assert len(_custom(scenario_state, custom_type)) == 1, kinds


@then("the rebase target entries validate against the rebase schemas")
def then_target_schemas(scenario_state: State) -> None:
    for custom_type, ref in ((CHECKPOINT_TYPE, "rebase/checkpoint.schema.json#/$defs/entry"),
                             (LINK_TYPE, "rebase/link.schema.json#/$defs/entry"),
                             (HANDOFF_TYPE, "rebase/handoff.schema.json")):
        entry = _custom(scenario_state, custom_type)[0]
        problems = [schemas.describe(e) for e in schemas.errors(entry, ref)]
        assert not problems, (custom_type, problems)


@then("the rebase target is byte-identical to the remembered one")
def then_target_same(scenario_state: State) -> None:
    assert _target(scenario_state).read_bytes() == _rebase(scenario_state)["target_bytes"]


@then("the rebase target still holds the appended message unchanged")
def then_target_appended(scenario_state: State) -> None:
    assert _target(scenario_state).read_bytes() == _rebase(scenario_state)["appended_target"]


@then("the rebase target is the host's current session")
def then_current_target(scenario_state: State) -> None:
    assert _rebase(scenario_state)["response"]["currentSession"] == str(_target(scenario_state))


@then("the rebase source is still the host's current session")
def then_current_source(scenario_state: State) -> None:
    current = _rebase(scenario_state)["response"]["currentSession"]
    assert current is not None and os.path.realpath(current) == _canonical_source(scenario_state), current


@then("the rebase lock of the current session is free")
def then_lock_free(scenario_state: State) -> None:
    path = _lock_file(scenario_state)
    assert path.exists(), "no lock file was created"
    connection = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
    finally:
        connection.close()


@then(parsers.parse("the child process exited with code {code:d}"))
def then_child_exit(scenario_state: State, code: int) -> None:
    crash = _rebase(scenario_state)["crash"]
    assert crash["exitCode"] == code, crash
    assert "Error:" not in crash.get("stderr", ""), crash


# ------------------------------------------------------------------ then: checkpoint


@then(parsers.parse('the checkpoint classification is "{level}" and the handoff message carries it'))
def then_classification(scenario_state: State, level: str) -> None:
    checkpoint = _checkpoint(scenario_state)
    assert checkpoint["classification"] == level, checkpoint["classification"]
    entry = _handoff_entry(scenario_state)
    assert entry["content"] == f"[ds4:{level}]{checkpoint['handoff']}[/ds4:{level}]"
    assert entry["display"] is False


@then("the checkpoint id shares the operation id's suffix")
def then_checkpoint_id(scenario_state: State) -> None:
    checkpoint = _checkpoint(scenario_state)
    assert checkpoint["id"] == "checkpoint_" + _expected_operation_id(scenario_state).removeprefix("rebase_")


@then(parsers.parse('the checkpoint captures the source at leaf "{leaf}" with {compactions:d} compaction'))
@then(parsers.parse('the checkpoint captures the source at leaf "{leaf}" with {compactions:d} compactions'))
def then_checkpoint_source(scenario_state: State, leaf: str, compactions: int) -> None:
    checkpoint = _checkpoint(scenario_state)
    data = _rebase(scenario_state)["source_bytes"]
    header = json.loads(data.split(b"\n", 1)[0])
    assert (checkpoint["sourceSessionId"], checkpoint["sourceLeafId"]) == (header["id"], leaf), checkpoint
    assert (checkpoint["sourceSize"], checkpoint["sourceHash"]) == (len(data), _sha256(data)), checkpoint
    assert checkpoint["sourceCompactionCount"] == compactions, checkpoint


@then(parsers.parse("the checkpoint was created at {now:d} ms, its verification state is unknown and its limitations are the result's warnings"))
def then_checkpoint_state(scenario_state: State, now: int) -> None:
    checkpoint = _checkpoint(scenario_state)
    assert checkpoint["createdAt"] == now, checkpoint["createdAt"]
    assert checkpoint["verificationState"] == "unknown", checkpoint
    assert checkpoint["limitations"] == LIMITATIONS == _last(scenario_state)["warnings"], checkpoint


@then(parsers.parse('the handoff has eight lines and quotes the context entries "{ids}" as one JSON string'))
def then_handoff_lines(scenario_state: State, ids: str) -> None:
    lines = _checkpoint(scenario_state)["handoff"].split("\n")
    assert len(lines) == 8, lines
    assert (lines[0], lines[7]) == (HANDOFF_OPEN, HANDOFF_CLOSE), lines
    canonical = json.loads(lines[6])
    assert isinstance(canonical, str), lines[6]
    assert [json.loads(part)["id"] for part in canonical.split("\n")] == ids.split(), canonical


@then(parsers.parse('the handoff contains "{text}"'))
def then_handoff_contains(scenario_state: State, text: str) -> None:
    assert text in _checkpoint(scenario_state)["handoff"]


@then(parsers.parse('the handoff does not contain "{text}"'))
def then_handoff_lacks(scenario_state: State, text: str) -> None:
    assert text not in _checkpoint(scenario_state)["handoff"]
    assert text not in _handoff_entry(scenario_state)["content"]


@then("the link binds the checkpoint by its hash to the source prefix and the target")
def then_link(adapter: Adapter, scenario_state: State) -> None:
    checkpoint = _checkpoint(scenario_state)
    link = _custom(scenario_state, LINK_TYPE)[0]["data"]
    serialized = adapter.request("json.canonicalize", {"text": json.dumps(checkpoint)})["text"]
    header = _records(_target(scenario_state))[0]
    assert link["checkpointHash"] == _sha256(serialized.encode("utf-8")), link
    assert link["checkpointId"] == checkpoint["id"] and link["operationId"] == _operation_id(scenario_state), link
    for key in ("sourceSessionId", "sourceLeafId", "sourceSize", "sourceHash"):
        assert link[key] == checkpoint[key], key
    assert link["sourceSessionFile"] == _canonical_source(scenario_state), link
    assert link["projectPath"] == str(_history(scenario_state)["cwd"]), link
    assert link["targetSessionId"] == header["id"], link


@then(parsers.parse('the checkpoint carries the pins "{pins}" and the memories "{memories}"'))
def then_items(scenario_state: State, pins: str, memories: str) -> None:
    checkpoint = _checkpoint(scenario_state)
    assert [p["id"] for p in checkpoint["pins"]] == pins.split(), checkpoint["pins"]
    assert [m["id"] for m in checkpoint["memories"]] == memories.split(), checkpoint["memories"]
    for item in (*checkpoint["pins"], *checkpoint["memories"]):
        assert item["status"] == "active" and item["scope"] != "project", item
        provenance = item["provenance"]
        assert provenance["sourceSessionId"] == checkpoint["sourceSessionId"], provenance
        assert provenance["sourceSessionFile"] == _canonical_source(scenario_state), provenance


@then(parsers.parse('the carried pin "{pin_id}" keeps its original content "{content}" and its {field} "{value}"'))
def then_pin_identity(scenario_state: State, pin_id: str, content: str, field: str, value: str) -> None:
    pin = next(p for p in _checkpoint(scenario_state)["pins"] if p["id"] == pin_id)
    assert pin["content"] == content and str(pin[field]) == value, pin


# ------------------------------------------------------------------ then: journal


@then(parsers.parse('the rebase journal phase is "{phase}"'))
def then_journal_phase(scenario_state: State, phase: str) -> None:
    record = _journal_value(scenario_state)
    assert record["phase"] == phase, record
    problems = [schemas.describe(e) for e in schemas.errors(record, JOURNAL_SCHEMA)]
    assert not problems, problems


@then(parsers.parse('the rebase journal records the error code "{code}"'))
def then_journal_error(scenario_state: State, code: str) -> None:
    assert _journal_value(scenario_state)["errorCode"] == code


@then("the rebase journal is compact JSON of at most 32,000 bytes with no trailing newline")
def then_journal_bytes(adapter: Adapter, scenario_state: State) -> None:
    data = _journal(scenario_state).read_bytes()
    text = data.decode("utf-8")
    assert len(data) <= 32_000 and not text.endswith("\n")
    assert adapter.request("json.canonicalize", {"text": text})["text"] == text, "the journal is not compact JSON"


@then("the rebase journal describes the source, the target and the operation")
def then_journal_fields(scenario_state: State) -> None:
    record = _journal_value(scenario_state)
    data = _rebase(scenario_state)["source_bytes"]
    header = json.loads(data.split(b"\n", 1)[0])
    target = _target(scenario_state)
    target_bytes = target.read_bytes()
    expected = {
        "schemaVersion": 1, "id": _operation_id(scenario_state), "projectPath": str(_history(scenario_state)["cwd"]),
        "sourceSessionId": header["id"], "sourceSessionFile": _canonical_source(scenario_state),
        "sourceSize": len(data), "sourceHash": _sha256(data),
        "targetSessionId": _records(target)[0]["id"], "targetSessionFile": str(target),
        "targetSize": len(target_bytes), "targetHash": _sha256(target_bytes),
    }
    assert {key: record.get(key) for key in expected} == expected, record
    assert record["sourceLeafId"] == _checkpoint(scenario_state)["sourceLeafId"]


@then(parsers.parse("the rebase journal was created and last updated at {now:d} ms"))
def then_journal_times(scenario_state: State, now: int) -> None:
    record = _journal_value(scenario_state)
    assert (record["createdAt"], record["updatedAt"]) == (now, now), record


@then("the rebase journal holds the target fingerprint of the file on disk")
def then_journal_fingerprint(scenario_state: State) -> None:
    record = _journal_value(scenario_state)
    data = _target(scenario_state).read_bytes()
    assert record["targetSize"] == len(data) and record["targetHash"] == _sha256(data), record


# ------------------------------------------------------------------ then: notifications


@then(parsers.parse('the host showed one {level} notification naming the operation'))
def then_notification(scenario_state: State, level: str) -> None:
    notifications = _rebase(scenario_state)["response"]["notifications"]
    assert [n["level"] for n in notifications] == [level], notifications
    assert _operation_id(scenario_state) in notifications[0]["message"], notifications


@then("the host showed no notification")
def then_no_notification(scenario_state: State) -> None:
    notifications = _rebase(scenario_state)["response"]["notifications"]
    assert notifications == [], notifications
