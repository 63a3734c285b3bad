"""Canonical source verification on one descriptor (contract §3.5): tampering gives codes, not content."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from reference.primitives.errors import ContractViolation
from reference.recall.source_verify import verify_source

HEADER = b'{"type":"session","version":3,"id":"s1","timestamp":"2025-06-01T12:00:00.000Z","cwd":"%s"}\n'
ENTRY = b'{"type":"message","id":"e1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"Original constraint","timestamp":1}}'


@pytest.fixture
def session(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    header = HEADER % str(tmp_path).encode()
    path = tmp_path / "s.jsonl"
    path.write_bytes(header + ENTRY + b"\n")
    args: dict[str, object] = dict(
        session_file=str(path), session_id="s1", project_path=str(tmp_path), entry_id="e1",
        content_hash=hashlib.sha256(ENTRY).hexdigest(), start=len(header), end=len(header) + len(ENTRY) + 1,
    )
    return path, args


def code(args: dict[str, object]) -> str:
    with pytest.raises(ContractViolation) as caught:
        verify_source(**args)  # type: ignore[arg-type]
    return caught.value.code


def test_an_untouched_record_verifies(session: tuple[Path, dict[str, object]]) -> None:
    path, args = session
    before = path.read_bytes()
    entry = verify_source(**args)  # type: ignore[arg-type]
    assert entry["id"] == "e1"
    assert path.read_bytes() == before


def test_one_edited_byte_is_source_changed(session: tuple[Path, dict[str, object]]) -> None:
    path, args = session
    path.write_bytes(path.read_bytes().replace(b"Original", b"Modified"))
    assert code(args) == "source-changed"


def test_truncation_and_deletion_are_source_unavailable(session: tuple[Path, dict[str, object]]) -> None:
    path, args = session
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    assert code(args) == "source-unavailable"
    path.unlink()
    assert code(args) == "source-unavailable"


def test_a_symlink_swapped_in_is_refused(session: tuple[Path, dict[str, object]], tmp_path: Path) -> None:
    path, args = session
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(copy)
    assert code(args) == "source-unavailable"


def test_another_session_or_project_is_a_scope_mismatch(session: tuple[Path, dict[str, object]]) -> None:
    _, args = session
    assert code({**args, "session_id": "other"}) == "source-scope-mismatch"
    assert code({**args, "project_path": "/somewhere/else"}) == "source-scope-mismatch"


@pytest.mark.parametrize(("start", "end"), [(-1, 10), (10, 10), (20, 10), (0, 4 * 1024 * 1024 + 1), ("0", 5), (0, 2**60)])
def test_bad_locators_are_source_unavailable(session: tuple[Path, dict[str, object]], start: object, end: object) -> None:
    _, args = session
    assert code({**args, "start": start, "end": end}) == "source-unavailable"
