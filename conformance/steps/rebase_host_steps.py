"""Steps that set up a session rebase and drive its host: REBASE, ATOMIC, CHECKPOINT, JOURNAL,
LOCK, RECOVER, LINEAGE and CRASH scenarios (contract §6, §7.2; decisions D1, D2, D8, D9, D11).

A scenario builds its project, Pi home and source session with the history steps (``a trusted
history project``, ``the current history session with these lines:``, ``the global history
configuration:``), opens that session in the implementation's rebase host (``rebase.open``,
every host fact settable) and runs ``rebase.run`` in one of its modes
(:mod:`conformance.steps.rebase_calls`).  What the harness can compute from bytes it wrote
(source SHA-256, canonical path, operation id, target file name) it computes itself
(:mod:`conformance.interop_layout`).  Nothing here imports the reference.
"""

from __future__ import annotations

import json

from pytest_bdd import given, parsers, when

from conformance import schemas
from conformance.protocol import Adapter
from conformance.steps.common import symlink
from conformance.steps.history_calls import open_history, session_lines
from conformance.steps.rebase_calls import CRASH_SCHEMA, open_rebase, run_rebase
from conformance.steps.rebase_files import (
    CHECKPOINT_TYPE,
    custom_entries,
    records,
)
from conformance.world import RebaseWorld


@given(parsers.parse('the session "{name}" beside the current one, with these lines:'))
def given_beside(rebase: RebaseWorld, name: str, docstring: str) -> None:
    """``{cwd}`` is the project folder, ``{source}`` the canonical path of the current session."""
    history = rebase.history
    text = docstring.replace("{source}", json.dumps(rebase.canonical_source)[1:-1])
    history.record(name, history.project.folder / f"{name}.jsonl", session_lines(text, history.project.cwd))


@given(parsers.parse('the current history session also holds a user message "{entry_id}" of {count:d} "{piece}" characters'))
def given_long_message(rebase: RebaseWorld, entry_id: str, count: int, piece: str) -> None:
    path = rebase.source
    entry = {"type": "message", "id": entry_id, "parentId": records(path)[-1]["id"],
             "timestamp": "2026-01-01T00:00:30.000Z",
             "message": {"role": "user", "content": piece * count, "timestamp": 1767225630000}}
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))


@given(parsers.parse("the current history session also holds {count:d} session pins"))
def given_many_pins(rebase: RebaseWorld, count: int) -> None:
    """``count`` pin additions chained after the last entry (the §6.6 item limit is 1000)."""
    path = rebase.source
    parent = records(path)[-1]["id"]
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


@when("the rebase host opens the current session")
def when_open(adapter: Adapter, rebase: RebaseWorld) -> None:
    open_rebase(adapter, rebase)


@when(parsers.parse('the rebase host opens the current session at leaf "{leaf}"'))
def when_open_leaf(adapter: Adapter, rebase: RebaseWorld, leaf: str) -> None:
    open_rebase(adapter, rebase, leaf=leaf)


@when("the rebase host opens the current session with these facts:")
def when_open_facts(adapter: Adapter, rebase: RebaseWorld, docstring: str) -> None:
    open_rebase(adapter, rebase, **json.loads(docstring))


@when("the rebase host opens a session that has no file")
def when_open_ephemeral(adapter: Adapter, rebase: RebaseWorld) -> None:
    open_rebase(adapter, rebase, str(rebase.history.project.folder / "never-written.jsonl"))


@when(parsers.parse('the rebase host opens the session "{name}" beside the current one'))
def when_open_beside(adapter: Adapter, rebase: RebaseWorld, name: str) -> None:
    open_rebase(adapter, rebase, str(rebase.history.project.folder / f"{name}.jsonl"))


@when("the rebase host opens the rebase target")
def when_open_target(adapter: Adapter, rebase: RebaseWorld) -> None:
    open_rebase(adapter, rebase, str(rebase.target))


@when(parsers.parse('the rebase host opens the current session through the symbolic link "{name}"'))
def when_open_alias(adapter: Adapter, rebase: RebaseWorld, name: str) -> None:
    link = rebase.history.project.folder / name
    if not link.is_symlink():
        link.parent.mkdir(parents=True, exist_ok=True)
        symlink(link, rebase.source)
    open_rebase(adapter, rebase, str(link))


@when("the rebase host facts change to:")
def when_facts(adapter: Adapter, rebase: RebaseWorld, docstring: str) -> None:
    facts = json.loads(docstring)
    if "leaf" in facts:
        rebase.leaf = facts["leaf"]
    adapter.request("rebase.setFacts", facts)


@when("a rebase dry run is asked")
def when_dry_run(adapter: Adapter, rebase: RebaseWorld) -> None:
    run_rebase(adapter, rebase, {"mode": "dry-run"})


@when("a rebase is asked")
def when_run(adapter: Adapter, rebase: RebaseWorld) -> None:
    run_rebase(adapter, rebase, {"mode": "run"})


@when("the rebase service is asked directly for a rebase")
def when_run_service(adapter: Adapter, rebase: RebaseWorld) -> None:
    run_rebase(adapter, rebase, {"mode": "run", "layer": "service"})


@when("the rebase operation is recovered")
def when_recover(adapter: Adapter, rebase: RebaseWorld) -> None:
    run_rebase(adapter, rebase, {"mode": "recover", "operationId": rebase.operation_id})


@when(parsers.re(r'recovery of the operation "(?P<operation_id>[^"]*)" is asked'))  # "" too
def when_recover_id(adapter: Adapter, rebase: RebaseWorld, operation_id: str) -> None:
    run_rebase(adapter, rebase, {"mode": "recover", "operationId": operation_id})


def _crash(adapter: Adapter, rebase: RebaseWorld, params: dict[str, str]) -> None:
    """``rebase.crash``: a child process armed to die at ``params["point"]``; its report is kept."""
    response = adapter.request("rebase.crash", params)
    problems = [schemas.describe(e) for e in schemas.errors(response, CRASH_SCHEMA)]
    assert not problems, (problems, response)
    rebase.last_crash = response


@when(parsers.parse('a rebase crashes at "{point}" in a child process'))
def when_crash(adapter: Adapter, rebase: RebaseWorld, point: str) -> None:
    _crash(adapter, rebase, {"point": point})


@when(parsers.parse('a recovery of the rebase operation crashes at "{point}" in a child process'))
def when_recovery_crash(adapter: Adapter, rebase: RebaseWorld, point: str) -> None:
    """``rebase.crash`` armed at ``point`` for ``--recover`` of the scenario's operation: a
    resumed operation that never reaches ``point`` runs to its end (exit code 0)."""
    _crash(adapter, rebase, {"point": point, "operationId": rebase.operation_id})


@when("the rebase files are remembered")
def when_remember(rebase: RebaseWorld) -> None:
    rebase.target_bytes = rebase.target.read_bytes()
    rebase.remembered_operation = rebase.operation_id


@when("the history host opens the rebase target")
def when_history_target(adapter: Adapter, rebase: RebaseWorld) -> None:
    open_history(adapter, rebase.history, provider="openai", sessionFile=str(rebase.target))


@when("the history active leaf moves to the checkpoint entry of the rebase target")
def when_history_leaf_checkpoint(adapter: Adapter, rebase: RebaseWorld) -> None:
    entry = custom_entries(rebase, CHECKPOINT_TYPE)[0]
    adapter.request("history.setLeaf", {"leaf": entry["id"]})
