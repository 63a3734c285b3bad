"""``config set`` survives a power loss (issue 28): the new file's bytes are fsynced before its
rename, and the folder after it, so a crash leaves the old file or the new one, never an empty or
torn file under the configuration's name (the crash-state explorer found the empty one)."""

from __future__ import annotations

from pathlib import Path

from reference.config.edits import write_saved_object
from reference.primitives.platform_ops.recorder import (
    CreateFile,
    Rename,
    SyncFile,
    SyncFolder,
    WriteBytes,
    recording,
)
from reference.primitives.platform_ops.sync_sites import SyncSite


def test_a_saved_configuration_is_durable_before_and_after_its_rename(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "ds4-context.json"
    write_saved_object(str(path), {"sessionRebase": {"enabled": False}})
    with recording() as recorder:
        write_saved_object(str(path), {"sessionRebase": {"enabled": True}})
    kinds = [type(step) for step in recorder.steps]
    assert kinds == [CreateFile, WriteBytes, SyncFile, Rename, SyncFolder]
    sync, rename, folder = recorder.steps[2:]
    assert isinstance(sync, SyncFile) and isinstance(rename, Rename) and sync.identity == rename.identity
    assert sync.site is SyncSite.CONFIG_FILE and folder == SyncFolder(str(path.parent), SyncSite.CONFIG_FOLDER)
    assert path.read_bytes() == b'{\n  "sessionRebase": {\n    "enabled": true\n  }\n}\n'
