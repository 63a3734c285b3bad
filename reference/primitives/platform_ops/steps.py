"""The durable steps themselves: each system call that changes what a power loss may leave, made
here and nowhere else in the reference, and reported to an open recording (:mod:`.recorder`).

With no recording open each function is its system call plus one ``ContextVar`` read; the file
identities, offsets and byte copies a record needs are only looked up while recording.

Platform branches (named, small): :func:`sync_file` flushes with ``F_FULLFSYNC`` on macOS (a plain
``fsync`` leaves data in the drive's cache), falling back to ``fsync`` where the volume refuses
it; :func:`sync_folder` is skipped on Windows, which cannot open a folder to fsync (contract §6.5
step 4), and so records nothing there.
"""

from __future__ import annotations

import os

from reference.primitives.platform_ops.family import CURRENT, Platform
from reference.primitives.platform_ops.recorder import (
    CreateFile,
    FileIdentity,
    Link,
    MakeFolder,
    Rename,
    SyncFile,
    SyncFolder,
    Unlink,
    WriteBytes,
    active,
    identity_at,
    identity_of,
)
from reference.primitives.platform_ops.sync_sites import SyncSite

#: An exclusive create; ``O_BINARY`` keeps Windows from translating newlines (0 elsewhere).
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def make_folder(path: str | os.PathLike[str], mode: int) -> None:
    """``mkdir(2)`` of one folder with ``mode`` (``FileExistsError`` when the name is taken)."""
    os.mkdir(path, mode)
    if (recorder := active()) is not None:
        recorder.record(MakeFolder(os.path.abspath(path)))


def create_exclusive(path: str | os.PathLike[str], mode: int) -> int:
    """Create ``path`` empty, write-only, refusing an existing name; the open descriptor."""
    fd = os.open(path, CREATE_FLAGS, mode)
    if (recorder := active()) is not None:
        recorder.record(CreateFile(os.path.abspath(path), identity_of(fd)))
    return fd


def created_elsewhere(fd: int, path: str | os.PathLike[str]) -> None:
    """Report a file another library created exclusively (``tempfile.mkstemp``) as created here."""
    if (recorder := active()) is not None:
        recorder.record(CreateFile(os.path.abspath(path), identity_of(fd)))


def write_all(fd: int, path: str | os.PathLike[str], data: bytes) -> None:
    """Write every byte of ``data`` at the descriptor's position (``path`` names it for the record)."""
    recorder = active()
    offset = os.lseek(fd, 0, os.SEEK_CUR) if recorder is not None else 0
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if recorder is not None:
            recorder.record(WriteBytes(os.path.abspath(path), identity_of(fd), offset, bytes(view[:written])))
            offset += written
        view = view[written:]


def _flush(fd: int, platform: Platform) -> None:
    """Flush a descriptor to stable storage: macOS needs ``F_FULLFSYNC`` for that, where this
    Python has it (macOS builds only) and the filesystem takes it; else the plain ``fsync``."""
    if platform.macos:
        try:
            import fcntl

            fcntl.fcntl(fd, getattr(fcntl, "F_FULLFSYNC"))  # noqa: B009 (not in typeshed: macOS builds only)
            return
        except (ImportError, AttributeError, OSError):  # Windows, another build, or this filesystem
            pass
    os.fsync(fd)


def sync_file(fd: int, path: str | os.PathLike[str], site: SyncSite, platform: Platform = CURRENT) -> None:
    """Make a file's bytes durable; ``site`` names the caller's reason (:mod:`.sync_sites`)."""
    _flush(fd, platform)
    if (recorder := active()) is not None:
        recorder.record(SyncFile(os.path.abspath(path), identity_of(fd), site))


def sync_folder(folder: str | os.PathLike[str], site: SyncSite, platform: Platform = CURRENT) -> None:
    """Make a folder's entries durable; skipped on Windows, which cannot open a folder to fsync.
    ``site`` names the caller's reason (:mod:`.sync_sites`)."""
    if platform.windows:
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        _flush(fd, platform)
    finally:
        os.close(fd)
    if (recorder := active()) is not None:
        recorder.record(SyncFolder(os.path.abspath(folder), site))


def _identity_if_recording(path: str | os.PathLike[str]) -> FileIdentity | None:
    """The identity a name has before a step, while recording; None when off (or no such name,
    where the step itself then fails)."""
    if active() is None:
        return None
    try:
        return identity_at(path)
    except OSError:
        return None


def link(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
    """``link(2)`` (``CreateHardLinkW`` on Windows): a second name, refused when it exists."""
    os.link(source, destination)
    if (recorder := active()) is not None:
        recorder.record(Link(os.path.abspath(source), os.path.abspath(destination), identity_at(destination)))


def replace(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
    """``rename(2)`` over any existing ``destination`` (``MoveFileExW`` with replace on Windows); a
    rename keeps the file, so the record's identity is the destination's now."""
    os.replace(source, destination)
    if (recorder := active()) is not None:
        recorder.record(Rename(os.path.abspath(source), os.path.abspath(destination), identity_at(destination)))


def unlink_second_name(path: str | os.PathLike[str], remaining: str | os.PathLike[str]) -> None:
    """``unlink(2)`` of ``path``, a second name of the file that ``remaining`` still names (the
    install's temporary, once the target is linked)."""
    os.unlink(path)
    if (recorder := active()) is not None:
        recorder.record(Unlink(os.path.abspath(path), identity_at(remaining)))


def unlink(path: str | os.PathLike[str]) -> None:
    """``unlink(2)``: remove one name (``FileNotFoundError`` when it is not there)."""
    identity = _identity_if_recording(path)
    os.unlink(path)
    if identity is not None and (recorder := active()) is not None:
        recorder.record(Unlink(os.path.abspath(path), identity))
