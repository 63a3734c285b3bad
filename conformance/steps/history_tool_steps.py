"""Steps that call the history tools and tamper with the current session file between calls.

Every call goes through :func:`conformance.steps.history_calls.call_tool`, so every envelope is
checked against ``schemas/history/result.schema.json`` and becomes the scenario's last result.
"""

from __future__ import annotations

import json
import os
import shutil

from pytest_bdd import parsers, when

from conformance.protocol import Adapter
from conformance.steps.history_calls import call_tool, session_lines
from conformance.world import HistoryWorld


@when(parsers.parse('recall is asked for "{query}"'))
def when_recall(adapter: Adapter, history: HistoryWorld, query: str) -> None:
    result = call_tool(adapter, history, "history.recall", {"query": query})
    history.last_recall = result


@when("recall is asked with:")
def when_recall_with(adapter: Adapter, history: HistoryWorld, docstring: str) -> None:
    result = call_tool(adapter, history, "history.recall", json.loads(docstring))
    history.last_recall = result


@when("the first hit is read")
def when_read(adapter: Adapter, history: HistoryWorld) -> None:
    call_tool(adapter, history, "history.read", {"sourceRef": history.first_ref()})


@when("the first hit is read with:")
def when_read_with(adapter: Adapter, history: HistoryWorld, docstring: str) -> None:
    call_tool(adapter, history, "history.read", {"sourceRef": history.first_ref(), **json.loads(docstring)})


@when("read is asked with:")
def when_read_raw(adapter: Adapter, history: HistoryWorld, docstring: str) -> None:
    arguments = json.loads(docstring.replace("{session-file}", str(history.current)))
    call_tool(adapter, history, "history.read", arguments)


@when("the history status is asked")
def when_status(adapter: Adapter, history: HistoryWorld) -> None:
    call_tool(adapter, history, "history.status", {})


# ------------------------------------------------------------------ when: tampering


@when(parsers.parse('the current session file is edited in place, "{old}" becoming "{new}"'))
def when_edit(history: HistoryWorld, old: str, new: str) -> None:
    path = history.current
    data = path.read_bytes()
    assert len(old.encode()) == len(new.encode()) and old.encode() in data
    stat = path.stat()
    path.write_bytes(data.replace(old.encode(), new.encode(), 1))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


@when(parsers.parse("the current session file loses its last {count:d} bytes"))
def when_truncate(history: HistoryWorld, count: int) -> None:
    path = history.current
    path.write_bytes(path.read_bytes()[:-count])


@when("the current session file is deleted")
def when_delete(history: HistoryWorld) -> None:
    history.current.unlink()


@when("the current session file is swapped for a symbolic link to a copy of itself")
def when_symlink(history: HistoryWorld) -> None:
    path = history.current
    copy = path.with_name("copy-of-current.jsonl.bak")
    shutil.copyfile(path, copy)
    path.unlink()
    path.symlink_to(copy)


@when(parsers.parse("the current session file gets this line appended without a newline: {fragment}"))
def when_append_fragment(history: HistoryWorld, fragment: str) -> None:
    with history.current.open("ab") as handle:
        handle.write(fragment.encode("utf-8"))


@when("the current session file gets these lines appended:")
def when_append(history: HistoryWorld, docstring: str) -> None:
    with history.current.open("ab") as handle:
        handle.write(session_lines(docstring, history.project.cwd))
