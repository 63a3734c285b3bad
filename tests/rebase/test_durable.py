"""Durable writes (§6.5, §6.8): no overwrite, no partial target, crashes in real processes."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.durable import durable_replace, install_no_overwrite, sync_directory
from reference.primitives.platform_ops.family import IS_WINDOWS, POSIX, WINDOWS
from reference.primitives.platform_ops.sync_sites import SyncSite
from reference.rebase import crashpoints

ROOT = REPO_ROOT
TARGET = "ds4-rebase_0123456789abcdef0123456789abcdef.jsonl"
DATA = b'{"type":"session","version":3,"id":"t"}\n' + b'{"type":"custom","data":"' + b"x" * 300_000 + b'"}\n'


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def temporaries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_install_writes_the_exact_bytes_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / TARGET
    install_no_overwrite(target, DATA)
    assert target.read_bytes() == DATA
    assert names(tmp_path) == [TARGET]
    assert target.stat().st_nlink == 1  # the temporary name is gone
    if not IS_WINDOWS:
        assert (target.stat().st_mode & 0o777) == 0o600


def test_install_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / TARGET
    target.write_bytes(b"existing")
    with pytest.raises(ContractViolation) as refused:
        install_no_overwrite(target, DATA)
    assert refused.value.code == "rebase-unavailable"
    assert "exists" in refused.value.message
    assert target.read_bytes() == b"existing"
    assert names(tmp_path) == [TARGET]


def test_install_creates_private_folders(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / TARGET
    install_no_overwrite(target, DATA)
    assert target.read_bytes() == DATA
    if not IS_WINDOWS:
        for folder in (tmp_path / "a", tmp_path / "a" / "b"):
            assert (folder.stat().st_mode & 0o777) == 0o700


def test_the_hooks_run_in_order_with_the_file_state_they_name(tmp_path: Path) -> None:
    target = tmp_path / TARGET
    seen: list[tuple[str, bool, int]] = []

    def hook(point: str) -> None:
        (staged,) = temporaries(tmp_path)
        assert staged.read_bytes() == DATA
        seen.append((point, target.exists(), staged.stat().st_nlink))

    install_no_overwrite(target, DATA, on_staged=partial(hook, "TargetStaged"),
                         on_installed=partial(hook, "TargetInstalled"))
    assert seen == [("TargetStaged", False, 1), ("TargetInstalled", True, 2)]
    assert names(tmp_path) == [TARGET]


@pytest.mark.parametrize("point", ["TargetStaged", "TargetInstalled"])
def test_a_failure_at_an_inner_point_removes_the_temporary(point: str, tmp_path: Path) -> None:
    target = tmp_path / TARGET

    def fail_at(reached: str) -> None:
        if reached == point:
            raise RuntimeError(reached)

    with pytest.raises(RuntimeError):
        install_no_overwrite(target, DATA, on_staged=partial(fail_at, "TargetStaged"),
                             on_installed=partial(fail_at, "TargetInstalled"))
    assert temporaries(tmp_path) == []
    if point == "TargetStaged":
        assert not target.exists()
    else:
        assert target.read_bytes() == DATA


def test_a_filesystem_without_hard_links_is_refused_without_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(src: object, dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    with pytest.raises(ContractViolation) as refused:
        install_no_overwrite(tmp_path / TARGET, DATA)
    assert refused.value.code == "rebase-unavailable"
    assert "hard link" in refused.value.message
    assert names(tmp_path) == []


CRASH_CHILD = """
import sys
from functools import partial
from pathlib import Path
from reference.primitives.platform_ops.durable import install_no_overwrite
from reference.rebase import crashpoints
crashpoints.arm_from_environment()
data = Path(sys.argv[2]).read_bytes()
install_no_overwrite(Path(sys.argv[1]), data, on_staged=partial(crashpoints.reached, "TargetStaged"),
                     on_installed=partial(crashpoints.reached, "TargetInstalled"))
print('installed', flush=True)
"""


def run_install_child(target: Path, payload: Path, crash_at: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != crashpoints.ENV_VAR}
    env["PYTHONPATH"] = str(ROOT)
    if crash_at is not None:
        env[crashpoints.ENV_VAR] = crash_at
    return subprocess.run(
        [sys.executable, "-c", CRASH_CHILD, str(target), str(payload)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("point", ["TargetStaged", "TargetInstalled"])
def test_a_process_killed_at_an_inner_point_leaves_nothing_or_the_whole_target(
    point: str, tmp_path: Path
) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    payload = tmp_path / "payload"
    payload.write_bytes(DATA)
    target = sessions / TARGET
    done = run_install_child(target, payload, point)
    assert done.returncode == 91, done.stderr
    assert "installed" not in done.stdout
    # Either nothing under the final name, or the complete bytes: never a partial target.
    if point == "TargetStaged":
        assert not target.exists()
    else:
        assert target.read_bytes() == DATA
    # The crash skipped cleanup: the fsynced temporary is left, complete, under its own name.
    (left,) = temporaries(sessions)
    assert left.name.startswith(TARGET + ".") and left.read_bytes() == DATA
    # A rerun installs a fresh target only when none is there; it never overwrites.
    again = run_install_child(target, payload, None)
    if point == "TargetStaged":
        assert again.returncode == 0 and target.read_bytes() == DATA
    else:
        assert again.returncode != 0 and "rebase-unavailable" in again.stderr
        assert target.read_bytes() == DATA


def test_an_unarmed_child_installs(tmp_path: Path) -> None:
    payload = tmp_path / "payload"
    payload.write_bytes(DATA)
    (tmp_path / "s").mkdir()
    done = run_install_child(tmp_path / "s" / TARGET, payload, None)
    assert done.returncode == 0 and done.stdout.strip() == "installed", done.stderr
    assert names(tmp_path / "s") == [TARGET]


def test_durable_replace_replaces_and_leaves_no_temporary(tmp_path: Path) -> None:
    journal = tmp_path / ".ds4-rebase" / "operations" / "rebase_0123456789abcdef0123456789abcdef.json"
    durable_replace(journal, b'{"phase":"Prepared"}')
    durable_replace(journal, b'{"phase":"ArchiveVerified"}')
    assert journal.read_bytes() == b'{"phase":"ArchiveVerified"}'
    assert names(journal.parent) == [journal.name]
    if not IS_WINDOWS:
        assert (journal.stat().st_mode & 0o777) == 0o600
        assert (journal.parent.stat().st_mode & 0o777) == 0o700


def test_durable_replace_is_atomic_for_a_concurrent_reader(tmp_path: Path) -> None:
    path = tmp_path / "journal.json"
    old, new = b"a" * 2_000_000, b"b" * 1_000_000
    durable_replace(path, old)
    seen: set[bytes] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.add(path.read_bytes())

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(20):
            durable_replace(path, new if i % 2 == 0 else old)
    finally:
        stop.set()
        reader.join()
    assert seen <= {old, new}


def test_a_failed_replace_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "journal.json"
    durable_replace(path, b"old")

    def refuse(src: object, dst: object) -> None:
        raise OSError(errno.EACCES, "refused")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        durable_replace(path, b"new")
    assert path.read_bytes() == b"old"
    assert names(tmp_path) == ["journal.json"]


def test_directory_fsync_is_skipped_on_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[object] = []
    real_open = os.open

    def spy(path: object, flags: int, *args: int) -> int:
        opened.append(path)
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", spy)
    sync_directory(tmp_path, SyncSite.REPLACE_FOLDER, platform=WINDOWS)
    assert opened == []
    if not IS_WINDOWS:
        sync_directory(tmp_path, SyncSite.REPLACE_FOLDER, platform=POSIX)
        assert opened == [tmp_path]
