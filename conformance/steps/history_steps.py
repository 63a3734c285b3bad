"""Steps for the history tools: INDEX, RECALL, SCOPE, PRIVACY, REF, READ and STATUS scenarios.

A scenario builds a Pi home, a project folder and session files in its own folder, opens the
current session in the implementation's history host (``history.open``), then calls the three
tools with the arguments a model would send.  Session lines in doc strings may say ``{cwd}`` for
the project folder.  Every envelope is checked against ``schemas/history/result.schema.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, then, when

from conformance import schemas
from conformance.protocol import Adapter, ContractError

State = dict[str, Any]
RESULT_SCHEMA = "history/result.schema.json"


def _history(state: State) -> dict[str, Any]:
    history: dict[str, Any] = state.setdefault("history", {"sessions": {}, "results": []})
    return history


def _host_params(state: State) -> dict[str, Any]:
    history = _history(state)
    return {
        "home": str(history["home"]),
        "cwd": str(history["cwd"]),
        "env": {"PI_CODING_AGENT_DIR": str(history["agent"])},
        "argv": ["--approve"] if history["trusted"] else ["--no-approve"],
    }


def _lines(docstring: str, cwd: Path) -> bytes:
    lines = [line.replace("{cwd}", json.dumps(str(cwd))[1:-1]) for line in docstring.splitlines() if line.strip()]
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _record(state: State, name: str, path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    _history(state)["sessions"][name] = path


# ------------------------------------------------------------------ given


def _project(workdir: Path, state: State, *, trusted: bool) -> None:
    history = _history(state)
    history["home"] = workdir / "home"
    history["agent"] = workdir / "home" / "agent"
    history["cwd"] = (workdir / "project").resolve()
    history["folder"] = workdir / "sessions"
    history["trusted"] = trusted
    for folder in (history["home"], history["agent"], history["cwd"], history["folder"]):
        Path(folder).mkdir(parents=True, exist_ok=True)


@given("a trusted history project")
def given_trusted_project(workdir: Path, scenario_state: State) -> None:
    _project(workdir, scenario_state, trusted=True)


@given("an untrusted history project")
def given_untrusted_project(workdir: Path, scenario_state: State) -> None:
    _project(workdir, scenario_state, trusted=False)


@given("the global history configuration:")
@when("the global history configuration is changed to:")
def given_config(scenario_state: State, docstring: str) -> None:
    agent: Path = _history(scenario_state)["agent"]
    (agent / "ds4-context.json").write_text(docstring, encoding="utf-8")


@given("the current history session with these lines:")
def given_current(scenario_state: State, docstring: str) -> None:
    history = _history(scenario_state)
    _record(scenario_state, "current", history["folder"] / "current.jsonl", _lines(docstring, history["cwd"]))


@given(parsers.parse('the sibling history session "{name}" with these lines:'))
def given_sibling(scenario_state: State, name: str, docstring: str) -> None:
    history = _history(scenario_state)
    _record(scenario_state, name, history["folder"] / f"{name}.jsonl", _lines(docstring, history["cwd"]))


@given(parsers.parse('the current history session has {count:d} sibling replies under "{parent}" that say "{text}"'))
def given_many_siblings(scenario_state: State, count: int, parent: str, text: str) -> None:
    path: Path = _history(scenario_state)["sessions"]["current"]
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
def given_remembered(scenario_state: State) -> None:
    _remember(scenario_state)


def _remember(state: State) -> None:
    history = _history(state)
    history["bytes"] = {name: Path(path).read_bytes() for name, path in history["sessions"].items()}


# ------------------------------------------------------------------ when: host


def _open(adapter: Adapter, state: State, **extra: Any) -> None:
    history = _history(state)
    params = {**_host_params(state), "sessionFile": str(history["sessions"].get("current", "")) or None,
              "indexPath": str(Path(history["agent"]) / "index" / "history.sqlite"), **extra}
    if "bytes" not in history:
        _remember(state)
    adapter.request("history.open", params)


@when("the history host opens the current session")
@given("the history host opens the current session")
def when_open(adapter: Adapter, scenario_state: State) -> None:
    _open(adapter, scenario_state, provider="openai")


@when(parsers.parse('the history host opens the current session with provider "{provider}"'))
@given(parsers.parse('the history host opens the current session with provider "{provider}"'))
def when_open_provider(adapter: Adapter, scenario_state: State, provider: str) -> None:
    _open(adapter, scenario_state, provider=provider)


@when(parsers.parse('the history host opens the current session at leaf "{leaf}"'))
def when_open_leaf(adapter: Adapter, scenario_state: State, leaf: str) -> None:
    _open(adapter, scenario_state, provider="openai", leaf=leaf)


@when("the history host opens a session that has no file")
def when_open_ephemeral(adapter: Adapter, scenario_state: State) -> None:
    history = _history(scenario_state)
    _open(adapter, scenario_state, provider="openai", sessionFile=str(history["folder"] / "never-written.jsonl"))


@when(parsers.parse('the history host switches to the sibling session "{name}"'))
def when_switch(adapter: Adapter, scenario_state: State, name: str) -> None:
    history = _history(scenario_state)
    _open(adapter, scenario_state, provider="openai", sessionFile=str(history["sessions"][name]))


@when(parsers.parse('the active leaf moves to "{leaf}"'))
def when_leaf(adapter: Adapter, scenario_state: State, leaf: str) -> None:
    adapter.request("history.setLeaf", {"leaf": None if leaf == "null" else leaf})


@when(parsers.parse('the model provider becomes "{provider}"'))
def when_provider(adapter: Adapter, scenario_state: State, provider: str) -> None:
    adapter.request("history.setProvider", {"provider": provider})


@when(parsers.parse("the clock is set to {now:d} ms"))
@given(parsers.parse("the clock is set to {now:d} ms"))
def when_clock(adapter: Adapter, now: int) -> None:
    adapter.request("clock.set", {"nowMs": now})


@when(parsers.parse("the clock moves on by {delta:d} ms"))
def when_clock_advance(adapter: Adapter, delta: int) -> None:
    adapter.request("clock.advance", {"ms": delta})


@when("the history host restarts")
def when_restart(adapter: Adapter) -> None:
    adapter.request("history.restart", {})


@when("the tool call is aborted before it runs")
def when_aborted(adapter: Adapter) -> None:
    adapter.request("history.setAborted", {"aborted": True})


@when("the history index file is deleted")
def when_delete_index(scenario_state: State) -> None:
    folder = Path(_history(scenario_state)["agent"]) / "index"
    shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------ when: tools


def _tool(adapter: Adapter, state: State, op: str, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        result = adapter.request(op, {"arguments": arguments})
    except ContractError as exc:  # the tools answer with envelopes, never with protocol errors
        raise AssertionError(f"{op} refused at the protocol level: {exc.code}: {exc.message}") from None
    errors = schemas.errors(result, RESULT_SCHEMA)
    assert not errors, [schemas.describe(e) for e in errors]
    history = _history(state)
    history["results"].append(result)
    history["last"] = result
    return result


@when(parsers.parse('recall is asked for "{query}"'))
def when_recall(adapter: Adapter, scenario_state: State, query: str) -> None:
    result = _tool(adapter, scenario_state, "history.recall", {"query": query})
    _history(scenario_state)["recall"] = result


@when("recall is asked with:")
def when_recall_with(adapter: Adapter, scenario_state: State, docstring: str) -> None:
    result = _tool(adapter, scenario_state, "history.recall", json.loads(docstring))
    _history(scenario_state)["recall"] = result


def _first_ref(state: State) -> str:
    recall = _history(state)["recall"]
    assert recall.get("hits"), f"recall returned no hits: {recall}"
    ref: str = recall["hits"][0]["sourceRef"]
    return ref


@when("the first hit is read")
def when_read(adapter: Adapter, scenario_state: State) -> None:
    _tool(adapter, scenario_state, "history.read", {"sourceRef": _first_ref(scenario_state)})


@when("the first hit is read with:")
def when_read_with(adapter: Adapter, scenario_state: State, docstring: str) -> None:
    _tool(adapter, scenario_state, "history.read", {"sourceRef": _first_ref(scenario_state), **json.loads(docstring)})


@when("read is asked with:")
def when_read_raw(adapter: Adapter, scenario_state: State, docstring: str) -> None:
    arguments = json.loads(docstring.replace("{session-file}", str(_history(scenario_state)["sessions"]["current"])))
    _tool(adapter, scenario_state, "history.read", arguments)


@when("the history status is asked")
def when_status(adapter: Adapter, scenario_state: State) -> None:
    _tool(adapter, scenario_state, "history.status", {})


# ------------------------------------------------------------------ when: tampering


def _current(state: State) -> Path:
    path: Path = _history(state)["sessions"]["current"]
    return path


@when(parsers.parse('the current session file is edited in place, "{old}" becoming "{new}"'))
def when_edit(scenario_state: State, old: str, new: str) -> None:
    path = _current(scenario_state)
    data = path.read_bytes()
    assert len(old.encode()) == len(new.encode()) and old.encode() in data
    stat = path.stat()
    path.write_bytes(data.replace(old.encode(), new.encode(), 1))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


@when(parsers.parse("the current session file loses its last {count:d} bytes"))
def when_truncate(scenario_state: State, count: int) -> None:
    path = _current(scenario_state)
    path.write_bytes(path.read_bytes()[:-count])


@when("the current session file is deleted")
def when_delete(scenario_state: State) -> None:
    _current(scenario_state).unlink()


@when("the current session file is swapped for a symbolic link to a copy of itself")
def when_symlink(scenario_state: State) -> None:
    path = _current(scenario_state)
    copy = path.with_name("copy-of-current.jsonl.bak")
    shutil.copyfile(path, copy)
    path.unlink()
    path.symlink_to(copy)


@when(parsers.parse("the current session file gets this line appended without a newline: {fragment}"))
def when_append_fragment(scenario_state: State, fragment: str) -> None:
    with _current(scenario_state).open("ab") as handle:
        handle.write(fragment.encode("utf-8"))


@when("the current session file gets these lines appended:")
def when_append(scenario_state: State, docstring: str) -> None:
    history = _history(scenario_state)
    with _current(scenario_state).open("ab") as handle:
        handle.write(_lines(docstring, history["cwd"]))


# ------------------------------------------------------------------ then


def _last(state: State) -> dict[str, Any]:
    last: dict[str, Any] = _history(state)["last"]
    return last


@then(parsers.parse('the result is unavailable with code "{code}"'))
def then_unavailable(scenario_state: State, code: str) -> None:
    result = _last(scenario_state)
    assert result["status"] == "unavailable" and result["warnings"] == [code], result
    assert set(result) == {"schema", "quotedData", "status", "coverage", "warnings"}, result


@then(parsers.parse('the result is {status} with warnings "{warnings}"'))
def then_status_warnings(scenario_state: State, status: str, warnings: str) -> None:
    result = _last(scenario_state)
    assert result["status"] == status, result
    assert result["warnings"] == warnings.split(), result


@then(parsers.parse("the result is {status} with no warnings"))
def then_status_clean(scenario_state: State, status: str) -> None:
    result = _last(scenario_state)
    assert result["status"] == status and result["warnings"] == [], result


@then(parsers.parse('the result carries the warning "{code}"'))
def then_has_warning(scenario_state: State, code: str) -> None:
    assert code in _last(scenario_state)["warnings"], _last(scenario_state)


@then(parsers.parse('the hit entry ids are "{ids}"'))
def then_hit_ids(scenario_state: State, ids: str) -> None:
    assert [h["entryId"] for h in _last(scenario_state)["hits"]] == ids.split(), _last(scenario_state)


@then("there are no hits")
def then_no_hits(scenario_state: State) -> None:
    assert _last(scenario_state)["hits"] == [], _last(scenario_state)


@then(parsers.parse('some hit has relation "{relation}"'))
def then_some_relation(scenario_state: State, relation: str) -> None:
    hits = _last(scenario_state)["hits"]
    assert any(h["relation"] == relation for h in hits), [(h["entryId"], h["relation"]) for h in hits]


@then(parsers.parse('every hit has relation "{relation}"'))
def then_every_relation(scenario_state: State, relation: str) -> None:
    hits = _last(scenario_state)["hits"]
    assert hits and all(h["relation"] == relation for h in hits), hits


@then(parsers.parse('the first hit has {field} "{value}"'))
def then_first_hit_field(scenario_state: State, field: str, value: str) -> None:
    hit = _last(scenario_state)["hits"][0]
    assert str(hit.get(field)) == value, hit


@then(parsers.parse('no hit comes from the session "{name}"'))
def then_no_hit_from(scenario_state: State, name: str) -> None:
    session_id = _session_id(scenario_state, name)
    assert all(h["sessionId"] != session_id for h in _last(scenario_state)["hits"]), _last(scenario_state)


@then(parsers.parse('a hit comes from the session "{name}"'))
def then_hit_from(scenario_state: State, name: str) -> None:
    session_id = _session_id(scenario_state, name)
    assert any(h["sessionId"] == session_id for h in _last(scenario_state)["hits"]), _last(scenario_state)


def _session_id(state: State, name: str) -> str:
    path: Path = _history(state)["sessions"][name]
    header = json.loads(path.read_bytes().split(b"\n", 1)[0])
    session_id: str = header["id"]
    return session_id


@then(parsers.parse('the read text contains "{text}"'))
def then_read_contains(scenario_state: State, text: str) -> None:
    result = _last(scenario_state)
    assert result["status"] in ("complete", "partial") and text in result["text"], result


@then(parsers.parse('the read text is "{text}"'))
def then_read_is(scenario_state: State, text: str) -> None:
    assert _last(scenario_state)["text"] == text.encode().decode("unicode_escape"), _last(scenario_state)


@then(parsers.parse('the read source entry id is "{entry_id}"'))
def then_read_entry(scenario_state: State, entry_id: str) -> None:
    assert _last(scenario_state)["source"]["entryId"] == entry_id


@then(parsers.parse("the read stops before line {line:d}"))
def then_next_line(scenario_state: State, line: int) -> None:
    result = _last(scenario_state)
    assert result["truncated"] is True and result["nextLine"] == line, result
    assert result["status"] == "partial" and result["warnings"] == ["more-lines"], result


@then("the read is whole")
def then_read_whole(scenario_state: State) -> None:
    result = _last(scenario_state)
    assert result["truncated"] is False and "nextLine" not in result and result["status"] == "complete", result


@then(parsers.parse("the result with {reserve:d} tokens of room fits {budget:d} chars-v1 tokens"))
def then_fits(scenario_state: State, reserve: int, budget: int) -> None:
    text = json.dumps(_last(scenario_state), ensure_ascii=False, separators=(",", ":"))
    units = len(text.encode("utf-16-le")) // 2
    assert -(-units // 4) + reserve <= budget, units


@then(parsers.parse("the status reports {count:d} indexed entries"))
def then_indexed(scenario_state: State, count: int) -> None:
    assert _last(scenario_state)["indexedEntries"] == count, _last(scenario_state)


@then("no result names a session file path")
def then_no_paths(scenario_state: State) -> None:
    history = _history(scenario_state)
    text = json.dumps(history["results"], ensure_ascii=False)
    for path in history["sessions"].values():
        assert str(path) not in text and Path(path).name not in text, "a result names a session file"


@then("every history session file is byte-identical to before")
def then_files_unchanged(scenario_state: State) -> None:
    history = _history(scenario_state)
    for name, data in history["bytes"].items():
        path = Path(history["sessions"][name])
        assert path.read_bytes() == data, f"{name} changed"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == hashlib.sha256(data).hexdigest()


@then("the results hold no excerpt or text")
def then_content_free(scenario_state: State) -> None:
    result = _last(scenario_state)
    assert "hits" not in result or result["hits"] == []
    assert "text" not in result and "excerpt" not in json.dumps(result)
