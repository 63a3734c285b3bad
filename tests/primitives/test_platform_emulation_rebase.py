"""The rebase's file primitives under pyfakefs's Windows and macOS emulation: where the target,
the journal and the lock go, the no-overwrite install's refusal, the durable replace, and the
branches each platform takes (directory fsync, ``F_FULLFSYNC``, no-follow reads, the stamp).

The SQLite lock itself is not here: SQLite opens its files below Python, where pyfakefs cannot
reach (docs/platforms.md); tests/rebase/test_lock.py holds it in real processes on Linux.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem, OSType

from reference.artifacts.ids import journal_path, operation_id, target_file_path
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.durable import durable_replace, install_no_overwrite, sync_directory
from reference.primitives.platform_ops.family import MACOS, POSIX, WINDOWS, Platform
from reference.primitives.platform_ops.identity import change_stamp, remembers_by_stat
from reference.primitives.platform_ops.paths import canonical_path
from reference.primitives.platform_ops.reads import link_open_would_follow, read_at
from reference.primitives.platform_ops.sync_sites import SyncSite
from reference.rebase.lock import lock_path

SOURCE_ID = "0197f3a2-1c2d-7e3f-8a4b-5c6d7e8f9a0b"
OPERATION = operation_id(SOURCE_ID, "a1b2c3d4", "0" * 64)
WINDOWS_FOLDER = r"C:\Users\Me\.pi\agent\sessions\--C--Users-Me-Proj--"
WINDOWS_SOURCE = WINDOWS_FOLDER + rf"\2025-06-01T12-00-00-000Z_{SOURCE_ID}.jsonl"
MACOS_FOLDER = "/Users/Me/.pi/agent/sessions/--Users-Me-Proj--"
MACOS_SOURCE = MACOS_FOLDER + f"/2025-06-01T12-00-00-000Z_{SOURCE_ID}.jsonl"
TARGET_BYTES = b'{"type":"session","version":3,"id":"t"}\n'


@pytest.fixture
def windows_fs(fs: FakeFilesystem) -> Iterator[FakeFilesystem]:
    fs.os = OSType.WINDOWS
    fs.create_file(WINDOWS_SOURCE, contents=b'{"type":"session"}\n')
    yield fs


@pytest.fixture
def macos_fs(fs: FakeFilesystem) -> Iterator[FakeFilesystem]:
    fs.os = OSType.MACOS
    fs.create_file(MACOS_SOURCE, contents=b'{"type":"session"}\n')
    yield fs


def _rebase_paths(source: str, platform: Platform) -> tuple[str, str, str]:
    """The target, journal and lock of a rebase of ``source``, as the run computes them (from the
    canonical source, run.py)."""
    canonical = canonical_path(source, platform=platform)
    return (target_file_path(canonical, OPERATION), str(journal_path(canonical, OPERATION)),
            str(lock_path(source, platform=platform)))


# -- target, journal and lock paths --------------------------------------------------------------

def test_windows_rebase_paths_are_beside_the_lower_cased_canonical_source(windows_fs: FakeFilesystem) -> None:
    folder = WINDOWS_FOLDER.lower()
    digest = hashlib.sha256(WINDOWS_SOURCE.lower().encode("utf-8")).hexdigest()
    assert _rebase_paths(WINDOWS_SOURCE, WINDOWS) == (
        rf"{folder}\ds4-{OPERATION}.jsonl",
        rf"{folder}\.ds4-rebase\operations\{OPERATION}.json",
        rf"{folder}\.ds4-rebase\locks\{digest}.sqlite",
    )


@pytest.mark.parametrize("spelling", [
    WINDOWS_SOURCE.upper(),
    WINDOWS_SOURCE.replace("\\", "/"),
    "\\\\?\\" + WINDOWS_SOURCE,
    WINDOWS_FOLDER + r"\..\--C--Users-Me-Proj--" + WINDOWS_SOURCE[len(WINDOWS_FOLDER):],
])
def test_windows_spellings_of_one_source_share_target_journal_and_lock(windows_fs: FakeFilesystem,
                                                                       spelling: str) -> None:
    assert _rebase_paths(spelling, WINDOWS) == _rebase_paths(WINDOWS_SOURCE, WINDOWS)


def test_a_symlink_alias_of_the_source_shares_them_on_windows(windows_fs: FakeFilesystem) -> None:
    windows_fs.create_symlink(r"D:\aliases\alias.jsonl", WINDOWS_SOURCE)
    assert _rebase_paths(r"D:\aliases\alias.jsonl", WINDOWS) == _rebase_paths(WINDOWS_SOURCE, WINDOWS)


def test_macos_rebase_paths_keep_case_and_resolve_links(macos_fs: FakeFilesystem) -> None:
    digest = hashlib.sha256(MACOS_SOURCE.encode("utf-8")).hexdigest()
    assert _rebase_paths(MACOS_SOURCE, MACOS) == (
        f"{MACOS_FOLDER}/ds4-{OPERATION}.jsonl",
        f"{MACOS_FOLDER}/.ds4-rebase/operations/{OPERATION}.json",
        f"{MACOS_FOLDER}/.ds4-rebase/locks/{digest}.sqlite",
    )
    macos_fs.create_symlink("/Users/Me/alias.jsonl", MACOS_SOURCE)
    assert _rebase_paths("/Users/Me/alias.jsonl", MACOS) == _rebase_paths(MACOS_SOURCE, MACOS)
    # The volume opens the source in any case, but the lock key keeps case (contract §6.12:
    # "lower-cased on Windows"): a source named in another case takes another lock on macOS.
    assert os.path.exists(MACOS_SOURCE.lower())
    assert lock_path(MACOS_SOURCE.lower(), platform=MACOS) != lock_path(MACOS_SOURCE, platform=MACOS)


# -- the no-overwrite durable install --------------------------------------------------------------

@pytest.mark.parametrize(("os_type", "platform", "folder"), [
    (OSType.WINDOWS, WINDOWS, r"C:\Users\Me\sessions"), (OSType.MACOS, MACOS, "/Users/Me/sessions"),
    (OSType.LINUX, POSIX, "/home/me/sessions"),
])
def test_the_install_refuses_an_existing_target_and_changes_nothing(fs: FakeFilesystem, os_type: OSType,
                                                                    platform: Platform, folder: str) -> None:
    fs.os = os_type
    target = Path(folder) / f"ds4-{OPERATION}.jsonl"
    install_no_overwrite(target, TARGET_BYTES, platform=platform)
    assert target.read_bytes() == TARGET_BYTES and os.listdir(folder) == [target.name]
    with pytest.raises(ContractViolation) as refused:
        install_no_overwrite(target, b"other bytes\n", platform=platform)
    assert refused.value.code == "rebase-unavailable" and "never overwritten" in refused.value.message
    assert target.read_bytes() == TARGET_BYTES and os.listdir(folder) == [target.name]  # no temporary left


@pytest.mark.parametrize(("os_type", "platform", "folder", "refused"), [
    (OSType.WINDOWS, WINDOWS, r"C:\s", True), (OSType.MACOS, MACOS, "/s", True), (OSType.LINUX, POSIX, "/s", False),
])
def test_a_target_named_in_another_case_exists_on_a_case_insensitive_volume(
        fs: FakeFilesystem, os_type: OSType, platform: Platform, folder: str, refused: bool) -> None:
    fs.os = os_type
    fs.create_file(os.path.join(folder, f"DS4-{OPERATION.upper()}.JSONL"), contents=b"theirs")
    target = Path(folder) / f"ds4-{OPERATION}.jsonl"
    if refused:
        with pytest.raises(ContractViolation):
            install_no_overwrite(target, TARGET_BYTES, platform=platform)
        assert sorted(os.listdir(folder)) == [f"DS4-{OPERATION.upper()}.JSONL"]
    else:
        install_no_overwrite(target, TARGET_BYTES, platform=platform)
        assert len(os.listdir(folder)) == 2
    with open(os.path.join(folder, f"DS4-{OPERATION.upper()}.JSONL"), "rb") as theirs:
        assert theirs.read() == b"theirs"


def test_the_install_into_a_new_session_folder_on_windows(windows_fs: FakeFilesystem) -> None:
    target = Path(r"C:\Users\Me\.pi\agent\sessions\--D--work--") / f"ds4-{OPERATION}.jsonl"
    install_no_overwrite(target, TARGET_BYTES, platform=WINDOWS)
    assert os.listdir(r"c:\users\me\.pi\agent\sessions\--d--work--") == [target.name]


# -- the durable replace and the directory fsync -------------------------------------------------

def test_the_journal_replace_works_on_windows_where_a_folder_cannot_be_opened(windows_fs: FakeFilesystem) -> None:
    journal = Path(journal_path(canonical_path(WINDOWS_SOURCE, platform=WINDOWS), OPERATION))
    durable_replace(journal, b'{"phase":"Prepared"}', platform=WINDOWS)
    durable_replace(journal, b'{"phase":"ArchiveVerified"}', platform=WINDOWS)
    assert journal.read_bytes() == b'{"phase":"ArchiveVerified"}'
    assert os.listdir(journal.parent) == [journal.name]
    with pytest.raises(PermissionError):  # the POSIX branch's folder fsync, refused as on Windows
        sync_directory(journal.parent, SyncSite.REPLACE_FOLDER, platform=POSIX)
    sync_directory(journal.parent, SyncSite.REPLACE_FOLDER, platform=WINDOWS)  # skipped: contract §6.5 step 4


def test_macos_flushes_files_and_folders_with_full_fsync(macos_fs: FakeFilesystem,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    monkeypatch.setattr(fcntl, "F_FULLFSYNC", 51, raising=False)  # its value on macOS
    monkeypatch.setattr(fcntl, "fcntl", lambda fd, command, *args: asked.append(command) or 0)
    durable_replace(Path(MACOS_FOLDER) / "journal.json", b"{}", platform=MACOS)
    assert asked == [51, 51]  # the temporary file, then its folder
    asked.clear()
    durable_replace(Path(MACOS_FOLDER) / "journal.json", b"{}", platform=POSIX)
    assert asked == []


def test_macos_falls_back_to_fsync_where_the_volume_refuses_full_fsync(macos_fs: FakeFilesystem,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync

    def refuse(fd: int, command: int, *args: object) -> int:
        raise OSError(25, "Inappropriate ioctl for device")

    def spy(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(fcntl, "F_FULLFSYNC", 51, raising=False)
    monkeypatch.setattr(fcntl, "fcntl", refuse)
    monkeypatch.setattr(os, "fsync", spy)
    install_no_overwrite(Path(MACOS_FOLDER) / f"ds4-{OPERATION}.jsonl", TARGET_BYTES, platform=MACOS)
    assert len(synced) == 2


# -- reads, file identity ------------------------------------------------------------------------

def test_windows_refuses_a_linked_source_before_the_open(windows_fs: FakeFilesystem) -> None:
    windows_fs.create_symlink(r"C:\x\link.jsonl", WINDOWS_SOURCE)
    assert link_open_would_follow(r"C:\x\link.jsonl", platform=WINDOWS)
    assert not link_open_would_follow(WINDOWS_SOURCE, platform=WINDOWS)
    assert not link_open_would_follow(r"C:\x\link.jsonl", platform=POSIX)  # O_NOFOLLOW refuses it there


def test_windows_reads_at_an_offset_by_seeking(windows_fs: FakeFilesystem) -> None:
    fd = os.open(WINDOWS_SOURCE, os.O_RDONLY)
    try:
        assert read_at(fd, 2, 4, platform=WINDOWS) == b"type"
        assert read_at(fd, 0, 1, platform=WINDOWS) == b"{"
    finally:
        os.close(fd)


def test_the_windows_stamp_is_the_identity_alone(windows_fs: FakeFilesystem) -> None:
    info = os.stat(WINDOWS_SOURCE)
    assert change_stamp(info, platform=WINDOWS) == f"{info.st_dev}:{info.st_ino}"
    assert change_stamp(info, platform=MACOS) == f"{info.st_dev}:{info.st_ino}:{info.st_ctime_ns}"
    assert (remembers_by_stat(WINDOWS), remembers_by_stat(MACOS), remembers_by_stat(POSIX)) == (False, True, True)
