"""Owner-only files and folders (decision D6; docs/privacy.md): what this project creates holds
history or its names, so a file is created 0600 and a folder 0700, and nothing else may read it.

Both helpers set the mode at creation (``open``/``mkdir`` with a mode, never a ``chmod`` after
the fact, which would leave a window), and neither changes a path that already exists: a folder
the user or Pi made keeps its mode.  On Windows a file's mode sets only the read-only bit and the
file takes its folder's inherited ACL; ``mkdir(mode=0o700)`` gives a new folder an owner-only ACL
on Python 3.11.10, 3.12.4, 3.13 and later (docs/privacy.md).  Branches: none in the code; the
mode is the POSIX one on Linux and macOS and, on Windows, only the read-only bit ("Windows has
no POSIX permission bits", docs/privacy.md).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Final

from reference.primitives.platform_ops import steps
from reference.primitives.platform_ops.family import CURRENT, Platform
from reference.primitives.platform_ops.sync_sites import SyncSite

FILE_MODE: Final = 0o600
FOLDER_MODE: Final = 0o700


def missing_folders(folder: str | os.PathLike[str]) -> list[Path]:
    """The folders :func:`ensure_private_dir` would create for ``folder``, outermost first."""
    missing: list[Path] = []
    current = Path(os.path.abspath(folder))
    while not current.exists():
        missing.append(current)
        current = current.parent
    return missing[::-1]


def ensure_private_dir(folder: str | os.PathLike[str]) -> None:
    """``mkdir -p`` where every folder created gets mode 0700, as Node's recursive mkdir with a mode
    does (Python's ``os.makedirs`` gives the mode to the last folder only)."""
    for path in missing_folders(folder):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            steps.make_folder(path, FOLDER_MODE)


def sync_into_parents(folders: list[Path], site: SyncSite, *, platform: Platform = CURRENT) -> None:
    """Make each folder's own entry durable: fsync its parent (skipped on Windows).  A durable
    write calls it for the folders it created, so a power loss cannot drop a new folder with the
    file just made durable in it (a journal fsyncs ``.ds4-rebase/operations``, and nothing else
    ever fsynced ``.ds4-rebase``: issue 28, found by tools/crashstates.py).  ``site``: the caller's."""
    for folder in folders:
        steps.sync_folder(folder.parent, site, platform)


def create_owner_only(path: str | os.PathLike[str]) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (kept as it is).

    For SQLite databases: SQLite gives a database's ``-wal``, ``-shm`` and ``-journal`` the
    permissions of the database file, so creating that file first makes the whole set owner-only.
    """
    with contextlib.suppress(FileExistsError):
        os.close(steps.create_exclusive(path, FILE_MODE))


def replace_keeping_mode(path: str, data: bytes, directory: str, *, platform: Platform = CURRENT) -> None:
    """Write ``data`` to a private temporary in ``directory`` and rename it over ``path``: a new
    file gets 0600, a file that exists keeps its mode (Windows: its read-only bit).

    Durable like the journal (contract §6.5 steps 2-4): the temporary's bytes are fsynced before
    the rename and the folder after it, so a power loss leaves the old file or the new one under
    ``path``, never an empty or torn one (issue 28: without the first fsync a crash could keep the
    rename and lose the bytes).  The folder fsync is skipped on Windows (:func:`.steps.sync_folder`).
    """
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else FILE_MODE
    handle, temporary = tempfile.mkstemp(prefix=".ds4-context.", suffix=".tmp", dir=directory)  # 0600
    try:
        try:
            steps.created_elsewhere(handle, temporary)
            steps.write_all(handle, temporary, data)
            steps.sync_file(handle, temporary, SyncSite.CONFIG_FILE, platform)
        finally:
            os.close(handle)
        os.chmod(temporary, mode)
        steps.replace(temporary, path)
        steps.sync_folder(directory, SyncSite.CONFIG_FOLDER, platform)
    except BaseException:
        with contextlib.suppress(OSError):
            steps.unlink(temporary)
        raise
