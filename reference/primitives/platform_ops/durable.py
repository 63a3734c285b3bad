"""Durable file writes of the session rebase (contract §6.5 step list, §6.8).

A crash must leave either the old state or the complete new file under the final name, never a
partial one: bytes go to a private temporary file in the same folder, are fsynced, and only then
take the final name, after which the folder is fsynced so the name itself survives a power cut.
The target session is installed with a hard link, so an existing file is never overwritten;
the journal is replaced with a rename.

Platform branches (named, small): directory fsync is skipped on Windows (contract §6.5 step 4:
"A failure here is ignored on Windows only, because Node cannot fsync directories there");
macOS flushes with ``F_FULLFSYNC`` because its plain ``fsync`` leaves data in the drive cache;
Linux (posix) takes the plain ``fsync`` (both in :mod:`.steps`, which makes and records every
durable step).  The hard link is ``link(2)`` on POSIX and
``CreateHardLinkW`` on Windows: a filesystem without hard links (FAT, exFAT, some network shares)
refuses the install (no copy fallback, see ``docs/rebase-durability.md``).  The two crash points
inside the install are hooks (``on_staged``, ``on_installed``) that ``reference.rebase.target``
names.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops import steps
from reference.primitives.platform_ops.family import CURRENT, Platform
from reference.primitives.platform_ops.owner_only import (
    FILE_MODE,
    ensure_private_dir,
    missing_folders,
    sync_into_parents,
)
from reference.primitives.platform_ops.sync_sites import SyncSite

# The TypeScript implementation has no dedicated code: its failed link falls back to this one.
CODE_INSTALL_REFUSED: Final = Code.REBASE_UNAVAILABLE
_PRIVATE_FILE_MODE: Final = FILE_MODE


def sync_directory(folder: Path, site: SyncSite, *, platform: Platform = CURRENT) -> None:
    """Make a folder's names durable; skipped on Windows, which cannot open a folder to fsync.
    ``site`` names the caller (:mod:`.sync_sites`)."""
    steps.sync_folder(folder, site, platform)


def _write_temporary(path: Path, data: bytes, site: SyncSite, platform: Platform = CURRENT) -> Path:
    """Write ``data`` to a new ``<path>.<uuid>.tmp`` (exclusive, 0600) and fsync it (``site``: the caller's)."""
    temporary = path.with_name(f"{path.name}.{uuid.uuid4()}.tmp")
    fd = steps.create_exclusive(temporary, _PRIVATE_FILE_MODE)
    try:
        try:
            steps.write_all(fd, temporary, data)
            steps.sync_file(fd, temporary, site, platform)
        finally:
            os.close(fd)
    except BaseException:
        _remove_quietly(temporary)
        raise
    return temporary


def _remove_quietly(temporary: Path) -> None:
    """Remove our own temporary file after a failure; never anything else."""
    with contextlib.suppress(OSError):
        steps.unlink(temporary)


def install_no_overwrite(
    target: Path,
    data: bytes,
    *,
    on_staged: Callable[[], None] | None = None,
    on_installed: Callable[[], None] | None = None,
    platform: Platform = CURRENT,
) -> None:
    """Install ``data`` as ``target`` atomically, refusing (and changing nothing) if it exists.

    ``on_staged`` runs once the temporary is durable, ``on_installed`` once the link is made
    (the crash points ``TargetStaged`` and ``TargetInstalled``).
    """
    new_folders = missing_folders(target.parent)
    ensure_private_dir(target.parent)
    temporary = _write_temporary(target, data, SyncSite.INSTALL_FILE, platform)
    try:
        if on_staged is not None:
            on_staged()
        try:
            steps.link(temporary, target)
        except FileExistsError:
            raise ContractViolation(
                CODE_INSTALL_REFUSED, f"{target.name} already exists and is never overwritten"
            ) from None
        except OSError as error:
            raise ContractViolation(
                CODE_INSTALL_REFUSED,
                f"the filesystem refused a hard link for {target.name} ({error.strerror}); nothing installed",
            ) from error
        if on_installed is not None:
            on_installed()
        steps.unlink_second_name(temporary, target)
        sync_directory(target.parent, SyncSite.INSTALL_FOLDER, platform=platform)
        sync_into_parents(new_folders, SyncSite.INSTALL_NEW_FOLDERS, platform=platform)
    except BaseException:
        _remove_quietly(temporary)
        raise


#: ``<name>.<uuid4>.tmp``: the name :func:`_write_temporary` gives, and nothing else.
_TEMPORARY_NAME: Final = re.compile(
    r"(?P<name>.+)\.[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.tmp")


def temporaries_in(folder: Path) -> list[tuple[Path, str]]:
    """Our own temporaries in ``folder``: (the temporary, the name of the file it was for)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = [(folder / name, match["name"]) for name in names if (match := _TEMPORARY_NAME.fullmatch(name))]
    return sorted(found)


def stale_temporaries(path: Path) -> list[Path]:
    """Our own ``<path>.<uuid>.tmp`` files beside ``path``, left by a process that died inside a
    durable write (crash points ``TargetStaged`` and ``TargetInstalled``)."""
    return [temporary for temporary, name in temporaries_in(path.parent) if name == path.name]


def remove_temporaries(temporaries: list[Path], *, platform: Platform = CURRENT) -> int:
    """Unlink each of our own temporaries, then sync each folder one left, so a power loss after
    the run returned cannot bring one back (issue 28: found by the explorer's recovery workloads);
    the count removed (one that vanished is not counted)."""
    removed: list[Path] = []
    for temporary in temporaries:
        with contextlib.suppress(OSError):
            steps.unlink(temporary)
            removed.append(temporary)
    for folder in dict.fromkeys(temporary.parent for temporary in removed):
        sync_directory(folder, SyncSite.REMOVE_TEMPORARIES_FOLDER, platform=platform)
    return len(removed)


def durable_replace(path: Path, data: bytes, *, platform: Platform = CURRENT) -> None:
    """Replace ``path`` with ``data`` atomically: readers see the old bytes or the new, whole.

    Windows: ``os.replace`` is ``MoveFileExW`` with replace, refused (``PermissionError``, the old
    file kept) while another program holds ``path`` open without delete sharing.
    """
    new_folders = missing_folders(path.parent)
    ensure_private_dir(path.parent)
    temporary = _write_temporary(path, data, SyncSite.REPLACE_FILE, platform)
    try:
        steps.replace(temporary, path)
        sync_directory(path.parent, SyncSite.REPLACE_FOLDER, platform=platform)
        sync_into_parents(new_folders, SyncSite.REPLACE_NEW_FOLDERS, platform=platform)
    except BaseException:
        _remove_quietly(temporary)
        raise
