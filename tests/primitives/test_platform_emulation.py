"""Path rules of the Windows and macOS branches, run here on pyfakefs's emulation of those systems.

pyfakefs (``fs.os = OSType.WINDOWS`` / ``OSType.MACOS``) gives ``os.path``, ``open`` and
``pathlib`` the other system's separators, drive letters and case-insensitive volume; the
primitive's branch is chosen by its ``platform=`` value, never by patching ``sys.platform``.
What emulation cannot show is listed in docs/platforms.md.

Pi's session folder names below are what Pi 0.84.3's own code gives
(``getDefaultSessionDirPath`` in ``src/core/session-manager.ts``, with Node's ``path.win32`` /
``path.posix`` ``resolve`` and ``join``), computed with Node from that code.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem, OSType

from reference.pi.exact.header import same_project
from reference.pi.exact.reader import read_header_line
from reference.primitives.platform_ops.family import (
    CURRENT,
    MACOS,
    POSIX,
    WINDOWS,
    Platform,
    platform_of,
)
from reference.primitives.platform_ops.paths import (
    canonical_path,
    default_session_dir,
    resolve_like_node,
    session_dir_name,
    session_file_name,
    without_verbatim_prefix,
)
from reference.recall.project_scope import sibling_files

#: Characters a Windows file or folder name may not hold (besides the separators).
WINDOWS_FORBIDDEN = set('<>:"|?*')


@pytest.fixture
def windows_fs(fs: FakeFilesystem) -> Iterator[FakeFilesystem]:
    fs.os = OSType.WINDOWS
    yield fs


@pytest.fixture
def macos_fs(fs: FakeFilesystem) -> Iterator[FakeFilesystem]:
    fs.os = OSType.MACOS
    yield fs


# -- the one place that picks the branch -------------------------------------------------------

@pytest.mark.parametrize(("sys_platform", "family"), [
    ("win32", Platform.WINDOWS), ("darwin", Platform.MACOS), ("linux", Platform.POSIX),
    ("freebsd14", Platform.POSIX), ("cygwin", Platform.POSIX),
])
def test_the_family_is_picked_from_sys_platform(sys_platform: str, family: Platform) -> None:
    assert platform_of(sys_platform) is family


def test_this_machine_takes_the_posix_branch() -> None:
    assert CURRENT is POSIX and not CURRENT.windows and not CURRENT.macos


def test_only_windows_folds_case_though_macos_volumes_ignore_it_too() -> None:
    assert (WINDOWS.windows, MACOS.windows, POSIX.windows) == (True, False, False)


# -- canonical paths (contract §0.2) -----------------------------------------------------------

@pytest.mark.parametrize("spelling", [
    r"C:\Users\Me\Proj",
    r"c:\users\me\proj",
    "C:/Users/Me/Proj/",
    r"C:\Users\Me\Other\..\Proj",
    r"C:\Users\Me\.\Proj",
    r"\\?\C:\Users\Me\Proj",
    r"\\?\c:\USERS\me\proj",
])
def test_windows_canonical_path_is_one_string_for_every_spelling(windows_fs: FakeFilesystem, spelling: str) -> None:
    windows_fs.create_dir(r"C:\Users\Me\Proj")
    assert canonical_path(spelling, platform=WINDOWS) == r"c:\users\me\proj"


def test_windows_canonical_path_of_a_missing_path_is_resolved_and_lower_cased(windows_fs: FakeFilesystem) -> None:
    assert canonical_path(r"D:\Work\New\..\Thing", platform=WINDOWS) == r"d:\work\thing"
    assert canonical_path(r"d:\work\thing", platform=WINDOWS) == canonical_path(r"D:\WORK\Thing", platform=WINDOWS)


def test_windows_canonical_path_follows_a_symbolic_link(windows_fs: FakeFilesystem) -> None:
    windows_fs.create_dir(r"C:\Users\Me\Proj")
    windows_fs.create_symlink(r"C:\Links\proj", r"C:\Users\Me\Proj")
    assert canonical_path(r"C:\LINKS\Proj", platform=WINDOWS) == r"c:\users\me\proj"


@pytest.mark.parametrize(("spelling", "expected"), [
    (r"\\Server\Share\Dir\..\x", r"\\server\share\x"),
    ("//Server/Share/x", r"\\server\share\x"),
    (r"\\?\UNC\Server\Share\x", r"\\server\share\x"),
    (r"\\?\unc\Server\Share\x", r"\\server\share\x"),
])
def test_windows_unc_paths_are_canonical_in_every_spelling(windows_fs: FakeFilesystem, spelling: str,
                                                            expected: str) -> None:
    assert canonical_path(spelling, platform=WINDOWS) == expected


@pytest.mark.parametrize(("path", "plain"), [
    (r"\\?\C:\x", r"C:\x"), (r"\\?\UNC\srv\share\x", r"\\srv\share\x"), (r"C:\x", r"C:\x"),
    (r"\\srv\share", r"\\srv\share"), (r"\\.\pipe\x", r"\\.\pipe\x"),
])
def test_the_verbatim_prefix_is_dropped_and_nothing_else(path: str, plain: str) -> None:
    assert without_verbatim_prefix(path) == plain


def test_the_posix_branch_keeps_case_on_a_case_insensitive_macos_volume(macos_fs: FakeFilesystem) -> None:
    """Contract §0.2 lower-cases "only on Windows": on APFS two spellings of one folder are two
    canonical paths, though the volume opens both."""
    macos_fs.create_dir("/Users/Me/Proj")
    assert os.path.samefile("/users/me/proj", "/Users/Me/Proj")
    assert canonical_path("/Users/Me/Proj", platform=MACOS) == "/Users/Me/Proj"
    assert canonical_path("/users/me/proj", platform=MACOS) == "/users/me/proj"


def test_macos_canonical_path_resolves_the_private_var_link_and_dots(macos_fs: FakeFilesystem) -> None:
    macos_fs.create_dir("/private/var/folders/ab/T/proj")
    macos_fs.create_symlink("/var", "/private/var")
    assert canonical_path("/var/folders/ab/T/x/../proj", platform=MACOS) == "/private/var/folders/ab/T/proj"


def test_posix_canonical_path_on_a_case_sensitive_volume(fs: FakeFilesystem) -> None:
    fs.os = OSType.LINUX
    fs.create_dir("/home/me/proj")
    assert not os.path.exists("/home/me/Proj")
    assert canonical_path("/home/me/./proj/", platform=POSIX) == "/home/me/proj"


# -- Node's path.resolve and Pi's session folder and file names ----------------------------------

@pytest.mark.parametrize(("cwd", "resolved", "folder"), [
    (r"C:\Users\me\proj", r"C:\Users\me\proj", "--C--Users-me-proj--"),
    ("c:/Users/me/proj/", r"c:\Users\me\proj", "--c--Users-me-proj--"),  # Pi keeps the drive letter's case
    (r"C:\Users\me\proj\sub\..", r"C:\Users\me\proj", "--C--Users-me-proj--"),
    (r"\\server\share\proj", r"\\server\share\proj", "---server-share-proj--"),
    ("//server/share/x", r"\\server\share\x", "---server-share-x--"),
    (r"\\?\C:\proj", r"\\?\C:\proj", "---?-C--proj--"),
    ("D:\\", "D:\\", "--D----"),
])
def test_pi_session_folder_names_for_windows_cwds(cwd: str, resolved: str, folder: str) -> None:
    assert resolve_like_node(cwd, r"C:\Windows", platform=WINDOWS) == resolved
    assert session_dir_name(resolved) == folder
    assert default_session_dir(r"C:\Users\me\.pi\agent", resolved, platform=WINDOWS) == (
        rf"C:\Users\me\.pi\agent\sessions\{folder}")


@pytest.mark.parametrize(("cwd", "resolved", "folder"), [
    ("/Users/me/My Project", "/Users/me/My Project", "--Users-me-My Project--"),
    ("/Users/me/a:b", "/Users/me/a:b", "--Users-me-a-b--"),  # ':' is legal in a macOS name; Pi replaces it
    ("/Volumes/External Drive/w/../x", "/Volumes/External Drive/x", "--Volumes-External Drive-x--"),
    ("//Users//me/", "/Users/me", "--Users-me--"),
    ("/home/me/p\\q", "/home/me/p\\q", "--home-me-p-q--"),
])
def test_pi_session_folder_names_for_posix_and_macos_cwds(cwd: str, resolved: str, folder: str) -> None:
    for platform in (MACOS, POSIX):
        assert resolve_like_node(cwd, "/", platform=platform) == resolved
        assert default_session_dir("/Users/me/.pi/agent", resolved, platform=platform) == (
            f"/Users/me/.pi/agent/sessions/{folder}")
    assert session_dir_name(resolved) == folder


def test_only_a_verbatim_cwd_gives_a_folder_name_windows_refuses() -> None:
    ordinary = [session_dir_name(resolve_like_node(cwd, "C:\\", platform=WINDOWS))
                for cwd in (r"C:\Users\me\proj", r"\\server\share\x", r"E:\a b\c.d")]
    assert all(not WINDOWS_FORBIDDEN & set(name) for name in ordinary)
    assert "?" in session_dir_name(resolve_like_node(r"\\?\C:\proj", "C:\\", platform=WINDOWS))


def test_pi_session_file_names_are_legal_on_windows(windows_fs: FakeFilesystem) -> None:
    name = session_file_name("2025-06-01T12:00:00.000Z", "0197f3a2-1c2d-7e3f-8a4b-5c6d7e8f9a0b")
    assert name == "2025-06-01T12-00-00-000Z_0197f3a2-1c2d-7e3f-8a4b-5c6d7e8f9a0b.jsonl"
    assert not WINDOWS_FORBIDDEN & set(name)
    folder = default_session_dir(r"C:\Users\me\.pi\agent", r"C:\Users\me\proj", platform=WINDOWS)
    windows_fs.create_dir(folder)
    with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
        handle.write("{}\n")
    assert os.listdir(r"c:\users\ME\.PI\agent\sessions\--c--users-me-proj--") == [name]


# -- the header cwd of project scope on a case-insensitive volume ---------------------------------

def _write_session(path: str, session_id: str, cwd: str) -> None:
    header = {"type": "session", "version": 3, "id": session_id, "timestamp": "2025-06-01T12:00:00.000Z", "cwd": cwd}
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(header) + "\n")


def _project_siblings(current: str, project_path: str, platform: Platform) -> list[str]:
    """The other sessions of ``current``'s folder whose header cwd names the project (what
    ``ProjectSessions`` keeps), as ids."""
    found = []
    for path in sibling_files(current, []) or []:
        header = read_header_line(path)
        if same_project(header.get("cwd"), project_path, platform=platform):
            found.append(str(header["id"]))
    return sorted(found)


def test_windows_project_scope_matches_a_header_cwd_spelled_otherwise(windows_fs: FakeFilesystem) -> None:
    windows_fs.create_dir(r"C:\Users\Me\Proj")
    folder = r"C:\Users\Me\.pi\agent\sessions\--C--Users-Me-Proj--"
    windows_fs.create_dir(folder)
    current = folder + r"\3.jsonl"
    _write_session(folder + r"\1.jsonl", "s1", r"C:\Users\Me\Proj")
    _write_session(folder + r"\2.jsonl", "s2", r"c:\users\me\proj")  # Pi started from a lower-case cd
    _write_session(folder + r"\4.jsonl", "s4", r"\\?\C:\Users\Me\Proj")
    _write_session(folder + r"\5.jsonl", "s5", r"C:\Users\Me\Other")
    _write_session(current, "s3", r"C:\Users\Me\Proj")
    assert _project_siblings(current, r"c:\USERS\me\Proj", WINDOWS) == ["s1", "s2", "s4"]


def test_macos_project_scope_keeps_a_case_different_header_cwd_apart(macos_fs: FakeFilesystem) -> None:
    """On APFS the volume finds the folder in either case, but the contract's canonical path keeps
    case off Windows: a header written under another spelling is another project."""
    macos_fs.create_dir("/Users/Me/Proj")
    folder = "/Users/Me/.pi/agent/sessions/--Users-Me-Proj--"
    macos_fs.create_dir(folder)
    _write_session(folder + "/1.jsonl", "s1", "/Users/Me/Proj")
    _write_session(folder + "/2.jsonl", "s2", "/users/me/proj")
    _write_session(folder + "/3.jsonl", "s3", "/Users/Me/Proj")
    assert _project_siblings(folder + "/3.jsonl", "/Users/Me/Proj", MACOS) == ["s1"]
    assert _project_siblings(folder + "/3.jsonl", "/Users/Me/Proj", WINDOWS) == ["s1", "s2"]


def test_a_symlinked_project_folder_is_one_project_on_every_platform(macos_fs: FakeFilesystem) -> None:
    macos_fs.create_dir("/Users/Me/Proj")
    macos_fs.create_symlink("/Users/Me/alias", "/Users/Me/Proj")
    for platform in (MACOS, POSIX):
        assert same_project("/Users/Me/alias", "/Users/Me/Proj", platform=platform)
