"""Steps that give the history host an index path holding something it did not make: INDEX
scenarios of issue 23 (docs/index.md I14; decisions D15).

A scenario puts a file, a link, a folder or a FIFO where the index should be, opens the current
session with that ``indexPath``, and checks that every path in the folders it touched kept its
name, kind, mode and bytes (a link its target; a FIFO is never read): nothing renamed, replaced,
written or created beside it (no ``-wal``, ``-shm``, ``-journal`` or set-aside copy).  The
damaged-index scenario checks the other way round: our own index, damaged, is still set aside
inside its folder and rebuilt.  Modes, kinds and bytes are read with ``lstat`` from the file
system, never asked of the implementation.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.history_calls import open_history
from conformance.world import HistoryWorld

#: What a path was: its ``lstat`` mode (kind and permission bits) and its bytes (a link: its
#: target; any other kind: nothing, so a FIFO is never opened).
Picture = tuple[int, bytes | str]


@dataclass
class GivenIndexPath:
    """The index path a scenario gave the host, and its folders as they were before."""

    path: Path | None = None
    pictures: dict[Path, dict[str, Picture]] = field(default_factory=dict)
    damaged_bytes: bytes | None = None

    @property
    def given(self) -> Path:
        assert self.path is not None, "no index path was given"
        return self.path


@pytest.fixture
def given_index_path() -> GivenIndexPath:
    return GivenIndexPath()


def _picture(folder: Path) -> dict[str, Picture]:
    seen: dict[str, Picture] = {}
    for name in sorted(os.listdir(folder)):
        path = folder / name
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            seen[name] = (info.st_mode, os.readlink(path))
        elif stat.S_ISREG(info.st_mode):
            seen[name] = (info.st_mode, path.read_bytes())
        else:
            seen[name] = (info.st_mode, "")
    return seen


def _foreign_database(path: Path) -> None:
    """Another program's SQLite database, in WAL mode as many are (application id 0, no ledger)."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode = WAL").fetchone()
        conn.execute("CREATE TABLE bookmarks (url TEXT NOT NULL, title TEXT)")
        conn.execute("INSERT INTO bookmarks VALUES ('https://example.invalid/', 'kept')")
        conn.commit()


def _make(kind: str, history: HistoryWorld, others: Path) -> Path:
    session = history.current
    if kind == "the current session file":
        return session
    others.mkdir(parents=True, exist_ok=True)
    if kind == "a text file":
        path = others / "notes.txt"
        path.write_text("Notes of the user, not an index.\n" * 20, encoding="utf-8")
    elif kind == "another program's SQLite database":
        path = others / "bookmarks.sqlite"
        _foreign_database(path)
    elif kind == "a symbolic link to the current session file":
        path = others / "link.sqlite"
        path.symlink_to(session)
    elif kind == "a folder":
        path = others / "folder.sqlite"
        path.mkdir()
        (path / "inside.txt").write_text("the folder's own file\n", encoding="utf-8")
    elif kind == "a FIFO":
        path = others / "fifo.sqlite"
        os.mkfifo(path)
    else:
        raise AssertionError(f"unknown index path kind: {kind}")
    if not path.is_symlink():
        os.chmod(path, 0o750 if path.is_dir() else 0o640)  # a mode that is not the index's 0600
    return path


@given(parsers.parse("the history index path is {kind}"))
@when(parsers.parse("the history index path becomes {kind}"))
def given_index_kind(workdir: Path, history: HistoryWorld, given_index_path: GivenIndexPath, kind: str) -> None:
    path = _make(kind, history, workdir / "others")
    given_index_path.path = path
    for folder in {path.parent, history.current.parent}:
        given_index_path.pictures[folder] = _picture(folder)


@given("the history index path lies inside a regular file")
@when("the history index path lies inside a regular file")
def given_index_under_a_file(workdir: Path, given_index_path: GivenIndexPath) -> None:
    """An index path no implementation can open or create: its folder is a regular file (contract
    §2.4: no database, runtime-unavailable)."""
    others = workdir / "others"
    others.mkdir(parents=True, exist_ok=True)
    blocker = others / "not-a-folder"
    blocker.write_text("a regular file where the index folder would be\n", encoding="utf-8")
    given_index_path.path = blocker / "index.sqlite"


@when("the history host opens the current session with that index")
def when_open_with_index(adapter: Adapter, history: HistoryWorld, given_index_path: GivenIndexPath) -> None:
    open_history(adapter, history, provider="openai", indexPath=str(given_index_path.given))


@when("the history host opens a session that has no file with that index")
def when_open_ephemeral_with_index(adapter: Adapter, history: HistoryWorld, given_index_path: GivenIndexPath) -> None:
    """A session that was never written (``ephemeral-session``) over the index path given before,
    so a call fails two checks at once (contract §2.4, §4: runtime access comes first)."""
    open_history(adapter, history, provider="openai", sessionFile=str(history.project.folder / "never-written.jsonl"),
                 indexPath=str(given_index_path.given))


@then("every path in the folders of the given index and of the session kept its name, kind, mode and bytes")
def then_all_kept(given_index_path: GivenIndexPath) -> None:
    assert given_index_path.pictures, "no folder was pictured"
    for folder, before in given_index_path.pictures.items():
        after = _picture(folder)
        assert sorted(after) == sorted(before), f"{folder}: names were {sorted(before)}, now {sorted(after)}"
        changed = [name for name in before if after[name] != before[name]]
        assert not changed, f"{folder}: changed kind, mode or bytes: {changed}"


# ------------------------------------------------------------------ our own index, damaged


@given("the files of the session folder are noted")
@when("the files of the session folder are noted")
def when_note_session_folder(history: HistoryWorld, given_index_path: GivenIndexPath) -> None:
    given_index_path.pictures[history.current.parent] = _picture(history.current.parent)


@when("the history index file gets garbage after its first 100 bytes")
def when_damage_index(history: HistoryWorld, given_index_path: GivenIndexPath) -> None:
    index = history.project.index_path
    assert index.is_file(), f"no index at {index}"
    for suffix in ("-wal", "-shm"):
        assert not Path(f"{index}{suffix}").exists(), f"{index}{suffix}: the host keeps the index open"
    data = index.read_bytes()
    damaged = data[:100] + bytes((n * 131 + 7) % 256 for n in range(len(data) - 100))
    index.write_bytes(damaged)
    given_index_path.damaged_bytes = damaged


@then("the damaged bytes are kept in another file of the history index folder")
def then_damaged_kept(history: HistoryWorld, given_index_path: GivenIndexPath) -> None:
    damaged = given_index_path.damaged_bytes
    assert damaged is not None, "the index was not damaged"
    index = history.project.index_path
    kept = [path.name for path in index.parent.iterdir()
            if path != index and path.is_file() and not path.is_symlink() and path.read_bytes() == damaged]
    assert kept, f"no copy of the damaged index in {index.parent}: {sorted(os.listdir(index.parent))}"
    assert index.read_bytes() != damaged, "the damaged index is still in place"
