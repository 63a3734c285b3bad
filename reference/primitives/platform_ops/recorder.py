"""The durable steps of the reference, each a typed record, and the recording of them (issue 28).

Every step that changes what a power loss can leave on disk (a new folder, a new file, bytes
written at an offset, a file or folder fsync, a rename, a hard link, an unlink) is one function
of :mod:`.steps`, and each of those functions reports the step it took here, as one of the frozen
records below, when a recording is on.  ``crashsim`` turns a recorded trace into the crash states
a power loss may leave (docs/rebase-durability.md, "Power loss").

Recording is off unless a caller opens :func:`recording`: the hook is a :class:`ContextVar`
owned by this module, read once per step (one ``ContextVar.get``, nothing else, when off), so no
layer above the primitives carries a recorder parameter and no other module reads an ambient
global.  A context variable rather than a module global: a recording is scoped to the ``with``
block that opened it (and its thread or task), and leaving the block always ends it.

What is *not* recorded, on purpose: SQLite's own writes (the index, the lock database) go through
``sqlite3``, not through these steps; only the folder and the empty file the reference creates
for SQLite are recorded.  ``crashsim`` models an SQLite file as a unit (docs/rebase-durability.md).
Mode changes (``chmod``) are not recorded: no invariant reads a mode after a crash.  Nothing in
the reference truncates a file, so there is no truncate step.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Final

from reference.primitives.platform_ops.sync_sites import SyncSite

#: A file's identity: ``(st_dev, st_ino)`` of the open file or of the name just before the step.
FileIdentity = tuple[int, int]


@dataclass(frozen=True)
class MakeFolder:
    """``mkdir``: a new entry ``path`` in its parent folder."""

    path: str


@dataclass(frozen=True)
class CreateFile:
    """An exclusive create (``O_CREAT|O_EXCL``): a new empty file under a new entry ``path``."""

    path: str
    identity: FileIdentity


@dataclass(frozen=True)
class WriteBytes:
    """``data`` written at ``offset`` of the file ``identity`` (opened as ``path``)."""

    path: str
    identity: FileIdentity
    offset: int
    data: bytes


@dataclass(frozen=True)
class SyncFile:
    """``fsync`` (macOS ``F_FULLFSYNC``) of a file: its bytes are durable once it returns;
    ``site``: the place in the reference that asked for it."""

    path: str
    identity: FileIdentity
    site: SyncSite


@dataclass(frozen=True)
class SyncFolder:
    """``fsync`` of a folder: its entries (new, renamed, linked, removed) are durable once it
    returns; ``site``: the place in the reference that asked for it."""

    path: str
    site: SyncSite


@dataclass(frozen=True)
class Rename:
    """``rename``/``replace``: ``destination`` names the file ``identity``, ``source`` is gone."""

    source: str
    destination: str
    identity: FileIdentity


@dataclass(frozen=True)
class Link:
    """``link``: a second entry ``destination`` for the file ``identity`` named ``source``."""

    source: str
    destination: str
    identity: FileIdentity


@dataclass(frozen=True)
class Unlink:
    """``unlink``: the entry ``path`` (of the file ``identity``) removed."""

    path: str
    identity: FileIdentity


#: One durable step, in the order the reference took it.
Step = MakeFolder | CreateFile | WriteBytes | SyncFile | SyncFolder | Rename | Link | Unlink
#: The steps whose effect a power loss may undo until their folder is synced.
FOLDER_ENTRY_STEPS: Final = (MakeFolder, CreateFile, Rename, Link, Unlink)


@dataclass
class Recorder:
    """The steps recorded while a :func:`recording` is open; a subclass may watch each one."""

    steps: list[Step] = field(default_factory=list)

    def record(self, step: Step) -> None:
        self.steps.append(step)


_ACTIVE: Final[ContextVar[Recorder | None]] = ContextVar("platform_ops_recorder", default=None)


def active() -> Recorder | None:
    """The recorder of the open recording, or None (the production case)."""
    return _ACTIVE.get()


@contextmanager
def recording(recorder: Recorder | None = None) -> Iterator[Recorder]:
    """Record every durable step taken inside the block (in this context) into ``recorder``."""
    chosen = Recorder() if recorder is None else recorder
    token = _ACTIVE.set(chosen)
    try:
        yield chosen
    finally:
        _ACTIVE.reset(token)


def identity_of(fd: int) -> FileIdentity:
    """The identity of an open file (only asked while recording)."""
    info = os.fstat(fd)
    return (info.st_dev, info.st_ino)


def identity_at(path: str | os.PathLike[str]) -> FileIdentity:
    """The identity of the file a name has now, not following a link (only asked while recording)."""
    info = os.lstat(path)
    return (info.st_dev, info.st_ino)
