"""Rebase operation and checkpoint ids, target and journal locations (contract §6.5, §0.3)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.artifacts.ids import (
    OPERATION_ID_PATTERN,
    ProjectPaths,
    RebaseSource,
    checkpoint_id,
    identity_suffix,
    is_operation_id,
    journal_path,
    operation_id,
    require_operation_id,
    target_file_name,
    target_file_path,
)
from reference.primitives.errors import ContractViolation
from reference.primitives.textunits import node_utf8, sha256_text

HASH = "a" * 64


def test_golden_ids_for_a_known_identity() -> None:
    # SHA-256("source:task:aaaa...") starts with d46c79219e08a7758e85bdb4b855ab43.
    assert operation_id("source", "task", HASH) == "rebase_d46c79219e08a7758e85bdb4b855ab43"
    assert checkpoint_id("source", "task", HASH) == "checkpoint_d46c79219e08a7758e85bdb4b855ab43"
    assert identity_suffix("source", "task", HASH) == hashlib.sha256(f"source:task:{HASH}".encode()).hexdigest()[:32]


def test_golden_ids_of_a_real_pi_session() -> None:
    # A session written by Pi 0.84.3's SessionManager (uuidv7 id, 8-hex leaf) and its file hash.
    source_id = "01a22c5a-2c57-7109-a66e-78de24ba96cd"
    source_hash = "efef6f7ca288d559c0a90545cf40d72258a18b66a954e26131faea90eabe74e6"
    assert operation_id(source_id, "0d63fccf", source_hash) == "rebase_225346432413227b64e5d27386cb96f5"


@examples(deep=200, ci=200)
@given(st.text(), st.text(), st.text())
def test_both_ids_share_the_suffix_and_match_their_grammar(session: str, leaf: str, source_hash: str) -> None:
    op = operation_id(session, leaf, source_hash)
    cp = checkpoint_id(session, leaf, source_hash)
    assert OPERATION_ID_PATTERN.fullmatch(op) and re.fullmatch(r"checkpoint_[a-f0-9]{32}", cp)
    assert op.removeprefix("rebase_") == cp.removeprefix("checkpoint_")


def test_identity_changes_with_each_part_and_ignores_paths() -> None:
    base = operation_id("s", "leaf", HASH)
    assert operation_id("s2", "leaf", HASH) != base
    assert operation_id("s", "leaf2", HASH) != base
    assert operation_id("s", "leaf", "b" * 64) != base
    # The parts are joined with ':' unescaped (as upstream); Pi's ids never contain one.
    assert operation_id("a:b", "c", HASH) == operation_id("a", "b:c", HASH)
    assert operation_id("s", "leaf", HASH) == base


def test_strings_hash_as_node_hashes_them() -> None:
    assert node_utf8("\ud800") == "\ufffd".encode()
    assert node_utf8("\ud83d\ude00") == "😀".encode()
    assert node_utf8("é") == b"\xc3\xa9"
    assert sha256_text("x\udfffy") == hashlib.sha256("x\ufffdy".encode()).hexdigest()


@pytest.mark.parametrize(
    "bad",
    ["rebase_", "rebase_" + "A" * 32, "rebase_" + "a" * 31, "rebase_" + "a" * 33, "checkpoint_" + "a" * 32,
     "rebase_../../../../etc/passwd", " rebase_" + "a" * 32, "rebase_" + "a" * 32 + "\n", None, 7],
)
def test_a_bad_operation_id_is_invalid_operation_and_never_a_path(bad: object) -> None:
    assert not is_operation_id(bad)
    for call in (lambda: require_operation_id(bad), lambda: journal_path("/p/s.jsonl", bad),  # type: ignore[arg-type]
                 lambda: target_file_name(bad)):  # type: ignore[arg-type]
        with pytest.raises(ContractViolation) as caught:
            call()
        assert caught.value.code == "invalid-operation"


def test_file_locations_are_next_to_the_source() -> None:
    op = "rebase_" + "0123456789abcdef" * 2
    assert target_file_name(op) == f"ds4-{op}.jsonl"
    assert target_file_path("/home/u/sessions/src.jsonl", op) == f"/home/u/sessions/ds4-{op}.jsonl"
    assert journal_path("/home/u/sessions/src.jsonl", op) == Path(f"/home/u/sessions/.ds4-rebase/operations/{op}.json")


def test_a_rebase_source_names_its_operation_and_checkpoint() -> None:
    source = RebaseSource("s1", "e4", 1234, "ab" * 32)
    assert source.operation_id == operation_id("s1", "e4", "ab" * 32)
    assert source.checkpoint_id == checkpoint_id("s1", "e4", "ab" * 32)
    assert source.operation_id[len("rebase_"):] == source.checkpoint_id[len("checkpoint_"):]


def test_project_paths_compare_projects_canonically_and_folders_as_node_resolves_them() -> None:
    paths = ProjectPaths("/home/u/proj", canonical=lambda p: p.rstrip("/"), cwd="/home/u")
    assert paths.is_project("/home/u/proj/") and not paths.is_project("/home/u/other")
    assert paths.same_folder("proj/a.jsonl", "/home/u/proj/b.jsonl")
    assert not paths.same_folder("a.jsonl", "/home/u/proj/b.jsonl")
    assert ProjectPaths("/p").cwd is None and not ProjectPaths("/p").is_project("/q")
