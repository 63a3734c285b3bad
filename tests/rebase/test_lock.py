"""The rebase lock (§6.12): real holder processes, busy within ~200 ms, released by SIGKILL."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from testkit.paths import REPO_ROOT

from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.family import IS_WINDOWS
from reference.primitives.textunits import sha256_text
from reference.rebase.lock import RebaseLock, lock_path
from reference.recall.index_schema import default_index_path, open_index

ROOT = REPO_ROOT
HOLDER = """
import sys
from reference.rebase.lock import RebaseLock
with RebaseLock(sys.argv[1]):
    print('held', flush=True)
    sys.stdin.read()  # hold until the parent closes stdin, or kills us
print('released', flush=True)
"""


@pytest.fixture
def source(tmp_path: Path) -> Path:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "2026-01-01_abc.jsonl"
    path.write_text('{"type":"session","version":3,"id":"abc","cwd":"/p"}\n', encoding="utf-8")
    return path


def start_holder(source: Path) -> subprocess.Popen[str]:
    """A child process that holds the lock until its stdin closes; returns once it holds it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(source)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


@pytest.fixture
def holder(source: Path) -> Iterator[subprocess.Popen[str]]:
    proc = start_holder(source)
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=30)


def busy_after(source: Path) -> None:
    """Be refused with ``rebase-busy``."""
    with pytest.raises(ContractViolation) as refused, RebaseLock(source):
        pass
    assert refused.value.code == "rebase-busy"


def test_lock_file_location_is_the_contract_one(source: Path) -> None:
    canonical = os.path.realpath(source)
    key = canonical.lower() if IS_WINDOWS else canonical
    expected = Path(
        os.path.dirname(canonical),
        ".ds4-rebase",
        "locks",
        hashlib.sha256(key.encode()).hexdigest() + ".sqlite",
    )
    assert lock_path(source) == expected
    with RebaseLock(source) as lock:
        assert lock.path == expected and expected.is_file()
    if not IS_WINDOWS:
        assert (expected.parent.stat().st_mode & 0o777) == 0o700
        assert (expected.parent.parent.stat().st_mode & 0o777) == 0o700


@pytest.mark.skipif(IS_WINDOWS, reason="symlinks need privileges on Windows")
def test_a_symlink_alias_takes_the_same_lock(source: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias.jsonl"
    alias.symlink_to(source)
    assert lock_path(alias) == lock_path(source)
    with RebaseLock(source):
        with pytest.raises(ContractViolation) as refused, RebaseLock(alias):
            pass
        assert refused.value.code == "rebase-busy"


def test_a_held_lock_in_another_process_is_busy_within_about_200_ms(
    source: Path, holder: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without a clock: the refused connection waited SQLite's busy timeout of 200 ms (the pragma,
    # before BEGIN IMMEDIATE) and Python's connect timeout of 0.2 s, not Python's default 5 s.
    connect = sqlite3.connect
    timeouts: list[float] = []
    statements: list[str] = []

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        timeouts.append(kwargs["timeout"])
        connection = connect(*args, **kwargs)
        connection.set_trace_callback(statements.append)
        return connection

    monkeypatch.setattr(sqlite3, "connect", traced)
    busy_after(source)
    assert timeouts == [0.2]
    assert statements[0] == "PRAGMA busy_timeout = 200" and statements[-1] == "BEGIN IMMEDIATE"


def test_a_second_child_process_is_refused_too(source: Path, holder: subprocess.Popen[str]) -> None:
    script = (
        "import sys\nfrom reference.rebase.lock import RebaseLock\nfrom reference.primitives.errors import ContractViolation\n"
        "try:\n    RebaseLock(sys.argv[1]).acquire()\nexcept ContractViolation as e:\n    print(e.code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(source)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.stdout.strip() == "rebase-busy", done.stderr


def test_killing_the_holder_releases_the_lock_at_once(source: Path, holder: subprocess.Popen[str]) -> None:
    busy_after(source)
    holder.kill()  # SIGKILL: no Python cleanup runs, only the kernel drops the file lock
    holder.wait(timeout=30)
    # No busy wait, no stale lock to steal: a writer that never waits (busy timeout 0) takes the
    # lock at once; it would be refused ("database is locked") while the dead holder's lock stayed.
    probe = sqlite3.connect(lock_path(source), timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
    finally:
        probe.close()
    with RebaseLock(source) as lock:
        assert lock.held


def test_a_holder_that_exits_normally_releases(source: Path, holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None and holder.stdout is not None
    holder.stdin.close()
    assert holder.stdout.readline().strip() == "released"
    holder.wait(timeout=30)
    with RebaseLock(source):
        pass


def test_released_on_exception_and_release_is_idempotent(source: Path) -> None:
    with pytest.raises(KeyError), RebaseLock(source):
        raise KeyError("boom")
    lock = RebaseLock(source)
    lock.release()  # never taken: nothing happens
    with lock:
        assert lock.held
    assert not lock.held
    lock.release()
    with RebaseLock(source):  # free again
        pass


def test_the_typescript_statements_conflict_with_ours(source: Path) -> None:
    """D1: a connection running the upstream acquire statements is refused while we hold it."""
    with RebaseLock(source) as lock:
        other = sqlite3.connect(lock.path, timeout=0.2, isolation_level=None)
        try:
            other.execute("PRAGMA busy_timeout = 200")
            other.execute("CREATE TABLE IF NOT EXISTS lock_state (id INTEGER PRIMARY KEY)")
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        finally:
            other.close()


def test_the_lock_file_holds_no_history(source: Path) -> None:
    with RebaseLock(source) as lock:
        path = lock.path
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no journal or WAL left
    db = sqlite3.connect(path)
    try:
        tables = db.execute("SELECT name, sql FROM sqlite_master").fetchall()
        assert tables == [("lock_state", "CREATE TABLE lock_state (id INTEGER PRIMARY KEY)")]
        assert db.execute("SELECT count(*) FROM lock_state").fetchone() == (0,)
    finally:
        db.close()
    assert source.read_bytes().startswith(b'{"type":"session"')  # the source is untouched


def test_the_lock_is_not_the_history_index(source: Path, tmp_path: Path) -> None:
    """Deleting and rebuilding the history index leaves a held lock held."""
    path = lock_path(source)
    assert path.parent == source.parent / ".ds4-rebase" / "locks"
    index_path = Path(default_index_path(str(tmp_path / "agent")))
    with RebaseLock(source):
        open_index(index_path).close()
        for leftover in index_path.parent.iterdir():
            leftover.unlink()
        open_index(index_path).close()
        busy_after(source)
    with RebaseLock(source):
        pass


def test_a_missing_source_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ContractViolation) as refused, RebaseLock(tmp_path / "gone.jsonl"):
        pass
    assert refused.value.code == "rebase-unavailable"
    assert not (tmp_path / ".ds4-rebase").exists()


@pytest.mark.skipif(IS_WINDOWS, reason="a file name that is not UTF-8 is a POSIX byte string")
def test_a_source_name_that_is_not_utf8_is_hashed_as_node_hashes_it(tmp_path: Path) -> None:
    """Python reads the byte 0xff of a file name as a lone surrogate; Node's hash of the path
    string writes it as U+FFFD (``textunits.sha256_text``), and the lock is taken."""
    source = Path(os.fsdecode(os.fsencode(tmp_path) + b"/s\xff.jsonl"))
    source.write_text('{"type":"session","version":3,"id":"abc","cwd":"/p"}\n', encoding="utf-8")
    canonical = os.path.realpath(source)
    assert lock_path(source).name == sha256_text(canonical) + ".sqlite"
    with RebaseLock(source) as lock:
        assert lock.held
