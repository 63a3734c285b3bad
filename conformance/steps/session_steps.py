"""Steps for reading sessions: READER, TREE, CONTEXT and TOOLX scenarios.

Session files are written by the harness from doc strings (one JSON value per line, each
followed by LF unless a step says otherwise) or copied from packaged fixtures by id.  The
expected values that the harness computes itself (byte offsets, SHA-256) come from the bytes it
wrote, never from the implementation.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter, ContractError
from conformance.suite import fixture_path

State = dict[str, Any]


def _write_session(workdir: Path, state: State, data: bytes, name: str = "session.jsonl") -> Path:
    path = workdir / name
    path.write_bytes(data)
    state["session"] = path
    state["bytes_before"] = data
    return path


def _lines(docstring: str) -> list[str]:
    return [line for line in docstring.splitlines() if line != ""]


# ------------------------------------------------------------------ given


@given(parsers.parse('the fixture session "{fixture_id}"'))
def given_fixture(workdir: Path, scenario_state: State, fixture_id: str) -> None:
    source = fixture_path(fixture_id)
    target = workdir / source.name
    shutil.copyfile(source, target)
    scenario_state["session"] = target
    scenario_state["bytes_before"] = target.read_bytes()


@given("a session file with these lines:")
def given_lines(workdir: Path, scenario_state: State, docstring: str) -> None:
    text = "".join(line + "\n" for line in _lines(docstring))
    _write_session(workdir, scenario_state, text.encode("utf-8"))


@given("a session file with CRLF line endings and these lines:")
def given_crlf_lines(workdir: Path, scenario_state: State, docstring: str) -> None:
    text = "".join(line + "\r\n" for line in _lines(docstring))
    _write_session(workdir, scenario_state, text.encode("utf-8"))


@given("a session file whose last line has no newline, with these lines:")
def given_unterminated(workdir: Path, scenario_state: State, docstring: str) -> None:
    text = "\n".join(_lines(docstring))
    _write_session(workdir, scenario_state, text.encode("utf-8"))


@given(parsers.parse("a session file with a UTF-8 byte order mark before these lines:"))
def given_bom(workdir: Path, scenario_state: State, docstring: str) -> None:
    text = "".join(line + "\n" for line in _lines(docstring))
    _write_session(workdir, scenario_state, b"\xef\xbb\xbf" + text.encode("utf-8"))


@given(parsers.parse("a session file with these lines, where line {number:d} is also followed by {count:d} blank lines:"))
def given_blank_after(workdir: Path, scenario_state: State, docstring: str, number: int, count: int) -> None:
    lines = _lines(docstring)
    lines[number - 1 : number] = [lines[number - 1]] + ["   "] * (count - 1) + [""]
    _write_session(workdir, scenario_state, "".join(line + "\n" for line in lines).encode("utf-8"))


@given(parsers.parse("a session file of {size:d} bytes of random binary data"))
def given_binary(workdir: Path, scenario_state: State, size: int) -> None:
    generator = random.Random(size)
    data = bytes(generator.randrange(256) for _ in range(size)).replace(b"\n", b"\x00")
    _write_session(workdir, scenario_state, data)


@given("an empty session file")
def given_empty(workdir: Path, scenario_state: State) -> None:
    _write_session(workdir, scenario_state, b"")


@given("a folder where the session file should be")
def given_folder(workdir: Path, scenario_state: State) -> None:
    folder = workdir / "folder.jsonl"
    folder.mkdir()
    scenario_state["session"] = folder


@given("a session path where no file exists")
def given_missing(workdir: Path, scenario_state: State) -> None:
    scenario_state["session"] = workdir / "missing.jsonl"


@given(parsers.parse("a valid header followed by {size:d} bytes of malformed lines and then these lines:"))
def given_late_header(workdir: Path, scenario_state: State, size: int, docstring: str) -> None:
    junk_line = b"{not json" + b"x" * 1000 + b"\n"
    junk = junk_line * (size // len(junk_line) + 1)
    text = "".join(line + "\n" for line in _lines(docstring)).encode("utf-8")
    _write_session(workdir, scenario_state, junk + text)


@given(parsers.parse("a session file with these lines, where line {number:d} carries a message of {mib:d} MiB:"))
def given_oversize(workdir: Path, scenario_state: State, number: int, mib: int, docstring: str) -> None:
    lines = _lines(docstring)
    entry = json.loads(lines[number - 1])
    entry["message"]["content"] = "x" * (mib * 1024 * 1024)
    lines[number - 1] = json.dumps(entry, separators=(",", ":"))
    _write_session(workdir, scenario_state, "".join(line + "\n" for line in lines).encode("utf-8"))


# ------------------------------------------------------------------ when


def call_adapter(adapter: Adapter, state: State, op: str, params: dict[str, Any]) -> None:
    """Run one operation; keep its result or its contract error for the Then steps."""
    state.pop("error", None)
    state.pop("result", None)
    try:
        state["result"] = adapter.request(op, params)
    except ContractError as exc:
        state["error"] = exc


@when("the session is inspected")
def when_inspect(adapter: Adapter, scenario_state: State) -> None:
    call_adapter(adapter, scenario_state, "session.inspect", {"path": str(scenario_state["session"])})


@when(parsers.parse('the session is inspected at leaf "{leaf}"'))
def when_inspect_leaf(adapter: Adapter, scenario_state: State, leaf: str) -> None:
    call_adapter(adapter, scenario_state, "session.inspect", {"path": str(scenario_state["session"]), "leaf": leaf})


@when("the session is inspected at the null leaf")
def when_inspect_null(adapter: Adapter, scenario_state: State) -> None:
    call_adapter(adapter, scenario_state, "session.inspect", {"path": str(scenario_state["session"]), "leaf": None})


@when("the session records are listed")
def when_records(adapter: Adapter, scenario_state: State) -> None:
    call_adapter(adapter, scenario_state, "session.records", {"path": str(scenario_state["session"])})


@when(parsers.parse('the tree node "{entry_id}" is described'))
def when_node(adapter: Adapter, scenario_state: State, entry_id: str) -> None:
    call_adapter(adapter, scenario_state, "session.node", {"path": str(scenario_state["session"]), "id": entry_id})


# ------------------------------------------------------------------ then: generic


def result(state: State) -> dict[str, Any]:
    if "error" in state:
        error: ContractError = state["error"]
        raise AssertionError(f"the implementation refused the request: {error.code}: {error.message}")
    value: dict[str, Any] = state["result"]
    return value


def _ids(text: str) -> list[Any]:
    return [None if word == "null" else word for word in text.split()]


@then(parsers.parse('the request fails with code "{code}"'))
def then_fails(scenario_state: State, code: str) -> None:
    assert "error" in scenario_state, f"expected {code}, got a result: {str(scenario_state.get('result'))[:300]}"
    error: ContractError = scenario_state["error"]
    assert error.code == code, f"expected code {code}, got {error.code}: {error.message}"
    assert error.message.strip(), "the error message is empty"
    assert "\n" not in error.message.strip(), "the error message is not one line"


@then("the session file is byte-identical to before")
def then_unchanged(scenario_state: State) -> None:
    path: Path = scenario_state["session"]
    assert path.read_bytes() == scenario_state["bytes_before"], "the session file was changed"


@then("the session folder holds only the session file")
def then_no_siblings(scenario_state: State) -> None:
    path: Path = scenario_state["session"]
    assert sorted(os.listdir(path.parent)) == [path.name]


# ------------------------------------------------------------------ then: reader


@then(parsers.parse("there are {count:d} records"))
def then_record_count(scenario_state: State, count: int) -> None:
    records = result(scenario_state)["records"]
    assert len(records) == count, [r["kind"] for r in records]


@then("every record is located by its byte span, with the LF inside the span")
def then_spans(scenario_state: State) -> None:
    data: bytes = scenario_state["bytes_before"]
    position = 0
    for record in result(scenario_state)["records"]:
        newline = data.find(b"\n", position)
        end = len(data) if newline < 0 else newline + 1
        assert (record["start"], record["end"]) == (position, end), record
        assert record["terminated"] == (newline >= 0), record
        position = end
    assert position == len(data)


@then("every record carries the SHA-256 of its line bytes without the LF")
def then_hashes(scenario_state: State) -> None:
    data: bytes = scenario_state["bytes_before"]
    for record in result(scenario_state)["records"]:
        line = data[record["start"] : record["end"]]
        if line.endswith(b"\n"):
            line = line[:-1]
        assert record["sha256"] == hashlib.sha256(line).hexdigest(), record


@then(parsers.parse('record {number:d} is of kind "{kind}"'))
def then_record_kind(scenario_state: State, number: int, kind: str) -> None:
    record = result(scenario_state)["records"][number - 1]
    assert record["kind"] == kind, record


@then(parsers.parse("records {numbers} end with CR before the LF"))
def then_crlf(scenario_state: State, numbers: str) -> None:
    records = result(scenario_state)["records"]
    for number in (int(n) for n in numbers.replace(",", " ").split()):
        assert records[number - 1]["crlf"] is True, records[number - 1]


@then(parsers.parse("the last record ends at the end of the file without an LF"))
def then_last_unterminated(scenario_state: State) -> None:
    records = result(scenario_state)["records"]
    assert records[-1]["end"] == len(scenario_state["bytes_before"])
    assert records[-1]["terminated"] is False


# ------------------------------------------------------------------ then: inspect


@then(parsers.parse('the session id is "{session_id}" and its cwd is "{cwd}"'))
def then_identity(scenario_state: State, session_id: str, cwd: str) -> None:
    report = result(scenario_state)
    assert (report["sessionId"], report["cwd"]) == (session_id, cwd)


@then(parsers.parse("the header version is {version:d}"))
def then_version(scenario_state: State, version: int) -> None:
    assert result(scenario_state)["version"] == version


@then(parsers.parse("the file is flagged as legacy version {version:d}"))
def then_legacy(scenario_state: State, version: int) -> None:
    assert result(scenario_state)["diagnostics"]["legacyVersion"] == version


@then("the file is not flagged as legacy")
def then_not_legacy(scenario_state: State) -> None:
    assert result(scenario_state)["diagnostics"]["legacyVersion"] is None


@then("no tree or context is built from it")
def then_no_tree(scenario_state: State) -> None:
    report = result(scenario_state)
    assert report["pathIds"] == [] and report["contextEntryIds"] == [] and report["context"] == []
    assert report["leafId"] is None


@then(parsers.parse("the diagnostics count {count:d} {kind} at lines {lines}"))
def then_diag_lines(scenario_state: State, count: int, kind: str, lines: str) -> None:
    key = {"malformed lines": "malformedLines", "blank lines": "blankLines", "non-entry lines": "nonEntryLines",
           "skipped falsy lines": "skippedFalsyLines", "oversize records": "oversizeRecords",
           "later header lines": "extraHeaderLines"}[kind]
    diagnostic = result(scenario_state)["diagnostics"][key]
    assert diagnostic["count"] == count, diagnostic
    assert diagnostic["lines"] == [int(n) for n in lines.replace(",", " ").split()], diagnostic


@then(parsers.re(r"the diagnostics count (?P<count>\d+) (?P<kind>(?:(?! at lines ).)+)$"), converters={"count": int})
def then_diag_count(scenario_state: State, count: int, kind: str) -> None:
    diagnostics = result(scenario_state)["diagnostics"]
    value = {
        "malformed lines": lambda d: d["malformedLines"]["count"],
        "blank lines": lambda d: d["blankLines"]["count"],
        "oversize records": lambda d: d["oversizeRecords"]["count"],
        "CRLF lines": lambda d: d["crlfLines"],
        "duplicate ids": lambda d: d["duplicateIds"]["count"],
        "missing parents": lambda d: d["brokenAncestry"]["missingParents"]["count"],
        "entries on a parent cycle": lambda d: d["brokenAncestry"]["cycles"]["count"],
    }[kind](diagnostics)
    assert value == count, diagnostics


@then("the diagnostics report an unterminated tail")
def then_torn(scenario_state: State) -> None:
    assert result(scenario_state)["diagnostics"]["unterminatedTail"] is True


@then("the diagnostics report no unterminated tail")
def then_not_torn(scenario_state: State) -> None:
    assert result(scenario_state)["diagnostics"]["unterminatedTail"] is False


@then(parsers.parse("the entry count is {count:d}"))
def then_entry_count(scenario_state: State, count: int) -> None:
    assert result(scenario_state)["entryCount"] == count


@then(parsers.parse('the duplicate ids are "{ids}"'))
def then_duplicate_ids(scenario_state: State, ids: str) -> None:
    assert result(scenario_state)["diagnostics"]["duplicateIds"]["ids"] == _ids(ids)


@then(parsers.parse('the entries with a missing parent are "{ids}"'))
def then_missing_parents(scenario_state: State, ids: str) -> None:
    assert result(scenario_state)["diagnostics"]["brokenAncestry"]["missingParents"]["ids"] == _ids(ids)


@then(parsers.parse('the leaf is "{leaf}"'))
def then_leaf(scenario_state: State, leaf: str) -> None:
    assert result(scenario_state)["leafId"] == leaf


@then("the leaf is null")
def then_leaf_null(scenario_state: State) -> None:
    assert result(scenario_state)["leafId"] is None


@then(parsers.parse('the default leaf is "{leaf}"'))
def then_default_leaf(scenario_state: State, leaf: str) -> None:
    assert result(scenario_state)["defaultLeafId"] == leaf


@then(parsers.parse('the path ids are "{ids}"'))
def then_path(scenario_state: State, ids: str) -> None:
    assert result(scenario_state)["pathIds"] == _ids(ids)


@then("the path is empty")
def then_path_empty(scenario_state: State) -> None:
    assert result(scenario_state)["pathIds"] == []


@then(parsers.parse('the context entry ids are "{ids}"'))
def then_context_ids(scenario_state: State, ids: str) -> None:
    assert result(scenario_state)["contextEntryIds"] == _ids(ids)


@then("the context is empty")
def then_context_empty(scenario_state: State) -> None:
    report = result(scenario_state)
    assert report["contextEntryIds"] == [] and report["context"] == []


@then(parsers.parse("the context has {count:d} messages"))
def then_context_count(scenario_state: State, count: int) -> None:
    context = result(scenario_state)["context"]
    assert len(context) == count, [m.get("role") for m in context]


@then(parsers.parse('the context roles are "{roles}"'))
def then_context_roles(scenario_state: State, roles: str) -> None:
    assert [m.get("role") for m in result(scenario_state)["context"]] == roles.split()


@then(parsers.parse("context message {number:d} is exactly:"))
def then_context_message(scenario_state: State, number: int, docstring: str) -> None:
    message = result(scenario_state)["context"][number - 1]
    expected = json.loads(docstring)
    # Key order is part of the contract: compare the serialized forms too.
    assert list(message) == list(expected), f"key order {list(message)} != {list(expected)}"
    assert message == expected, message


@then(parsers.parse('the model is "{provider}/{model_id}" and the thinking level is "{level}"'))
def then_settings(scenario_state: State, provider: str, model_id: str, level: str) -> None:
    settings = result(scenario_state)["settings"]
    assert settings["model"] == {"provider": provider, "modelId": model_id}, settings
    assert settings["thinkingLevel"] == level, settings


@then(parsers.parse('there is no model and the thinking level is "{level}"'))
def then_no_model(scenario_state: State, level: str) -> None:
    settings = result(scenario_state)["settings"]
    assert settings["model"] is None and settings["thinkingLevel"] == level, settings


@then(parsers.parse("the tool exchange has {active:d} active and {historical:d} historical issues"))
def then_tool_counts(scenario_state: State, active: int, historical: int) -> None:
    counts = result(scenario_state)["toolExchange"]
    assert counts == {"activeIssueCount": active, "historicalIssueCount": historical}, counts


@then("the tool exchange diagnostics hold counts only")
def then_tool_counts_only(scenario_state: State) -> None:
    counts = result(scenario_state)["toolExchange"]
    assert set(counts) == {"activeIssueCount", "historicalIssueCount"}
    assert all(isinstance(v, int) for v in counts.values())


# ------------------------------------------------------------------ then: tree node


@then(parsers.parse('its ancestors are "{ids}"'))
def then_ancestors(scenario_state: State, ids: str) -> None:
    assert result(scenario_state)["ancestorIds"] == _ids(ids)


@then("it has no ancestors")
def then_no_ancestors(scenario_state: State) -> None:
    assert result(scenario_state)["ancestorIds"] == []


@then(parsers.parse('its children are "{ids}"'))
def then_children(scenario_state: State, ids: str) -> None:
    assert result(scenario_state)["childIds"] == _ids(ids)


@then(parsers.parse('its siblings are "{ids}"'))
def then_siblings(scenario_state: State, ids: str) -> None:
    assert result(scenario_state)["siblingIds"] == _ids(ids)


@then(parsers.parse("it has {count:d} siblings"))
def then_sibling_count(scenario_state: State, count: int) -> None:
    assert len(result(scenario_state)["siblingIds"]) == count


@then("its ancestry is reported as a cycle")
def then_cycle(scenario_state: State) -> None:
    assert result(scenario_state)["cycle"] is True


@then(parsers.parse('its missing parent is "{parent}"'))
def then_missing_parent(scenario_state: State, parent: str) -> None:
    node = result(scenario_state)
    assert node["missingParent"] == parent and node["isRoot"] is True, node


# ------------------------------------------------------------------ fixture facts


def _facts(state: State) -> dict[str, Any]:
    from conformance.suite import fixture_manifest

    name = state["session"].name
    for item in fixture_manifest().values():
        if Path(item["path"]).name == name:
            facts: dict[str, Any] = item["facts"]
            return facts
    raise AssertionError(f"{name} is not a packaged fixture")


@then("the session id, entry count and default leaf are those of the fixture's manifest facts")
def then_fixture_facts(scenario_state: State) -> None:
    facts = _facts(scenario_state)
    report = result(scenario_state)
    assert report["sessionId"] == facts["sessionId"], (report["sessionId"], facts)
    assert report["entryCount"] == facts["entryCount"], (report["entryCount"], facts)
    assert report["defaultLeafId"] == facts["defaultLeafId"], (report["defaultLeafId"], facts)


@when(parsers.parse('the fixture\'s notable entry "{name}" is described'))
def when_notable_node(adapter: Adapter, scenario_state: State, name: str) -> None:
    entry_id = _facts(scenario_state)["notable"][name]
    call_adapter(adapter, scenario_state, "session.node", {"path": str(scenario_state["session"]), "id": entry_id})


@then(parsers.parse("it has {count:d} children"))
def then_child_count(scenario_state: State, count: int) -> None:
    node = result(scenario_state)
    assert len(node["childIds"]) == count, len(node["childIds"])
    assert node["childIds"], node
