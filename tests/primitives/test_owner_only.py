"""Files and folders the reference creates are owner-only on real files (docs/privacy.md): the
helpers, the projection database with its -wal and -shm while a connection holds them, the
lock database and the configuration files ``config set`` writes (also from a real process).  The process umask is opened wide (0) so the modes come from the code, not from it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

from reference.config.edits import write_saved_object
from reference.primitives.platform_ops.owner_only import create_owner_only, ensure_private_dir
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


def test_a_new_configuration_file_is_0600_in_new_folders_0700(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    path = tmp_path / "project" / ".pi" / "ds4-context.json"
    write_saved_object(str(path), {"historyTools": {"maxResults": 8}})
    assert json.loads(path.read_text(encoding="utf-8")) == {"historyTools": {"maxResults": 8}}
    assert _modes(path, path.parent, path.parent.parent, tmp_path) == _expect(0o600, 0o700, 0o700, 0o755)
    assert sorted(p.name for p in path.parent.iterdir()) == ["ds4-context.json"]  # no temporary left


def test_a_configuration_file_that_exists_keeps_its_mode_when_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "ds4-context.json"
    path.write_text("{}\n", encoding="utf-8")
    os.chmod(path, 0o640)
    write_saved_object(str(path), {"privacy": {"enabled": True}})
    assert json.loads(path.read_text(encoding="utf-8")) == {"privacy": {"enabled": True}}
    assert _modes(path) == _expect(0o640)
    assert [p.name for p in tmp_path.iterdir()] == ["ds4-context.json"]


def test_config_set_from_a_real_process_writes_owner_only_files(tmp_path: Path) -> None:
    """``recall-rebase config set`` (project and --global) under umask 0: the files it creates are
    0600, the folders 0700; the agent dir and project that exist keep their modes."""
    home, agent, project = tmp_path / "home", tmp_path / "agent", tmp_path / "project"
    for folder in (home, agent, project):
        folder.mkdir(mode=0o755)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "PI_CODING_AGENT_DIR": str(agent), "PYTHONPATH": str(REPO_ROOT)}
    for extra in ([], ["--global"]):
        done = subprocess.run([sys.executable, "-m", "reference.cli", "config", "set", "historyTools.maxResults", "8",
                               "--approve", *extra], capture_output=True, text=True, cwd=project, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
    project_file, global_file = project / ".pi" / "ds4-context.json", agent / "ds4-context.json"
    assert _modes(project_file, project_file.parent, global_file, agent, project) == _expect(
        0o600, 0o700, 0o600, 0o755, 0o755)
