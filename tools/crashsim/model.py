"""The persistence models: which crash states a power loss may leave after a recorded trace
(issue 28, deliverable 2; docs/rebase-durability.md, "Power loss").

A trace is the reference's durable steps (``reference.primitives.platform_ops.recorder``) with
paths relative to the workload's folder and each file identity replaced by an abstract inode
(a new one at each create, so a reused inode number is a new file).  A crash after ``k`` steps
leaves, for each step before it, that step persisted or not, as the model allows; SQLite files
are units whose state is one of the committed versions seen so far (:class:`UnitHistory`).

* :attr:`Model.GENERAL` (the default, ALICE's abstract model): a write is durable once its file is
  fsynced, a folder entry (mkdir, create, rename, link, unlink) once its folder is fsynced; any
  subset of the steps not yet covered may have persisted, in any order; a write not covered may
  be torn, keeping a prefix of its 512-byte sectors.
* :attr:`Model.ORDERED` (stricter, ext4 ``data=ordered``-like): every fsync, of a file or a
  folder, commits everything before it; between two fsyncs the folder entries persist in order (a
  prefix of them), and a file's writes persist whole before an entry step of that file does.
* :attr:`Model.HARSH`: the general model, with a write torn to any subset of its sectors (at most
  :data:`SUBSET_SECTORS` sectors; longer writes keep a prefix, a suffix, or all but one sector),
  sectors of an append that did not persist read as zeros (the size persisted, not the data),
  and an SQLite unit may also be garbled.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from reference.primitives.platform_ops.recorder import (
    FOLDER_ENTRY_STEPS,
    CreateFile,
    Link,
    MakeFolder,
    Rename,
    Step,
    SyncFile,
    SyncFolder,
    Unlink,
    WriteBytes,
)

SECTOR: Final = 512
SUBSET_SECTORS: Final = 6
#: The choices one crash point may combine before they are sampled instead.
DEFAULT_POINT_LIMIT: Final = 2048


class Model(StrEnum):
    ORDERED = "ordered"
    GENERAL = "general"
    HARSH = "harsh"


@dataclass(frozen=True)
class UnitHistory:
    """An SQLite database and its side files as one unit: each distinct committed version (the
    files of the family and their bytes) and the first crash point it may be on disk at."""

    name: str
    versions: tuple[tuple[tuple[str, bytes], ...], ...]
    seen_at: tuple[int, ...]


@dataclass(frozen=True)
class Trace:
    """A workload's durable steps, relative and with abstract inodes, from its initial tree."""

    folders: frozenset[str]
    files: tuple[tuple[str, int, bytes], ...]  # the initial files: name, abstract inode, bytes
    steps: tuple[Step, ...]
    units: tuple[UnitHistory, ...] = ()


@dataclass(frozen=True)
class CrashState:
    """What the disk holds after a power loss: folders, names (to an inode), bytes per inode,
    and the SQLite units' files."""

    point: int
    description: str
    folders: frozenset[str]
    names: tuple[tuple[str, int], ...]
    contents: tuple[tuple[int, bytes], ...]
    unit_files: tuple[tuple[str, bytes], ...]

    def visible(self) -> tuple[frozenset[str], dict[str, int]]:
        """The folders whose parents exist, and the names in them: what a reader can reach."""
        folders = {""}
        for folder in sorted(self.folders, key=lambda f: f.count("/")):
            if _parent(folder) in folders:
                folders.add(folder)
        return frozenset(folders - {""}), {n: i for n, i in self.names if _parent(n) in folders}

    def digest(self, unit_hashes: dict[int, tuple[bytes, bytes]] | None = None) -> str:
        """Equal for two states a reader cannot tell apart (hard links included).  ``unit_hashes``
        keeps each unit file's bytes and their SHA-256 by ``id`` across the calls of one
        exploration (the bytes kept too, so an ``id`` is never reused meanwhile)."""
        memo = {} if unit_hashes is None else unit_hashes
        folders, names = self.visible()
        contents = dict(self.contents)
        hashed = hashlib.sha256()
        for folder in sorted(folders):
            hashed.update(b"D" + folder.encode() + b"\0")
        first: dict[int, str] = {}
        for name in sorted(names):
            inode = names[name]
            same = first.setdefault(inode, name)
            body = hashlib.sha256(contents.get(inode, b"")).hexdigest() if same == name else "=" + same
            hashed.update(b"F" + name.encode() + b"\0" + body.encode() + b"\0")
        for name, data in sorted(self.unit_files):
            if _parent(name) in folders | {""}:
                if id(data) not in memo:
                    memo[id(data)] = (data, hashlib.sha256(data).digest())
                hashed.update(b"U" + name.encode() + b"\0" + memo[id(data)][1])
        return hashed.hexdigest()


def _parent(path: str) -> str:
    return path.rpartition("/")[0]


def _inode(step: Step) -> int:
    identity = getattr(step, "identity", (0, 0))
    return int(identity[1])


def _entry_folders(step: Step) -> tuple[str, ...]:
    if isinstance(step, (Rename, Link)):
        return tuple(dict.fromkeys((_parent(step.source), _parent(step.destination))))
    if isinstance(step, (MakeFolder, CreateFile, Unlink)):
        return (_parent(step.path),)
    return ()


def pieces(write: WriteBytes) -> list[tuple[int, int]]:
    """The write split at sector boundaries: (offset, length) of each piece."""
    start, end, result = write.offset, write.offset + len(write.data), []
    while start < end:
        stop = min(end, (start // SECTOR + 1) * SECTOR)
        result.append((start, stop - start))
        start = stop
    return result


def covered_at(steps: Sequence[Step], model: Model) -> list[int]:
    """For each step, the index of the first later step that makes it durable (len: never):
    ORDERED, any fsync; else a write's file's fsync, an entry step's folder's (each folder's, for
    a rename or link between two)."""
    never = len(steps)
    result = []
    for i, step in enumerate(steps):
        later = range(i + 1, never)
        if model is Model.ORDERED:
            result.append(next((j for j in later if isinstance(steps[j], (SyncFile, SyncFolder))), never))
        elif isinstance(step, WriteBytes):
            result.append(next((j for j in later if isinstance(steps[j], SyncFile)
                                and _inode(steps[j]) == _inode(step)), never))
        else:
            syncs = [(j, later_step.path) for j in later if isinstance(later_step := steps[j], SyncFolder)]
            firsts = [next((j for j, path in syncs if path == f), never) for f in _entry_folders(step)]
            result.append(max(firsts, default=never))
    return result


@dataclass(frozen=True)
class Torn:
    """A write's choice: which of its pieces persisted, and (HARSH) whether the file's size grew
    to the write's end all the same, the pieces not written reading as zeros."""

    kept: tuple[bool, ...]
    zeros: bool = False


def _write_choices(write: WriteBytes, model: Model) -> list[Torn]:
    count = len(pieces(write))
    prefixes = [tuple(p < keep for p in range(count)) for keep in range(count + 1)]
    if model is not Model.HARSH:
        return [Torn(kept) for kept in prefixes]
    if count <= SUBSET_SECTORS:
        subsets = [tuple(bits) for bits in itertools.product((False, True), repeat=count)]
    else:
        suffixes = [tuple(p >= drop for p in range(count)) for drop in range(1, count)]
        all_but_one = [tuple(p != hole for p in range(count)) for hole in range(count)]
        subsets = list(dict.fromkeys(prefixes + suffixes + all_but_one))
    return [Torn(kept) for kept in subsets] + [Torn(kept, zeros=True) for kept in subsets if not all(kept)]


@dataclass(frozen=True)
class _Point:
    """One crash point's free choices: the steps not yet durable and what each may be."""

    point: int
    free: tuple[int, ...]
    options: tuple[tuple[object, ...], ...]


def _apply(trace: Trace, point: int, persisted: dict[int, object], model: Model) -> CrashState:
    """Replay the steps before ``point`` that persisted (each whole, or the pieces chosen)."""
    folders = set(trace.folders)
    names = {name: inode for name, inode, _ in trace.files}
    contents = {inode: bytearray(data) for _, inode, data in trace.files}
    notes = []
    for index in range(point):
        step, choice = trace.steps[index], persisted.get(index, True)
        if choice is False:
            notes.append(f"lost #{index} {type(step).__name__}")
            continue
        if isinstance(step, MakeFolder):
            folders.add(step.path)
        elif isinstance(step, CreateFile):
            names[step.path] = _inode(step)
            contents[_inode(step)] = bytearray()
        elif isinstance(step, WriteBytes):
            torn = choice if isinstance(choice, Torn) else Torn((True,) * len(pieces(step)))
            kept = torn.kept
            if not all(kept):
                notes.append(f"torn #{index} {sum(kept)}/{len(kept)} sectors" + (", zeros" if torn.zeros else ""))
            data = contents.setdefault(_inode(step), bytearray())
            for (offset, length), keep in zip(pieces(step), kept, strict=True):
                if keep or torn.zeros:
                    if len(data) < offset + length:
                        data.extend(bytes(offset + length - len(data)))
                    if keep:
                        relative = offset - step.offset
                        data[offset:offset + length] = step.data[relative:relative + length]
        elif isinstance(step, Rename):
            names[step.destination] = _inode(step)
            if names.get(step.source) == _inode(step) and step.source != step.destination:
                del names[step.source]
        elif isinstance(step, Link):
            names[step.destination] = _inode(step)
        elif isinstance(step, Unlink) and names.get(step.path) == _inode(step):
            del names[step.path]
    live = set(names.values())
    description = f"after {point}/{len(trace.steps)} steps" + (f"; {', '.join(notes)}" if notes else "")
    return CrashState(point, description, frozenset(folders), tuple(sorted(names.items())),
                      tuple(sorted((i, bytes(d)) for i, d in contents.items() if i in live)), ())


def _unit_choices(trace: Trace, point: int, model: Model) -> list[tuple[tuple[str, bytes], ...]]:
    """Per unit, its versions that may be on disk at ``point``; a garbled copy in the harsh model."""
    per_unit = []
    for unit in trace.units:
        versions = [v for v, seen in zip(unit.versions, unit.seen_at, strict=True) if seen <= point]
        if model is Model.HARSH and versions and versions[-1]:
            versions.append(garbled(versions[-1]))
        per_unit.append(versions or [()])
    return [tuple(itertools.chain.from_iterable(combo)) for combo in itertools.product(*per_unit)]


def garbled(files: tuple[tuple[str, bytes], ...]) -> tuple[tuple[str, bytes], ...]:
    """The unit with the second half of its main file's bytes overwritten by a fixed pattern."""
    name, data = files[0]
    half = len(data) // 2
    return ((name, data[:half] + bytes([0xA5]) * (len(data) - half)), *files[1:])


def _points(trace: Trace, model: Model) -> Iterator[_Point]:
    covered = covered_at(trace.steps, model)
    for point in range(len(trace.steps) + 1):
        free = [i for i in range(point) if covered[i] >= point
                and not isinstance(trace.steps[i], (SyncFile, SyncFolder))]
        options: list[tuple[object, ...]] = []
        for index in free:
            step = trace.steps[index]
            if isinstance(step, WriteBytes):
                options.append(tuple(_write_choices(step, model)))
            else:
                options.append((True, False))
        yield _Point(point, tuple(free), tuple(options))


def _ordered_ok(trace: Trace, point: _Point, combo: Sequence[object]) -> bool:
    """ORDERED: the free entry steps persisted form a prefix, and a file's writes before a
    persisted entry step of that file persisted whole."""
    entries = [(i, c) for i, c in zip(point.free, combo, strict=True) if isinstance(trace.steps[i], FOLDER_ENTRY_STEPS)]
    flags = [c is not False for _, c in entries]
    if flags != sorted(flags, reverse=True):
        return False
    chosen = dict(zip(point.free, combo, strict=True))
    for index, choice in entries:
        if choice is False:
            continue
        inode = _inode(trace.steps[index])
        for earlier, value in chosen.items():
            step = trace.steps[earlier]
            if earlier < index and isinstance(step, WriteBytes) and _inode(step) == inode and not (
                    isinstance(value, Torn) and all(value.kept)):
                return False
    return True


@dataclass(frozen=True)
class Exploration:
    """The distinct crash states of a trace under a model; ``sampled``: the digests of those drawn
    from a crash point whose choices were too many to combine all."""

    model: Model
    states: tuple[CrashState, ...]
    sampled: frozenset[str]


def _combinations(trace: Trace, point: _Point, model: Model, rng: random.Random, point_limit: int
                  ) -> tuple[list[Sequence[object]], bool]:
    total = 1
    for options in point.options:
        total *= len(options)
    if total <= point_limit:
        return list(itertools.product(*point.options)), False
    return [[rng.choice(options) for options in point.options] for _ in range(point_limit)], True


def _states(trace: Trace, point: _Point, model: Model, combos: Sequence[Sequence[object]]) -> Iterator[CrashState]:
    for combo in combos:
        if model is Model.ORDERED and not _ordered_ok(trace, point, combo):
            continue
        base = _apply(trace, point.point, dict(zip(point.free, combo, strict=True)), model)
        for number, unit_files in enumerate(_unit_choices(trace, point.point, model)):
            description = base.description + (f"; SQLite units choice {number}" if trace.units else "")
            yield CrashState(base.point, description, base.folders, base.names, base.contents, unit_files)


def finished_state(trace: Trace) -> CrashState:
    """The state every step of ``trace`` left, all persisted: what the finished run left on disk
    (the SQLite units aside)."""
    return _apply(trace, len(trace.steps), {}, Model.GENERAL)


def states_at(trace: Trace, point: int, model: Model = Model.GENERAL, *, seed: int = 0,
              point_limit: int = DEFAULT_POINT_LIMIT) -> list[CrashState]:
    """The distinct states of one crash point: after ``point`` steps were issued."""
    chosen = next(p for p in _points(trace, model) if p.point == point)
    combos, _ = _combinations(trace, chosen, model, random.Random(seed), point_limit)
    return list({s.digest(): s for s in _states(trace, chosen, model, combos)}.values())


def explore(trace: Trace, model: Model = Model.GENERAL, *, seed: int = 0,
            point_limit: int = DEFAULT_POINT_LIMIT) -> Exploration:
    """Every distinct crash state of ``trace`` under ``model`` (each kept at the first crash
    point that leaves it); a seeded sample of ``point_limit`` combinations at a crash point with more."""
    rng = random.Random(seed)
    seen: dict[str, CrashState] = {}
    sampled: set[str] = set()
    unit_hashes: dict[int, tuple[bytes, bytes]] = {}
    for point in _points(trace, model):
        combos, is_sample = _combinations(trace, point, model, rng, point_limit)
        for state in _states(trace, point, model, combos):
            key = state.digest(unit_hashes)
            if key not in seen:
                seen[key] = state
                if is_sample:
                    sampled.add(key)
    return Exploration(model, tuple(seen.values()), frozenset(sampled))
