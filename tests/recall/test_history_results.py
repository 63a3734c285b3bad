"""The three tools answer typed values (issue 25 item 4): frozen results inside ``reference/recall``
that become JSON only where the CLI prints and the adapter answers, in the contract's key order."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from testkit import history_service as testkit_session

from reference.primitives.codes import Code
from reference.primitives.jsonbytes import js_stringify
from reference.recall.envelope import SCHEMA, ReadResult, RecallResult, StatusResult, Unavailable
from reference.recall.service import HistoryService


@pytest.fixture
def service(tmp_path: Path) -> HistoryService:
    session = tmp_path / "session.jsonl"
    testkit_session.write_session(session, count=30)
    return testkit_session.history_service(session, tmp_path / "idx" / "index.sqlite")


def test_status_is_a_frozen_value_before_it_is_json(service: HistoryService) -> None:
    before = service.status()
    assert isinstance(before, StatusResult) and before.indexed_entries is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.indexed_entries = 3  # type: ignore[misc]
    assert js_stringify(before.as_json()) == (
        f'{{"schema":"{SCHEMA}","quotedData":true,"status":"partial","coverage":"unknown",'
        f'"warnings":["{Code.INDEX_NOT_YET_SYNCHRONIZED}"],"effectiveScope":"current-branch","indexedEntries":0}}')
    service.recall({"query": "`quokka`"})
    after = service.status()
    assert isinstance(after, StatusResult) and after.indexed_entries == 30
    assert list(after.as_json()) == ["schema", "quotedData", "status", "coverage", "warnings", "effectiveScope",
                                     "indexedEntries"]


def test_recall_and_read_are_values_with_their_hits(service: HistoryService) -> None:
    found = service.recall({"query": "`quokka`", "limit": 2})
    assert isinstance(found, RecallResult) and len(found.hits) == 2
    as_json = found.as_json()
    assert list(as_json) == ["schema", "quotedData", "status", "coverage", "effectiveScope", "warnings", "hits"]
    assert [hit["sourceRef"] for hit in as_json["hits"]] == [hit.ref.ref for hit in found.hits]
    read = service.read({"sourceRef": found.hits[0].ref.ref, "maxLines": 1})
    assert isinstance(read, ReadResult) and read.source.ref == found.hits[0].ref.ref
    assert list(read.as_json())[-3:] == ["startLine", "truncated", "nextLine"] or read.next_line is None


def test_unavailable_is_one_code_and_no_content(service: HistoryService) -> None:
    service.host.aborted = True
    aborted = service.recall({"query": "`quokka`"})
    assert aborted == Unavailable(Code.ABORTED)
    assert aborted.as_json() == {"schema": SCHEMA, "quotedData": True, "status": "unavailable",
                                 "coverage": "unknown", "warnings": [Code.ABORTED]}


def test_one_call_names_each_tool_as_the_host_and_adapter_dispatch_it(service: HistoryService) -> None:
    recalled = service.call("recall", {"query": "`quokka`", "limit": 2})
    assert isinstance(recalled, RecallResult) and len(recalled.hits) == 2
    ref = recalled.hits[0].ref.ref
    assert isinstance(service.call("read", {"sourceRef": ref}), ReadResult)
    status = service.call("status", {"ignored": True})  # the status tool takes no arguments
    assert isinstance(status, StatusResult) and status.indexed_entries == 30
    with pytest.raises(KeyError):
        service.call("catch_up", {})  # only the three tools: never another method by its name
