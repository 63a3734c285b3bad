"""The recorder of durable steps (issue 28, deliverable 1): every durable primitive records what it
did, with the file identities, offsets and bytes; recording off changes neither behaviour nor
bytes; and no durable system call of the reference bypasses platform_ops."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

from reference.primitives.platform_ops import recorder as trace
from reference.primitives.platform_ops import steps
from reference.primitives.platform_ops.durable import (
    durable_replace,
    install_no_overwrite,
    remove_temporaries,
    stale_temporaries,
)
from reference.primitives.platform_ops.owner_only import (
    create_owner_only,
    ensure_private_dir,
    replace_keeping_mode,
)
from reference.primitives.platform_ops.recorder import (
    CreateFile,
    Link,
    MakeFolder,
    Rename,
    SyncFile,
    SyncFolder,
    Unlink,
    WriteBytes,
)
from reference.primitives.platform_ops.sync_sites import SyncSite
from reference.rebase.lock import RebaseLock
from reference.recall.index_repair import set_aside

DATA = b"line one\n" + b"x" * 5000 + b"\n"


def _identity(path: Path) -> tuple[int, int]:
    info = path.lstat()
    return (info.st_dev, info.st_ino)


def _kinds(recorded: trace.Recorder) -> list[str]:
    return [type(step).__name__ for step in recorded.steps]


def test_recording_is_off_by_default_and_ends_with_its_block() -> None:
    assert trace.active() is None
    with trace.recording() as recorder:
        assert trace.active() is recorder
        with pytest.raises(RuntimeError), trace.recording() as inner:
            assert trace.active() is inner
            raise RuntimeError("a failing block still ends its recording")
        assert trace.active() is recorder
    assert trace.active() is None


def test_the_no_overwrite_install_records_each_step(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "target.jsonl"
    with trace.recording() as recorder:
        install_no_overwrite(target, DATA)
    assert _kinds(recorder) == ["MakeFolder", "MakeFolder", "CreateFile", "WriteBytes", "SyncFile", "Link", "Unlink",
                                "SyncFolder", "SyncFolder", "SyncFolder"]
    made_a, made_b, create, write, sync, link, unlink, folder_sync, *new_folders_synced = recorder.steps
    assert made_a == MakeFolder(str(tmp_path / "a")) and made_b == MakeFolder(str(tmp_path / "a" / "b"))
    # each new folder synced into its parent, so the target cannot vanish with its new folder
    assert new_folders_synced == [SyncFolder(str(tmp_path), SyncSite.INSTALL_NEW_FOLDERS),
                                  SyncFolder(str(tmp_path / "a"), SyncSite.INSTALL_NEW_FOLDERS)]
    identity = _identity(target)
    temporary = create.path if isinstance(create, CreateFile) else ""
    assert temporary.startswith(str(target) + ".") and temporary.endswith(".tmp")
    assert create == CreateFile(temporary, identity)
    assert write == WriteBytes(temporary, identity, 0, DATA)
    assert sync == SyncFile(temporary, identity, SyncSite.INSTALL_FILE)
    assert link == Link(temporary, str(target), identity)
    assert unlink == Unlink(temporary, identity)
    assert folder_sync == SyncFolder(str(target.parent), SyncSite.INSTALL_FOLDER)


def test_the_durable_replace_records_a_rename_over_the_old_file(tmp_path: Path) -> None:
    journal = tmp_path / "ops" / "op.json"
    with trace.recording() as first:
        durable_replace(journal, b"old")
    assert _kinds(first) == ["MakeFolder", "CreateFile", "WriteBytes", "SyncFile", "Rename", "SyncFolder", "SyncFolder"]
    assert first.steps[-2:] == [SyncFolder(str(journal.parent), SyncSite.REPLACE_FOLDER),  # the new folder's entry:
                                SyncFolder(str(tmp_path), SyncSite.REPLACE_NEW_FOLDERS)]
    create = first.steps[1]
    assert isinstance(create, CreateFile)
    assert first.steps[3] == SyncFile(create.path, _identity(journal), SyncSite.REPLACE_FILE)
    old = _identity(journal)
    with trace.recording() as recorder:
        durable_replace(journal, DATA)
    assert _kinds(recorder) == ["CreateFile", "WriteBytes", "SyncFile", "Rename", "SyncFolder"]
    rename = recorder.steps[3]
    assert isinstance(rename, Rename) and rename.destination == str(journal)
    assert rename.identity == _identity(journal) != old
    assert recorder.steps[4] == SyncFolder(str(journal.parent), SyncSite.REPLACE_FOLDER)


def test_a_short_write_records_each_piece_at_its_offset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[:4096]))
    path = tmp_path / "file"
    with trace.recording() as recorder:
        fd = steps.create_exclusive(path, 0o600)
        try:
            steps.write_all(fd, path, DATA)
        finally:
            os.close(fd)
    writes = [step for step in recorder.steps if isinstance(step, WriteBytes)]
    assert [(w.offset, len(w.data)) for w in writes] == [(0, 4096), (4096, len(DATA) - 4096)]
    assert b"".join(w.data for w in writes) == DATA == path.read_bytes()


def test_owner_only_helpers_record_their_folders_and_files(tmp_path: Path) -> None:
    settings = tmp_path / "conf" / "settings.json"
    with trace.recording() as recorder:
        ensure_private_dir(settings.parent)
        create_owner_only(tmp_path / "lock.sqlite")
        create_owner_only(tmp_path / "lock.sqlite")  # exists: nothing done, nothing recorded
        replace_keeping_mode(str(settings), DATA, str(settings.parent))
    kinds = _kinds(recorder)
    assert kinds[:2] == ["MakeFolder", "CreateFile"]
    assert kinds[2:] == ["CreateFile", "WriteBytes", "SyncFile", "Rename", "SyncFolder"]
    rename = next(step for step in recorder.steps if isinstance(step, Rename))
    assert rename.destination == str(settings) and rename.identity == _identity(settings)
    assert [getattr(step, "site", None) for step in recorder.steps[-3:]] == [
        SyncSite.CONFIG_FILE, None, SyncSite.CONFIG_FOLDER]


def test_setting_a_damaged_index_aside_and_removing_temporaries_are_recorded(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    index.write_bytes(b"damaged")
    (tmp_path / "index.sqlite-wal").write_bytes(b"wal")
    target = tmp_path / "target.jsonl"
    stale = tmp_path / "target.jsonl.0123abcd-0123-4123-8123-0123456789ab.tmp"
    stale.write_bytes(b"partial")
    with trace.recording() as recorder:
        set_aside(str(index), "test")
        remove_temporaries(stale_temporaries(target))
    assert _kinds(recorder) == ["Rename", "Unlink", "Unlink", "SyncFolder"]
    assert [getattr(step, "path", getattr(step, "destination", "")) for step in recorder.steps] == [
        str(index) + ".corrupt", str(index) + "-wal", str(stale), str(tmp_path)]  # the removal made durable


def _run_every_primitive(root: Path) -> dict[str, tuple[bytes, int]]:
    """The primitives on a fresh folder; each file's bytes and mode afterwards."""
    install_no_overwrite(root / "s" / "target.jsonl", DATA)
    durable_replace(root / "s" / ".ops" / "op.json", b"first")
    durable_replace(root / "s" / ".ops" / "op.json", DATA)
    create_owner_only(root / "s" / "lock.sqlite")
    replace_keeping_mode(str(root / "settings.json"), DATA, str(root))
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mode)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_recording_off_leaves_behaviour_and_bytes_unchanged(tmp_path: Path) -> None:
    (tmp_path / "off").mkdir()
    (tmp_path / "on").mkdir()
    unrecorded = _run_every_primitive(tmp_path / "off")
    with trace.recording() as recorder:
        recorded = _run_every_primitive(tmp_path / "on")
    assert recorded == unrecorded
    assert len(recorder.steps) > 10


#: A durable system call: what may only appear in platform_ops (steps.py, and the four lines the
#: mutant catalogue finds by their text, each reported right after).
DURABLE_CALL = re.compile(
    r"os\.(write|replace|rename|link|unlink|remove|fsync|fdatasync|truncate|ftruncate|mkdir|makedirs|rmdir)\("
    r"|(?<!steps)\.(write_bytes|write_text|mkdir|touch|truncate|unlink|rename|symlink_to|hardlink_to)\("
    r"|shutil\.|os\.open\(")
READ_OPEN = re.compile(r"os\.open\([^)]*(NO_FOLLOW_READ_FLAGS|_OPEN_FLAGS|O_RDONLY)")
ALLOWED = {
    "reference/primitives/platform_ops/steps.py": None,  # every line: the steps themselves
    "reference/primitives/platform_ops/durable.py": {"os.replace(temporary, path)", "os.link(temporary, target)",
                                                     "os.unlink(temporary)"},
    "reference/primitives/platform_ops/owner_only.py": {"path.mkdir(mode=FOLDER_MODE)"},
}


def test_every_durable_call_of_the_reference_goes_through_platform_ops() -> None:
    found = []
    for path in sorted((REPO_ROOT / "reference").rglob("*.py")):
        name = path.relative_to(REPO_ROOT).as_posix()
        if name.startswith("reference/fixturegen/"):  # writes fixtures for tests, not user data
            continue
        allowed = ALLOWED.get(name, set())
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0].strip()
            if code.startswith(('"', "'", "``")) or not DURABLE_CALL.search(code) or READ_OPEN.search(code):
                continue
            if allowed is None or code in allowed:
                continue
            found.append(f"{name}:{number}: {code}")
    assert found == []


def test_the_rebase_lock_syncs_the_folders_it_makes_under_its_own_site(tmp_path: Path) -> None:
    source = tmp_path / "source.jsonl"
    source.write_bytes(b"{}\n")
    lock = RebaseLock(source)
    with trace.recording() as recorder:
        lock.acquire()
    lock.release()
    synced = [step for step in recorder.steps if isinstance(step, SyncFolder)]
    assert synced and {step.site for step in synced} == {SyncSite.LOCK_NEW_FOLDERS}
    assert SyncFolder(str(tmp_path), SyncSite.LOCK_NEW_FOLDERS) in synced  # .ds4-rebase's entry
