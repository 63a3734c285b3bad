"""Steps for the REF, READ, STATUS and INDEX scenarios of the history tools.

They build on ``history_steps`` (project, sessions, host, tools, tampering) and add what those
scenarios need besides: references kept by name or counted across recalls, generated messages
whose lines the harness knows, line-ending and tail edits of the session file, and checks of a
read against the contract's line filling (§3.3 steps 8-12) computed from the harness's own text.
Expected values come from bytes the harness wrote, never from the implementation.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.history_steps import (
    State,
    _current,
    _first_ref,
    _history,
    _last,
    _record,
    _session_id,
    _tool,
)

#: chars-v1 tokens of the serialized envelope plus this reserve is a result's cost (§3.3 step 10).
RESERVE_TOKENS = 96
#: Fields a hit has and a read's ``source`` has not (§2.9).
HIT_ONLY_FIELDS = ("excerpt", "matchReasons", "score", "truncated")
STATUS_KEYS = {"schema", "quotedData", "status", "coverage", "warnings", "effectiveScope", "indexedEntries"}


def _js_json(value: Any) -> str:
    """``JSON.stringify`` for the plain values of an envelope (strings, integers, lists, objects)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _cost(envelope: dict[str, Any]) -> int:
    units = len(_js_json(envelope).encode("utf-16-le")) // 2
    return math.ceil(units / 4) + RESERVE_TOKENS


def _messages(state: State) -> dict[str, list[str]]:
    messages: dict[str, list[str]] = _history(state).setdefault("messages", {})
    return messages


def _last_entry_id(path: Path) -> str:
    for line in reversed(path.read_bytes().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("type") != "session" and isinstance(value.get("id"), str):
            entry_id: str = value["id"]
            return entry_id
    raise AssertionError("the current session file has no entry to hang a message on")


def _append_message(state: State, entry_id: str, lines: list[str]) -> None:
    """A user message whose content is ``lines`` joined with LF, a child of the last entry."""
    path = _current(state)
    data = path.read_bytes()
    assert data.endswith(b"\n"), "the current session file must end with a complete line"
    entry = {
        "type": "message", "id": entry_id, "parentId": _last_entry_id(path),
        "timestamp": "2026-01-01T00:00:09.000Z",
        "message": {"role": "user", "content": "\n".join(lines), "timestamp": 1767225609000},
    }
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))
    _messages(state)[entry_id] = lines


def _refs_issued(state: State) -> list[str]:
    """Every sourceRef the recalls of this scenario returned, in the order they were returned."""
    refs: list[str] = []
    for result in _history(state)["results"]:
        for hit in result.get("hits") or []:
            if hit["sourceRef"] not in refs:
                refs.append(hit["sourceRef"])
    return refs


def _read(adapter: Adapter, state: State, ref: str, extra: dict[str, Any] | None = None) -> None:
    _tool(adapter, state, "history.read", {"sourceRef": ref, **(extra or {})})


# ------------------------------------------------------------------ given


@given("the current history session with these lines, blank lines kept:")
def given_current_with_blanks(scenario_state: State, docstring: str) -> None:
    history = _history(scenario_state)
    cwd = json.dumps(str(history["cwd"]))[1:-1]
    data = "".join(line.replace("{cwd}", cwd) + "\n" for line in docstring.split("\n"))
    _record(scenario_state, "current", history["folder"] / "current.jsonl", data.encode("utf-8"))


@given(parsers.parse('the current history session has {count:d} numbered replies under "{parent}" that say "{text}"'))
def given_numbered_replies(scenario_state: State, count: int, parent: str, text: str) -> None:
    """Distinct replies (``<text> number <n>``), inserted before the last line so the leaf stays."""
    path = _current(scenario_state)
    lines = path.read_bytes().splitlines(keepends=True)
    added = []
    for n in range(1, count + 1):
        entry = {
            "type": "message", "id": f"reply-{n}", "parentId": parent,
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {"role": "user", "content": f"{text} number {n}", "timestamp": 1767225603000},
        }
        added.append((json.dumps(entry, separators=(",", ":")) + "\n").encode())
    path.write_bytes(b"".join(lines[:-1] + added + lines[-1:]))


@given("the current history session file has CRLF line endings")
def given_crlf(scenario_state: State) -> None:
    path = _current(scenario_state)
    path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))


@given(parsers.parse('the current history session ends with a user message "{entry_id}" of {count:d} lines, '
                     'the first saying "{first}"'))
@when(parsers.parse('the current history session ends with a user message "{entry_id}" of {count:d} lines, '
                    'the first saying "{first}"'))
def given_long_message(scenario_state: State, entry_id: str, count: int, first: str) -> None:
    _append_message(scenario_state, entry_id, [first] + [f"line {n}" for n in range(2, count + 1)])


@given(parsers.parse('the current history session ends with a user message "{entry_id}" of {count:d} lines of '
                     '{width:d} characters, the first saying "{first}"'))
def given_long_wide_message(scenario_state: State, entry_id: str, count: int, width: int, first: str) -> None:
    lines = [first] + [f"line {n} ".ljust(width, ".") for n in range(2, count + 1)]
    _append_message(scenario_state, entry_id, lines)


@given(parsers.parse('the current history session ends with a user message "{entry_id}" whose first line is '
                     '"{first}" and {width:d} more characters, then "{second}"'))
def given_wide_message(scenario_state: State, entry_id: str, first: str, width: int, second: str) -> None:
    _append_message(scenario_state, entry_id, [first + " " + "w" * (width - 1), second])


# ------------------------------------------------------------------ when: recall and references


@when(parsers.parse("recall is asked {times:d} more times with:"))
def when_recall_repeated(adapter: Adapter, scenario_state: State, times: int, docstring: str) -> None:
    arguments = json.loads(docstring)
    for _ in range(times):
        result = _tool(adapter, scenario_state, "history.recall", arguments)
        _history(scenario_state)["recall"] = result


@when(parsers.parse('the first hit\'s reference is kept as "{name}"'))
def when_keep_ref(scenario_state: State, name: str) -> None:
    _history(scenario_state).setdefault("kept", {})[name] = _first_ref(scenario_state)


@when(parsers.parse('the reference "{name}" is read'))
def when_read_kept(adapter: Adapter, scenario_state: State, name: str) -> None:
    _read(adapter, scenario_state, _history(scenario_state)["kept"][name])


@when(parsers.parse('the reference "{name}" is read with:'))
def when_read_kept_with(adapter: Adapter, scenario_state: State, name: str, docstring: str) -> None:
    _read(adapter, scenario_state, _history(scenario_state)["kept"][name], json.loads(docstring))


@when("the first hit's reference is read with its last hex digit changed")
def when_read_altered(adapter: Adapter, scenario_state: State) -> None:
    ref = _first_ref(scenario_state)
    _read(adapter, scenario_state, ref[:-1] + ("0" if ref[-1] != "0" else "1"))


@when("the first hit is read on from the next line with:")
def when_read_on(adapter: Adapter, scenario_state: State, docstring: str) -> None:
    next_line = _last(scenario_state)["nextLine"]
    _read(adapter, scenario_state, _first_ref(scenario_state), {**json.loads(docstring), "startLine": next_line})


@when(parsers.parse("reference number {number:d} issued in this scenario is read"))
def when_read_numbered(adapter: Adapter, scenario_state: State, number: int) -> None:
    refs = _refs_issued(scenario_state)
    assert len(refs) >= number, f"only {len(refs)} references were issued"
    _read(adapter, scenario_state, refs[number - 1])


@when(parsers.parse('the hit with entry id "{entry_id}" is read'))
def when_read_hit(adapter: Adapter, scenario_state: State, entry_id: str) -> None:
    hits = _history(scenario_state)["recall"]["hits"]
    found = [h for h in hits if h["entryId"] == entry_id]
    assert found, [h["entryId"] for h in hits]
    _read(adapter, scenario_state, found[0]["sourceRef"])


# ------------------------------------------------------------------ when: the session file


@when(parsers.parse('the current session file is copied to the sibling session "{name}"'))
def when_copy_current(scenario_state: State, name: str) -> None:
    history = _history(scenario_state)
    path = history["folder"] / f"{name}.jsonl"
    path.write_bytes(_current(scenario_state).read_bytes())
    history["sessions"][name] = path
    history.setdefault("bytes", {})[name] = path.read_bytes()


@when("the current session file gets a line feed appended")
def when_append_lf(scenario_state: State) -> None:
    with _current(scenario_state).open("ab") as handle:
        handle.write(b"\n")


@when("the current session file loses its last line")
def when_drop_last_line(scenario_state: State) -> None:
    path = _current(scenario_state)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))


@when(parsers.parse("the current session file loses the last {count:d} bytes of its last entry"))
def when_cut_last_entry(scenario_state: State, count: int) -> None:
    """Cut into the last line (its LF and ``count - 1`` bytes before it): the line no longer parses."""
    path = _current(scenario_state)
    data = path.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    assert len(data) - count > last_start, "the cut must stay inside the last line"
    path.write_bytes(data[:-count])


# ------------------------------------------------------------------ then: results


@then(parsers.parse('the result is unavailable with one of the codes "{codes}"'))
def then_unavailable_one_of(scenario_state: State, codes: str) -> None:
    result = _last(scenario_state)
    assert set(result) == {"schema", "quotedData", "status", "coverage", "warnings"}, result
    assert result["status"] == "unavailable" and result["coverage"] == "unknown", result
    assert len(result["warnings"]) == 1 and result["warnings"][0] in codes.split(), result


@then("the result is unavailable with one code and no content")
def then_unavailable_any(scenario_state: State) -> None:
    result = _last(scenario_state)
    assert set(result) == {"schema", "quotedData", "status", "coverage", "warnings"}, result
    assert result["status"] == "unavailable" and result["coverage"] == "unknown", result
    assert len(result["warnings"]) == 1, result


@then(parsers.parse("the recalls so far returned {count:d} distinct references"))
def then_refs_count(scenario_state: State, count: int) -> None:
    assert len(_refs_issued(scenario_state)) == count, len(_refs_issued(scenario_state))


@then(parsers.parse("the last recall returned {count:d} hits"))
def then_hit_count(scenario_state: State, count: int) -> None:
    hits = _history(scenario_state)["recall"]["hits"]
    assert len(hits) == count, [h["entryId"] for h in hits]


@then("the read text is empty")
def then_read_empty(scenario_state: State) -> None:
    result = _last(scenario_state)
    assert result["status"] in ("complete", "partial") and result["text"] == "", result


@then(parsers.parse('the read text is lines {first:d} to {last:d} of the message "{entry_id}"'))
def then_read_lines(scenario_state: State, first: int, last: int, entry_id: str) -> None:
    result = _last(scenario_state)
    lines = _messages(scenario_state)[entry_id]
    assert result["status"] in ("complete", "partial"), result
    assert result["startLine"] == first, result
    assert result["text"] == "\n".join(lines[first - 1 : last]), result["text"][:200]


@then(parsers.parse('the read of "{entry_id}" holds the most lines that fit {budget:d} chars-v1 tokens'))
def then_read_greedy(scenario_state: State, entry_id: str, budget: int) -> None:
    """The filling of §3.3 step 10, judged on the provisional envelope the contract measures."""
    result = _last(scenario_state)
    lines = _messages(scenario_state)[entry_id]
    assert result["status"] == "partial" and result["truncated"] is True, result
    start, stop = result["startLine"], result["nextLine"]
    assert result["text"] == "\n".join(lines[start - 1 : stop - 1]), result["text"][:200]

    def provisional(last_line: int) -> dict[str, Any]:
        envelope = {key: result[key] for key in ("schema", "quotedData")}
        envelope.update(status="complete", coverage="complete", warnings=[], source=result["source"],
                        text="\n".join(lines[start - 1 : last_line]), startLine=start,
                        truncated=last_line < len(lines), nextLine=last_line + 1)
        return envelope

    assert _cost(provisional(stop - 1)) <= budget, "the lines returned do not fit the budget"
    assert _cost(provisional(stop)) > budget, "one more line would still have fitted the budget"


@then("the read source matches the first hit")
def then_source_matches(scenario_state: State) -> None:
    hit = dict(_history(scenario_state)["recall"]["hits"][0])
    for key in HIT_ONLY_FIELDS:
        hit.pop(key)
    source = _last(scenario_state)["source"]
    assert source == hit, (source, hit)
    assert list(source) == list(hit), "the source keeps the hit's key order"


@then("no result holds a raw session line")
def then_no_raw_lines(scenario_state: State) -> None:
    history = _history(scenario_state)
    text = json.dumps(history["results"], ensure_ascii=False)
    for path in history["sessions"].values():
        for line in Path(path).read_bytes().splitlines():
            raw = line.decode("utf-8", "replace").strip()
            if raw:
                assert raw not in text and _js_json(raw)[1:-1] not in text, f"a result holds the raw line {raw[:80]}"
    assert '{"type":' not in text and '\\"type\\":' not in text, "a result holds raw JSONL"


@then(parsers.parse('the read source has relation "{relation}"'))
def then_read_relation(scenario_state: State, relation: str) -> None:
    assert _last(scenario_state)["source"]["relation"] == relation, _last(scenario_state)


@then(parsers.parse('the read source has kind "{kind}" and role "{role}"'))
def then_read_kind(scenario_state: State, kind: str, role: str) -> None:
    source = _last(scenario_state)["source"]
    assert source["kind"] == kind and source.get("role") == role, source


# ------------------------------------------------------------------ then: status


@then(parsers.parse('the status has coverage "{coverage}" and effective scope "{scope}"'))
def then_status_coverage(scenario_state: State, coverage: str, scope: str) -> None:
    result = _last(scenario_state)
    assert result["coverage"] == coverage and result["effectiveScope"] == scope, result


@then("the status is content-free")
def then_status_content_free(scenario_state: State) -> None:
    """Only schema, flags, enums, counters and codes: no text, ids, paths or queries (§4)."""
    history = _history(scenario_state)
    result = _last(scenario_state)
    assert set(result) == STATUS_KEYS, result
    assert result["schema"] == "ds4-history-result-v1" and result["quotedData"] is True, result
    assert result["status"] in ("complete", "partial") and result["coverage"] in ("complete", "unknown"), result
    assert isinstance(result["indexedEntries"], int), result
    text = _js_json(result)
    for name, path in history["sessions"].items():
        assert str(path) not in text and Path(path).name not in text, "the status names a session file"
        if Path(path).is_file():
            assert _session_id(scenario_state, name) not in text, "the status names a session id"
            for line in Path(path).read_bytes().splitlines():
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                entry_id = value.get("id") if isinstance(value, dict) else None
                if isinstance(entry_id, str) and len(entry_id) > 3:
                    assert f'"{entry_id}"' not in text, f"the status names the entry id {entry_id}"
    for result_before in history["results"]:
        for hit in result_before.get("hits") or []:
            assert hit["sourceRef"] not in text and hit["excerpt"] not in text


@then(parsers.parse("the status reports {count:d} indexed entries and is complete"))
def then_status_complete(scenario_state: State, count: int) -> None:
    result = _last(scenario_state)
    assert result["status"] == "complete" and result["coverage"] == "complete", result
    assert result["warnings"] == [] and result["indexedEntries"] == count, result


@then("the status says the index is not yet synchronized")
def then_status_unsynced(scenario_state: State) -> None:
    result = _last(scenario_state)
    assert result["status"] == "partial" and result["coverage"] == "unknown", result
    assert result["warnings"] == ["index-not-yet-synchronized"] and result["indexedEntries"] == 0, result
