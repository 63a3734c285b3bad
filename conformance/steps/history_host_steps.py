"""Steps that set up a history scenario and drive its host: INDEX, RECALL, SCOPE, PRIVACY, REF,
READ and STATUS scenarios.

A scenario builds a Pi home, a project folder and session files in its own folder, opens the
current session in the implementation's history host (``history.open``), moves its leaf,
provider and clock.  Session lines in doc strings may say ``{cwd}`` for the project folder.
The tool calls are in :mod:`conformance.steps.history_tool_steps`, the checks of their
envelopes in :mod:`conformance.steps.history_result_steps`.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter, ContractError
from conformance.steps.history_calls import open_history, session_lines
from conformance.world import HistoryProject, HistoryWorld


def _project(workdir: Path, history: HistoryWorld, *, trusted: bool) -> None:
    project = HistoryProject(home=workdir / "home", agent=workdir / "home" / "agent",
                             cwd=(workdir / "project").resolve(), folder=workdir / "sessions", trusted=trusted)
    history.setup = project
    for folder in (project.home, project.agent, project.cwd, project.folder):
        Path(folder).mkdir(parents=True, exist_ok=True)


@given("a trusted history project")
def given_trusted_project(workdir: Path, history: HistoryWorld) -> None:
    _project(workdir, history, trusted=True)


@given("an untrusted history project")
def given_untrusted_project(workdir: Path, history: HistoryWorld) -> None:
    _project(workdir, history, trusted=False)


@when(parsers.parse("the history project becomes {trust}"))
def when_trust_changes(history: HistoryWorld, trust: str) -> None:
    """Pi's trust decision for the project changes; the next ``history.open`` carries it."""
    assert trust in ("trusted", "untrusted"), trust
    history.setup = replace(history.project, trusted=trust == "trusted")


@given("the global history configuration:")
@when("the global history configuration is changed to:")
def given_config(history: HistoryWorld, docstring: str) -> None:
    agent: Path = history.project.agent
    (agent / "ds4-context.json").write_text(docstring, encoding="utf-8")


@given("the current history session with these lines:")
def given_current(history: HistoryWorld, docstring: str) -> None:
    history.record("current", history.project.folder / "current.jsonl", session_lines(docstring, history.project.cwd))


@given(parsers.parse('the sibling history session "{name}" with these lines:'))
def given_sibling(history: HistoryWorld, name: str, docstring: str) -> None:
    history.record(name, history.project.folder / f"{name}.jsonl", session_lines(docstring, history.project.cwd))


@given(parsers.parse('the current history session has {count:d} sibling replies under "{parent}" that say "{text}"'))
def given_many_siblings(history: HistoryWorld, count: int, parent: str, text: str) -> None:
    path = history.current
    lines = path.read_bytes().splitlines(keepends=True)
    added = []
    for n in range(count):
        entry = {
            "type": "message", "id": f"sibling-{n}", "parentId": parent,
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1767225603000},
        }
        added.append((json.dumps(entry, separators=(",", ":")) + "\n").encode())
    # Siblings go before the last line, so the active leaf stays the last entry in file order.
    path.write_bytes(b"".join(lines[:-1] + added + lines[-1:]))


@given("the history session files are remembered")
@when("the history session files are remembered")
def given_remembered(history: HistoryWorld) -> None:
    history.remember()


# ------------------------------------------------------------------ when: host


@when("the history host opens the current session")
@given("the history host opens the current session")
def when_open(adapter: Adapter, history: HistoryWorld) -> None:
    open_history(adapter, history, provider="openai")


@when(parsers.parse('the history host opens the current session with provider "{provider}"'))
@given(parsers.parse('the history host opens the current session with provider "{provider}"'))
def when_open_provider(adapter: Adapter, history: HistoryWorld, provider: str) -> None:
    open_history(adapter, history, provider=provider)


@when(parsers.parse('the history host opens the current session at leaf "{leaf}"'))
def when_open_leaf(adapter: Adapter, history: HistoryWorld, leaf: str) -> None:
    open_history(adapter, history, provider="openai", leaf=leaf)


@when(parsers.parse('the history host opens the current session from the working directory "{name}", '
                    'a symbolic link to the project folder'))
def when_open_through_link(adapter: Adapter, history: HistoryWorld, workdir: Path, name: str) -> None:
    """The runtime project path is the real path of Pi's working directory (contract §0.2): a
    ``cwd`` that is a symbolic link to the project folder is the same project."""
    link = workdir / name
    try:
        link.symlink_to(history.project.cwd, target_is_directory=True)
    except OSError as exc:  # Windows without the symlink privilege
        pytest.fail(f"this platform cannot create the symbolic link this scenario needs: {exc}")
    open_history(adapter, history, provider="openai", cwd=str(link))


@when("the history host opens a session that has no file")
def when_open_ephemeral(adapter: Adapter, history: HistoryWorld) -> None:
    open_history(adapter, history, provider="openai", sessionFile=str(history.project.folder / "never-written.jsonl"))


@when(parsers.parse('the history host switches to the sibling session "{name}"'))
def when_switch(adapter: Adapter, history: HistoryWorld, name: str) -> None:
    open_history(adapter, history, provider="openai", sessionFile=str(history.sessions[name]))


@when(parsers.parse('the active leaf moves to "{leaf}"'))
def when_leaf(adapter: Adapter, leaf: str) -> None:
    adapter.request("history.setLeaf", {"leaf": None if leaf == "null" else leaf})


@when(parsers.parse('the model provider becomes "{provider}"'))
def when_provider(adapter: Adapter, provider: str) -> None:
    adapter.request("history.setProvider", {"provider": provider})


@when(parsers.parse("the clock is set to {now:d} ms"))
@given(parsers.parse("the clock is set to {now:d} ms"))
def when_clock(adapter: Adapter, now: int) -> None:
    adapter.request("clock.set", {"nowMs": now})


@when(parsers.parse("the clock moves on by {delta:d} ms"))
def when_clock_advance(adapter: Adapter, delta: int) -> None:
    adapter.request("clock.advance", {"ms": delta})


@when(parsers.parse("the history host is sent {op} with the params {params}"))
def when_sent(adapter: Adapter, history: HistoryWorld, op: str, params: str) -> None:
    """One host request with these params as they are (wrong types included)."""
    history.last_answer, history.last_refusal = None, None
    try:
        history.last_answer = adapter.request(op, json.loads(params))
    except ContractError as refusal:
        history.last_refusal = refusal


@then(parsers.parse('that request is refused with code "{code}"'))
def then_sent_refused(history: HistoryWorld, code: str) -> None:
    refusal = history.last_refusal
    assert refusal is not None, f"the request was answered: {history.last_answer!r}"
    assert refusal.code == code, f"{refusal.code}: {refusal.message}"


@then(parsers.parse("that request answered nowMs {now:d}"))
def then_sent_now(history: HistoryWorld, now: int) -> None:
    refusal = history.last_refusal
    assert refusal is None, f"the request was refused: {refusal.code}: {refusal.message}"
    assert history.last_answer == {"nowMs": now}, history.last_answer


@when("the history host restarts")
def when_restart(adapter: Adapter) -> None:
    adapter.request("history.restart", {})


@when("the tool call is aborted before it runs")
def when_aborted(adapter: Adapter) -> None:
    adapter.request("history.setAborted", {"aborted": True})


@when("the history index file is deleted")
def when_delete_index(history: HistoryWorld) -> None:
    folder = history.project.agent / "index"
    shutil.rmtree(folder, ignore_errors=True)
