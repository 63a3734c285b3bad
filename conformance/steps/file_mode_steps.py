"""Steps that read the permission bits of the files and folders an implementation created: OWNER
scenarios (decision D6; docs/privacy.md, owner-only files).

The harness notes every path under the scenario folder before the implementation runs; what
appears afterwards is the implementation's, and each such real file must be 0600 and each such
folder 0700.  The modes are read from the file system with ``lstat``, never asked of the
implementation.  Where the platform has no POSIX permission bits (Windows), the checks that the
paths exist still run, and the mode check says in the scenario's output that it read no modes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then

from conformance.protocol import Adapter
from conformance.world import ConfigWorld, HistoryWorld, RebaseWorld

HAS_PERMISSION_BITS = os.name == "posix"
FILE_MODE = 0o600
FOLDER_MODE = 0o700


@dataclass
class NotedPaths:
    """The paths under the scenario folder when they were last noted."""

    root: Path | None = None
    before: set[Path] = field(default_factory=set)

    def new_paths(self) -> list[Path]:
        """Every path under the root that was not there when noted, in sorted order."""
        assert self.root is not None, "the paths of the scenario folder were not noted"
        return sorted(path for path in _walk(self.root) if path not in self.before)


@pytest.fixture
def noted_paths() -> NotedPaths:
    return NotedPaths()


def _walk(root: Path) -> set[Path]:
    """Every file, folder and link under ``root`` (links are not followed)."""
    found: set[Path] = set()
    for folder, folders, files in os.walk(root, followlinks=False):
        found.update(Path(folder) / name for name in (*folders, *files))
    return found


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _index_folder(history: HistoryWorld) -> Path:
    return history.project.index_path.parent


@given("the paths of the scenario folder are noted")
def given_noted(workdir: Path, noted_paths: NotedPaths) -> None:
    noted_paths.root = workdir
    noted_paths.before = _walk(workdir)


@given(parsers.parse("the history index folder exists with mode {mode}"))
def given_index_folder_mode(history: HistoryWorld, mode: str) -> None:
    folder = _index_folder(history)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, int(mode, 8))  # a no-op for the group and other bits on Windows


def _assert_new(noted_paths: NotedPaths, *paths: Path) -> None:
    new = noted_paths.new_paths()
    missing = [str(path) for path in paths if path not in new]
    assert not missing, f"not created by the implementation: {missing}; new paths: {[str(p) for p in new]}"


@then("the history index file and its folder are among the new paths")
def then_index_new(history: HistoryWorld, noted_paths: NotedPaths) -> None:
    _assert_new(noted_paths, history.project.index_path, _index_folder(history))


@then("the history index file is among the new paths")
def then_index_file_new(history: HistoryWorld, noted_paths: NotedPaths) -> None:
    _assert_new(noted_paths, history.project.index_path)


@then("the rebase journal, the rebase lock and the rebase target are among the new paths")
def then_rebase_files_new(rebase: RebaseWorld, noted_paths: NotedPaths) -> None:
    journal, lock = rebase.journal, rebase.lock_file
    _assert_new(noted_paths, journal, journal.parent, journal.parent.parent, lock, lock.parent, rebase.target)


@then("a temporary file of the rebase target is among the new paths")
def then_temporary_new(rebase: RebaseWorld, noted_paths: NotedPaths) -> None:
    prefix = rebase.target.name + "."
    found = [path for path in noted_paths.new_paths()
             if path.parent == rebase.target.parent and path.name.startswith(prefix) and path.name.endswith(".tmp")]
    assert found, f"no {prefix}<uuid>.tmp beside the target: {[str(p) for p in noted_paths.new_paths()]}"


@then("every new path is owner-only")
def then_owner_only(noted_paths: NotedPaths) -> None:
    """Real files 0600, folders 0700; a symbolic link or any other kind of path is refused."""
    new = noted_paths.new_paths()
    assert new, "the implementation created nothing under the scenario folder"
    if not HAS_PERMISSION_BITS:
        print(f"this platform has no POSIX permission bits: the modes of {len(new)} new paths were not read")
        return
    wrong = []
    for path in new:
        info = path.lstat()
        expected = FOLDER_MODE if stat.S_ISDIR(info.st_mode) else FILE_MODE if stat.S_ISREG(info.st_mode) else None
        if expected is None or stat.S_IMODE(info.st_mode) != expected:
            wrong.append(f"{path} {stat.filemode(info.st_mode)} ({oct(stat.S_IMODE(info.st_mode))})")
    assert not wrong, "not owner-only (files 0600, folders 0700):\n" + "\n".join(wrong)


@then(parsers.parse("the history index folder has mode {mode}"))
def then_index_folder_mode(history: HistoryWorld, mode: str) -> None:
    if HAS_PERMISSION_BITS:
        assert _mode(_index_folder(history)) == int(mode, 8), oct(_mode(_index_folder(history)))


# ------------------------------------------------------------------ configuration files (OWNER-005..007)


@given("the DS4 config host is the history project")
def given_config_host(history: HistoryWorld, config_world: ConfigWorld) -> None:
    """``config.*`` requests with the history project's facts: its home, agent dir and trusted cwd."""
    project = history.project
    config_world.host = {
        "home": str(project.home),
        "cwd": str(project.cwd),
        "env": {"PI_CODING_AGENT_DIR": str(project.agent)},
        "argv": ["--approve"],
    }


def _config_file(adapter: Adapter, config_world: ConfigWorld, scope: str) -> Path:
    """The file of that scope as the implementation's ``config.show`` names it."""
    shown = adapter.request("config.show", dict(config_world.host))
    return next(Path(item["path"]) for item in shown["files"] if item["scope"] == scope)


def _assert_new_resolved(noted_paths: NotedPaths, *paths: Path) -> None:
    """As :func:`_assert_new`, comparing real paths (a reported path may be the real one of a link)."""
    new = {path.resolve() for path in noted_paths.new_paths()}
    missing = [str(path) for path in paths if path.resolve() not in new]
    assert not missing, f"not created by the implementation: {missing}; new paths: {sorted(map(str, new))}"


@then(parsers.re(r"the (?P<scope>global|project) DS4 config file and its folder are among the new paths$"))
def then_config_file_and_folder_new(adapter: Adapter, config_world: ConfigWorld, noted_paths: NotedPaths,
                                    scope: str) -> None:
    path = _config_file(adapter, config_world, scope)
    _assert_new_resolved(noted_paths, path, path.parent)


@then(parsers.re(r"the (?P<scope>global|project) DS4 config file is among the new paths$"))
def then_config_file_new(adapter: Adapter, config_world: ConfigWorld, noted_paths: NotedPaths, scope: str) -> None:
    _assert_new_resolved(noted_paths, _config_file(adapter, config_world, scope))


@given(parsers.re(r"the (?P<scope>global|project) DS4 config file has mode (?P<mode>0[0-7]{3})$"))
def given_config_mode(adapter: Adapter, config_world: ConfigWorld, scope: str, mode: str) -> None:
    os.chmod(_config_file(adapter, config_world, scope), int(mode, 8))  # the read-only bit only on Windows


@then(parsers.re(r"the (?P<scope>global|project) DS4 config file has mode (?P<mode>0[0-7]{3})$"))
def then_config_mode(adapter: Adapter, config_world: ConfigWorld, scope: str, mode: str) -> None:
    path = _config_file(adapter, config_world, scope)
    assert path.is_file(), f"{path} does not exist"
    if not HAS_PERMISSION_BITS:
        print(f"this platform has no POSIX permission bits: the mode of {path} was not read")
        return
    assert _mode(path) == int(mode, 8), f"{path} has mode {oct(_mode(path))}, not {mode}"


@then("no path under the scenario folder is new")
def then_nothing_new(noted_paths: NotedPaths) -> None:
    new = noted_paths.new_paths()
    assert not new, f"left behind: {[str(path) for path in new]}"
