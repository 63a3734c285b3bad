"""Only the hits a recall returns take one of the 512 reference places (issue 12).

Refs are drafted for every processed hit and kept only for those the limit, the one-hit-per-entry
rule and the budget let through; before, each recall kept up to 12 per source, so a ref minted a
few dozen recalls earlier was evicted long before 512 hits had been shown.
"""

from __future__ import annotations

from pathlib import Path

from testkit.history_service import history_service, write_session


def test_only_returned_hits_take_a_reference_place(tmp_path: Path) -> None:
    session = tmp_path / "session.jsonl"
    write_session(session)
    service = history_service(session, tmp_path / "index.sqlite")
    first = service.recall({"query": "`quokka`", "limit": 1}).as_json()
    assert len(first["hits"]) == 1 and len(service.refs) == 1
    for _ in range(100):  # each finds 12 candidates and returns 1
        assert len(service.recall({"query": "`heron`", "limit": 1}).as_json()["hits"]) == 1
    assert len(service.refs) == 101
    read = service.read({"sourceRef": first["hits"][0]["sourceRef"]}).as_json()
    assert read["status"] == "complete", read


def test_a_recall_keeps_the_refs_of_every_hit_it_returns(tmp_path: Path) -> None:
    session = tmp_path / "session.jsonl"
    write_session(session)
    service = history_service(session, tmp_path / "index.sqlite")
    result = service.recall({"query": "`heron`", "limit": 5}).as_json()
    assert len(result["hits"]) == 5 and len(service.refs) == 5
    for hit in result["hits"]:
        assert service.read({"sourceRef": hit["sourceRef"]}).as_json()["status"] == "complete"
