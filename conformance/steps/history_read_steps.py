"""Given and When steps for the REF, READ, STATUS and INDEX scenarios of the history tools.

They build on the history host and tool steps (project, sessions, host, tools, tampering) and
add what those scenarios need besides: references kept by name or counted across recalls,
generated messages whose lines the harness knows, and line-ending and tail edits of the session
file.  Their checks are in :mod:`conformance.steps.history_read_check_steps`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, when

from conformance.protocol import Adapter
from conformance.steps.history_calls import call_tool
from conformance.world import HistoryWorld


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


def append_message(history: HistoryWorld, entry_id: str, lines: list[str]) -> None:
    """A user message whose content is ``lines`` joined with LF, a child of the last entry."""
    path = history.current
    data = path.read_bytes()
    assert data.endswith(b"\n"), "the current session file must end with a complete line"
    entry = {
        "type": "message", "id": entry_id, "parentId": _last_entry_id(path),
        "timestamp": "2026-01-01T00:00:09.000Z",
        "message": {"role": "user", "content": "\n".join(lines), "timestamp": 1767225609000},
    }
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))
    history.messages[entry_id] = lines


def _read(adapter: Adapter, history: HistoryWorld, ref: str, extra: dict[str, Any] | None = None) -> None:
    call_tool(adapter, history, "history.read", {"sourceRef": ref, **(extra or {})})


# ------------------------------------------------------------------ given


@given("the current history session with these lines, blank lines kept:")
def given_current_with_blanks(history: HistoryWorld, docstring: str) -> None:
    cwd = json.dumps(str(history.project.cwd))[1:-1]
    data = "".join(line.replace("{cwd}", cwd) + "\n" for line in docstring.split("\n"))
    history.record("current", history.project.folder / "current.jsonl", data.encode("utf-8"))


@given(parsers.parse('the current history session has {count:d} numbered replies under "{parent}" that say "{text}"'))
def given_numbered_replies(history: HistoryWorld, count: int, parent: str, text: str) -> None:
    """Distinct replies (``<text> number <n>``), inserted before the last line so the leaf stays."""
    path = history.current
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


@given(parsers.parse("the current history session's header line is padded to {size:d} bytes"))
def given_padded_header(history: HistoryWorld, size: int) -> None:
    """The header gains a ``pad`` field so that its line, without the line feed, is ``size`` bytes."""
    path = history.current
    first, rest = path.read_bytes().split(b"\n", 1)
    header = json.loads(first)
    bare = len(json.dumps({**header, "pad": ""}, separators=(",", ":")).encode("utf-8"))
    assert size >= bare, f"a header line is at least {bare} bytes"
    line = json.dumps({**header, "pad": "p" * (size - bare)}, separators=(",", ":")).encode("utf-8")
    path.write_bytes(line + b"\n" + rest)


@given("the current history session file has CRLF line endings")
def given_crlf(history: HistoryWorld) -> None:
    path = history.current
    path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))


@given(parsers.parse('the current history session ends with a user message "{entry_id}" of {count:d} lines, '
                     'the first saying "{first}"'))
@when(parsers.parse('the current history session ends with a user message "{entry_id}" of {count:d} lines, '
                    'the first saying "{first}"'))
def given_long_message(history: HistoryWorld, entry_id: str, count: int, first: str) -> None:
    append_message(history, entry_id, [first] + [f"line {n}" for n in range(2, count + 1)])


@given(parsers.parse('the current history session ends with a user message "{entry_id}" of {count:d} lines of '
                     '{width:d} characters, the first saying "{first}"'))
def given_long_wide_message(history: HistoryWorld, entry_id: str, count: int, width: int, first: str) -> None:
    lines = [first] + [f"line {n} ".ljust(width, ".") for n in range(2, count + 1)]
    append_message(history, entry_id, lines)


@given(parsers.parse('the current history session ends with a user message "{entry_id}" whose first line is '
                     '"{first}" and {width:d} more characters, then "{second}"'))
def given_wide_message(history: HistoryWorld, entry_id: str, first: str, width: int, second: str) -> None:
    append_message(history, entry_id, [first + " " + "w" * (width - 1), second])


# ------------------------------------------------------------------ when: recall and references


@when(parsers.parse("recall is asked {times:d} more times with:"))
def when_recall_repeated(adapter: Adapter, history: HistoryWorld, times: int, docstring: str) -> None:
    arguments = json.loads(docstring)
    for _ in range(times):
        result = call_tool(adapter, history, "history.recall", arguments)
        history.last_recall = result


@when(parsers.parse('the first hit\'s reference is kept as "{name}"'))
def when_keep_ref(history: HistoryWorld, name: str) -> None:
    history.kept_refs[name] = history.first_ref()


@when(parsers.parse('the reference "{name}" is read'))
def when_read_kept(adapter: Adapter, history: HistoryWorld, name: str) -> None:
    _read(adapter, history, history.kept_refs[name])


@when(parsers.parse('the reference "{name}" is read with:'))
def when_read_kept_with(adapter: Adapter, history: HistoryWorld, name: str, docstring: str) -> None:
    _read(adapter, history, history.kept_refs[name], json.loads(docstring))


@when("the first hit's reference is read with its last hex digit changed")
def when_read_altered(adapter: Adapter, history: HistoryWorld) -> None:
    ref = history.first_ref()
    _read(adapter, history, ref[:-1] + ("0" if ref[-1] != "0" else "1"))


@when("the first hit is read on from the next line with:")
def when_read_on(adapter: Adapter, history: HistoryWorld, docstring: str) -> None:
    next_line = history.last["nextLine"]
    _read(adapter, history, history.first_ref(), {**json.loads(docstring), "startLine": next_line})


@when(parsers.parse("reference number {number:d} issued in this scenario is read"))
def when_read_numbered(adapter: Adapter, history: HistoryWorld, number: int) -> None:
    refs = history.refs_issued()
    assert len(refs) >= number, f"only {len(refs)} references were issued"
    _read(adapter, history, refs[number - 1])


@when(parsers.parse('the hit with entry id "{entry_id}" is read'))
def when_read_hit(adapter: Adapter, history: HistoryWorld, entry_id: str) -> None:
    hits = history.recall["hits"]
    found = [h for h in hits if h["entryId"] == entry_id]
    assert found, [h["entryId"] for h in hits]
    _read(adapter, history, found[0]["sourceRef"])


# ------------------------------------------------------------------ when: the session file


@when(parsers.parse('the current session file is copied to the sibling session "{name}"'))
def when_copy_current(history: HistoryWorld, name: str) -> None:
    path = history.project.folder / f"{name}.jsonl"
    path.write_bytes(history.current.read_bytes())
    history.sessions[name] = path
    if history.remembered_bytes is None:
        history.remembered_bytes = {}
    history.remembered_bytes[name] = path.read_bytes()


@when("the current session file gets a line feed appended")
def when_append_lf(history: HistoryWorld) -> None:
    with history.current.open("ab") as handle:
        handle.write(b"\n")


@when("the current session file loses its last line")
def when_drop_last_line(history: HistoryWorld) -> None:
    path = history.current
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))


@when(parsers.parse("the current session file loses the last {count:d} bytes of its last entry"))
def when_cut_last_entry(history: HistoryWorld, count: int) -> None:
    """Cut into the last line (its LF and ``count - 1`` bytes before it): the line no longer parses."""
    path = history.current
    data = path.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    assert len(data) - count > last_start, "the cut must stay inside the last line"
    path.write_bytes(data[:-count])
