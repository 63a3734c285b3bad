"""Files and folders the reference creates are owner-only on real files (docs/privacy.md): the
helpers, the projection database with its -wal and -shm while a connection holds them, and the
lock database.  The process umask is opened wide (0) so the modes come from the code, not from it."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference.primitives.owner_only import create_owner_only, ensure_private_dir
from reference.rebase.lock import RebaseLock
from reference.recall.index_schema import open_index

#: Windows has no POSIX permission bits: there the paths must exist, their modes are not compared.
HAS_PERMISSION_BITS = os.name == "posix"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _modes(*paths: Path) -> list[int | None]:
    """The permission bits of each path (each must exist); None for each where the platform has none."""
    return [_mode(path) if HAS_PERMISSION_BITS else None for path in paths]


def _expect(*modes: int) -> list[int | None]:
    return [mode if HAS_PERMISSION_BITS else None for mode in modes]


@pytest.fixture(autouse=True)
def wide_umask() -> Iterator[None]:
    previous = os.umask(0)  # Windows: only the read-only bit, left alone
    try:
        yield
    finally:
        os.umask(previous)


def test_every_folder_created_is_0700_and_an_existing_one_keeps_its_mode(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir(mode=0o755)
    ensure_private_dir(kept / "a" / "b" / "c")
    assert _modes(kept, kept / "a", kept / "a/b", kept / "a/b/c") == _expect(0o755, 0o700, 0o700, 0o700)
    ensure_private_dir(kept / "a")  # exists: nothing happens
    assert _modes(kept / "a") == _expect(0o700)


def test_a_file_is_created_0600_and_an_existing_one_is_left_alone(tmp_path: Path) -> None:
    created, existing = tmp_path / "new.sqlite", tmp_path / "old.sqlite"
    existing.write_bytes(b"kept")
    os.chmod(existing, 0o640)
    create_owner_only(created)
    create_owner_only(existing)
    assert (created.read_bytes(), existing.read_bytes()) == (b"", b"kept")
    assert _modes(created, existing) == _expect(0o600, 0o640)


def test_the_projection_database_and_its_wal_and_shm_are_0600(tmp_path: Path) -> None:
    index = tmp_path / "agent" / "recall-rebase" / "index.sqlite"
    conn = open_index(index)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("CREATE TABLE probe (x)")
        conn.execute("COMMIT")
        files = sorted(index.parent.iterdir())
        assert [p.name for p in files] == ["index.sqlite", "index.sqlite-shm", "index.sqlite-wal"]
        assert _modes(*files, index.parent, index.parent.parent) == _expect(0o600, 0o600, 0o600, 0o700, 0o700)
    finally:
        conn.close()


def test_the_lock_database_and_its_rollback_journal_are_0600(tmp_path: Path) -> None:
    source = tmp_path / "sessions" / "s.jsonl"
    source.parent.mkdir(mode=0o755)
    source.write_bytes(b"{}\n")
    with RebaseLock(source) as lock:
        journals = list(lock.path.parent.glob("*-journal"))
        assert _modes(lock.path, *journals, lock.path.parent, lock.path.parent.parent) == _expect(
            0o600, *[0o600] * len(journals), 0o700, 0o700)
    assert _modes(source.parent) == _expect(0o755)
