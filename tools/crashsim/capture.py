"""A workload recorded as a :class:`~crashsim.model.Trace`, and a crash state written back as a
real folder at the same place (journals hold absolute paths, so a state must live where the
workload ran).

SQLite files are units (docs/rebase-durability.md): their writes go through ``sqlite3``, not the
recorded steps, so the recorder copies their bytes after each step instead, and the steps that
touch them (the reference's empty create before SQLite opens the file) are left to the unit.
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from crashsim.model import CrashState, Trace, UnitHistory
from reference.primitives.platform_ops.recorder import (
    CreateFile,
    Link,
    MakeFolder,
    Recorder,
    Rename,
    Step,
    SyncFolder,
    recording,
)

#: SQLite's side files; ``-shm`` is never copied (SQLite rebuilds it from the database and WAL).
UNIT_SUFFIXES: Final = ("-wal", "-journal")


def is_sqlite(name: str) -> bool:
    """The index and the lock databases, and their side files."""
    base = name.removesuffix("-wal").removesuffix("-journal").removesuffix("-shm")
    return base.endswith(".sqlite")


def _family(name: str) -> str:
    for suffix in UNIT_SUFFIXES:
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return name


def _walk(root: Path) -> tuple[list[str], list[Path]]:
    folders, files = [], []
    for folder, subfolders, names in os.walk(root):
        base = Path(folder)
        folders += [(base / sub).relative_to(root).as_posix() for sub in subfolders]
        files += [base / name for name in names]
    return sorted(folders), sorted(files)


def read_units(root: Path) -> tuple[tuple[str, bytes], ...]:
    """Every SQLite file under ``root`` (``-shm`` left out) and its bytes now."""
    found = []
    for path in _walk(root)[1]:
        name = path.relative_to(root).as_posix()
        if is_sqlite(name) and not name.endswith("-shm"):
            try:
                found.append((name, path.read_bytes()))
            except FileNotFoundError:
                continue
    return tuple(found)


@dataclass
class UnitWatcher(Recorder):
    """A recorder that also copies the SQLite units after each step."""

    root: Path = Path()
    snapshots: list[tuple[tuple[str, bytes], ...]] = field(default_factory=list)

    def record(self, step: Step) -> None:
        super().record(step)
        self.snapshots.append(read_units(self.root))


def capture(root: Path, run: Callable[[], object]) -> Trace:
    """Run ``run`` (which works under ``root``) with a recording on; its trace from ``root``'s tree now."""
    folders, paths = _walk(root)
    initial = [(p.relative_to(root).as_posix(), p) for p in paths]
    inodes: dict[tuple[int, int], int] = {}
    files = []
    for name, path in initial:
        if is_sqlite(name):
            continue
        info = path.lstat()
        inode = inodes.setdefault((info.st_dev, info.st_ino), len(inodes) + 1)
        files.append((name, inode, path.read_bytes()))
    first_units = read_units(root)
    watcher = UnitWatcher(root=root)
    with recording(watcher):
        run()
    steps, kept_before = _relative(root, watcher.steps, inodes)
    versions = [(first_units, 0)] + [(snap, kept_before[j]) for j, snap in enumerate(watcher.snapshots)]
    versions.append((read_units(root), len(steps)))
    return Trace(frozenset(folders), tuple(files), tuple(steps), _units(versions))


def _relative(root: Path, steps: list[Step], inodes: dict[tuple[int, int], int]
              ) -> tuple[list[Step], list[int]]:
    """Steps under ``root`` as relative paths and abstract inodes; SQLite files' steps left out.
    Also, for each recorded step, how many kept steps came before it."""
    def rel(path: str) -> str:
        return Path(path).relative_to(root).as_posix()

    kept: list[Step] = []
    kept_before = []
    fresh = itertools.count(max(inodes.values(), default=0) + 1)
    for step in steps:
        kept_before.append(len(kept))
        if isinstance(step, (MakeFolder, SyncFolder)):
            kept.append(replace(step, path=rel(step.path)))
            continue
        named = (step.source, step.destination) if isinstance(step, (Rename, Link)) else (step.path,)
        if any(is_sqlite(rel(p)) for p in named):
            continue
        if isinstance(step, CreateFile) or step.identity not in inodes:
            inodes[step.identity] = next(fresh)
        abstract = (0, inodes[step.identity])
        if isinstance(step, (Rename, Link)):
            kept.append(replace(step, source=rel(step.source), destination=rel(step.destination), identity=abstract))
        else:
            kept.append(replace(step, path=rel(step.path), identity=abstract))
    return kept, kept_before


def _units(versions: list[tuple[tuple[tuple[str, bytes], ...], int]]) -> tuple[UnitHistory, ...]:
    families = sorted({_family(name) for snapshot, _ in versions for name, _ in snapshot})
    units = []
    for family in families:
        distinct: dict[tuple[tuple[str, bytes], ...], int] = {}
        for snapshot, seen in versions:
            own = tuple((n, d) for n, d in snapshot if _family(n) == family)
            distinct.setdefault(own, seen)
        units.append(UnitHistory(family, tuple(distinct), tuple(distinct.values())))
    return tuple(units)


def materialize(state: CrashState, root: Path) -> None:
    """Make ``root`` hold exactly ``state``: its visible folders, files (hard links kept) and units."""
    if root.exists():
        for child in root.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    root.mkdir(parents=True, exist_ok=True)
    folders, names = state.visible()
    for folder in sorted(folders, key=lambda f: f.count("/")):
        (root / folder).mkdir(mode=0o700)
    contents, written = dict(state.contents), dict[int, str]()
    for name, inode in sorted(names.items()):
        if inode in written:
            os.link(root / written[inode], root / name)
            continue
        (root / name).write_bytes(contents.get(inode, b""))
        os.chmod(root / name, 0o600)
        written[inode] = name
    for name, data in state.unit_files:
        if name.rpartition("/")[0] in folders | {""}:
            (root / name).write_bytes(data)
            os.chmod(root / name, 0o600)
