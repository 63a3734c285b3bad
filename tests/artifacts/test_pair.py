"""The pair checks of the lineage verifier: a staged checkpoint, link and handoff verify, and
tampering is found (contract §6.13)."""

from __future__ import annotations

from typing import Any

from testkit.checkpoints import PROJECT, SOURCE, build, operation, upstream_fixture
from testkit.pilines import message

from reference.artifacts.checkpoint import RebasePair, checkpoint_hash, find_pair, verify_handoff, verify_pair
from reference.artifacts.ids import ProjectPaths
from reference.rebase.target import stage_target


def staged_pair() -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    checkpoint = build(upstream_fixture())
    target = stage_target(operation(checkpoint), checkpoint)
    return target, target.header, list(target.entries)


def check(cp_entry: Any, link_entry: Any, header: Any, project_path: str = PROJECT, **kwargs: Any) -> str | None:
    return verify_pair(RebasePair(link_entry, cp_entry), header=header,
                       current_file=SOURCE.rsplit("/", 1)[0] + "/ds4-x.jsonl",
                       project=ProjectPaths(project_path, canonical=lambda p: p, cwd="/"), **kwargs)


def test_a_staged_pair_verifies() -> None:
    _, header, entries = staged_pair()
    pair = find_pair(entries)
    assert pair.checkpoint_entry is entries[0] and pair.link_entry is entries[1] and pair.handoff_entry is entries[2]
    assert check(pair.checkpoint_entry, pair.link_entry, header) is None
    assert verify_handoff(pair.handoff_entry, pair.checkpoint_entry["data"], header=header,
                          project=ProjectPaths(PROJECT, canonical=lambda p: p)) is None
    assert find_pair([]) == find_pair([message("m", None, 1, "user", "x")])


def test_tampering_is_found() -> None:
    _, header, entries = staged_pair()
    cp_entry, link_entry, handoff_entry = entries

    def with_data(entry: dict[str, Any], **change: Any) -> dict[str, Any]:
        return {**entry, "data": {**entry["data"], **change}}

    assert check(with_data(cp_entry, handoff=cp_entry["data"]["handoff"] + " "), link_entry, header) == "checkpoint-hash"
    assert check(with_data(cp_entry, id="checkpoint_" + "0" * 32), link_entry, header) == "checkpoint-id"
    assert check(cp_entry, with_data(link_entry, schemaVersion=2), header) == "link"
    assert check(None, link_entry, header) == "checkpoint-missing"
    assert check(cp_entry, link_entry, {**header, "version": 2}) == "header-version"
    assert check(cp_entry, link_entry, {**header, "id": "other"}) == "target-session"
    assert check(cp_entry, with_data(link_entry, sourceSize=1), header) == "sourceSize"
    assert check(cp_entry, with_data(link_entry, sourceSessionFile="/elsewhere/s.jsonl"), header) == "source-directory"
    assert check(cp_entry, link_entry, header, project_path="/home/u/other") == "project"
    assert check(cp_entry, link_entry, header, visited={"source"}) == "cycle"
    # A reordered checkpoint is the same data but not the same bytes.
    reordered = {**cp_entry, "data": dict(reversed(list(cp_entry["data"].items())))}
    assert check(reordered, link_entry, header) == "checkpoint-hash"
    checkpoint = cp_entry["data"]
    edited = {**handoff_entry, "content": handoff_entry["content"].replace("Deterministic", "Trusted")}
    kwargs: dict[str, Any] = dict(header=header, project=ProjectPaths(PROJECT, canonical=lambda p: p))
    assert verify_handoff(edited, checkpoint, **kwargs) == "handoff-content"
    assert verify_handoff(None, checkpoint, **kwargs) == "handoff-missing"
    assert verify_handoff(handoff_entry, {**checkpoint, "classification": "secret"}, **kwargs) == "handoff-content"
    assert verify_handoff(handoff_entry, checkpoint, **{**kwargs, "project": ProjectPaths("/x", canonical=lambda p: p)}
                          ) == "target-cwd"


def test_oversized_items_and_handoffs_fail_the_pair() -> None:
    _, header, entries = staged_pair()
    cp_entry = entries[0]
    changes: list[dict[str, Any]] = [{"pins": [{}] * 1001}, {"memories": None}, {"handoff": "h" * 120_001}]
    for change in changes:
        data = {**cp_entry["data"], **change}
        link = {**entries[1], "data": {**entries[1]["data"], "checkpointHash": checkpoint_hash(data)}}
        assert check({**cp_entry, "data": data}, link, header) in ("items", "handoff-size")
