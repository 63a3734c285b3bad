"""Steps that read a session file back: the READER requests and the generic checks.

The session file is written by :mod:`conformance.steps.session_file_steps`; the expected values
that the harness computes itself (byte offsets, SHA-256) come from the bytes it wrote, never from
the implementation.  The inspect and tree-node checks of the TREE, CONTEXT and TOOLX scenarios
are in :mod:`conformance.steps.session_inspect_steps` and :mod:`conformance.steps.session_tree_steps`.
"""

from __future__ import annotations

import hashlib
import os

from pytest_bdd import parsers, then, when

from conformance.protocol import Adapter
from conformance.world import Response, SessionFile

# ------------------------------------------------------------------ when


@when("the session is inspected")
def when_inspect(adapter: Adapter, response: Response, session_file: SessionFile) -> None:
    response.call(adapter, "session.inspect", {"path": str(session_file.file)})


@when(parsers.parse('the session is inspected at leaf "{leaf}"'))
def when_inspect_leaf(adapter: Adapter, response: Response, session_file: SessionFile, leaf: str) -> None:
    response.call(adapter, "session.inspect", {"path": str(session_file.file), "leaf": leaf})


@when("the session is inspected at the null leaf")
def when_inspect_null(adapter: Adapter, response: Response, session_file: SessionFile) -> None:
    response.call(adapter, "session.inspect", {"path": str(session_file.file), "leaf": None})


@when("the session records are listed")
def when_records(adapter: Adapter, response: Response, session_file: SessionFile) -> None:
    response.call(adapter, "session.records", {"path": str(session_file.file)})


@when(parsers.parse('the tree node "{entry_id}" is described'))
def when_node(adapter: Adapter, response: Response, session_file: SessionFile, entry_id: str) -> None:
    response.call(adapter, "session.node", {"path": str(session_file.file), "id": entry_id})


# ------------------------------------------------------------------ then: generic


@then(parsers.parse('the request fails with code "{code}"'))
def then_fails(response: Response, code: str) -> None:
    error = response.error
    assert error is not None, f"expected {code}, got a result: {str(response.result)[:300]}"
    assert error.code == code, f"expected code {code}, got {error.code}: {error.message}"
    assert error.message.strip(), "the error message is empty"
    assert "\n" not in error.message.strip(), "the error message is not one line"


@then("the session file is byte-identical to before")
def then_unchanged(session_file: SessionFile) -> None:
    path = session_file.file
    assert path.read_bytes() == session_file.data, "the session file was changed"


@then("the session folder holds only the session file")
def then_no_siblings(session_file: SessionFile) -> None:
    path = session_file.file
    assert sorted(os.listdir(path.parent)) == [path.name]


# ------------------------------------------------------------------ then: reader


@then(parsers.parse("there are {count:d} records"))
def then_record_count(response: Response, count: int) -> None:
    records = response.value()["records"]
    assert len(records) == count, [r["kind"] for r in records]


@then("every record is located by its byte span, with the LF inside the span")
def then_spans(response: Response, session_file: SessionFile) -> None:
    data: bytes = session_file.data
    position = 0
    for record in response.value()["records"]:
        newline = data.find(b"\n", position)
        end = len(data) if newline < 0 else newline + 1
        assert (record["start"], record["end"]) == (position, end), record
        assert record["terminated"] == (newline >= 0), record
        position = end
    assert position == len(data)


@then("every record carries the SHA-256 of its line bytes without the LF")
def then_hashes(response: Response, session_file: SessionFile) -> None:
    data: bytes = session_file.data
    for record in response.value()["records"]:
        line = data[record["start"] : record["end"]]
        if line.endswith(b"\n"):
            line = line[:-1]
        assert record["sha256"] == hashlib.sha256(line).hexdigest(), record


@then(parsers.parse('record {number:d} is of kind "{kind}"'))
def then_record_kind(response: Response, number: int, kind: str) -> None:
    record = response.value()["records"][number - 1]
    assert record["kind"] == kind, record


@then(parsers.parse("records {numbers} end with CR before the LF"))
def then_crlf(response: Response, numbers: str) -> None:
    records = response.value()["records"]
    for number in (int(n) for n in numbers.replace(",", " ").split()):
        assert records[number - 1]["crlf"] is True, records[number - 1]


@then(parsers.parse("the last record ends at the end of the file without an LF"))
def then_last_unterminated(response: Response, session_file: SessionFile) -> None:
    records = response.value()["records"]
    assert records[-1]["end"] == len(session_file.data)
    assert records[-1]["terminated"] is False
