"""Canonical paths (contract §0.2), Node's ``path.resolve``, and Pi's session folder and file names.

Pi 0.84.3, ``packages/coding-agent/src/core/session-manager.ts`` (``getDefaultSessionDirPath``)::

    const resolvedCwd = resolvePath(cwd);
    const safePath = `--${resolvedCwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
    return join(resolvedAgentDir, "sessions", safePath);

and ``src/utils/paths.ts`` (``resolvePath``: Node's ``path.resolve``, which is ``path.win32`` on
Windows).  The folder name rule is the same string rule on every OS; what differs is the resolved
cwd it is applied to: ``/home/me/p`` gives ``--home-me-p--``, ``C:\\Users\\me\\p`` gives
``--C--Users-me-p--`` (the drive letter keeps its case), ``\\\\srv\\share\\p`` gives
``---srv-share-p--`` and ``\\\\?\\C:\\p`` gives ``---?-C--p--``, a name Windows refuses (``?``), so
Pi itself cannot create that folder.  File names: ``<ISO timestamp, ':' and '.' as '-'>_<id>.jsonl``
on every OS (``newSession``, ``createBranchedSession``, ``forkFrom`` in the same file).

Branches: ``canonical_path`` lower-cases on Windows only ("lowercase it **only on Windows**",
§0.2) and drops a ``\\\\?\\`` verbatim prefix there first; ``resolve_like_node`` uses ``ntpath`` on
Windows and ``posixpath`` elsewhere; ``default_session_dir`` joins with ``\\`` on Windows.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
from pathlib import Path, PureWindowsPath
from typing import Final

from reference.primitives.platform_ops.family import CURRENT, Platform

_SEPARATORS: Final = re.compile(r"[/\\:]")
_LEADING_SEPARATOR: Final = re.compile(r"^[/\\]")
_VERBATIM_UNC: Final = "\\\\?\\UNC\\"
_VERBATIM: Final = "\\\\?\\"


def resolved_real_path(path: str | os.PathLike[str]) -> str:
    """Absolute, real path when it exists (else the resolved one), its case kept: Node's
    ``realpathSync`` with Pi's fallback (``canonicalizePath``); ``..`` and symlinks resolved."""
    absolute = os.path.abspath(os.fspath(path))
    try:
        return os.path.realpath(absolute, strict=True)
    except OSError:
        return absolute


def without_verbatim_prefix(path: str) -> str:
    """Windows: ``\\\\?\\C:\\x`` is ``C:\\x`` and ``\\\\?\\UNC\\srv\\share`` is ``\\\\srv\\share``.

    The contract is silent; the prefix only tells Win32 not to parse the rest, so both spellings
    name one path and get one canonical path (Python's ``realpath`` would keep the prefix).
    """
    if path[:8].upper() == _VERBATIM_UNC:
        return "\\\\" + path[8:]
    if path.startswith(_VERBATIM):
        return path[4:]
    return path


def canonical_path(path: str | os.PathLike[str], *, platform: Platform = CURRENT) -> str:
    """Absolute, real path when it exists (else the resolved one), lower-cased only on Windows.

    posix: as :func:`resolved_real_path` gives it.  macOS: the same, also on a case-insensitive
    volume, where two spellings of one folder stay two paths (the contract folds case "only on
    Windows").  Windows: the verbatim prefix dropped, then lower-cased, so drive letters, UNC
    hosts and any spelling of one path compare equal.
    """
    windows = platform.windows
    resolved = resolved_real_path(without_verbatim_prefix(os.fspath(path)) if windows else path)
    return resolved.lower() if windows else resolved


def real_path(path: str | os.PathLike[str]) -> str:
    """``os.path.realpath``: the key under which a file is remembered (symlink aliases share it)."""
    return os.path.realpath(path)


def resolve_like_node(path: str, cwd: str, *, platform: Platform = CURRENT) -> str:
    """Node's ``path.resolve(cwd, path)``: absolute and normalized, symlinks not followed.

    POSIX ``normpath`` keeps a leading ``//`` (implementation-defined there); Node folds it.
    Windows: ``path.win32.resolve``, which ``ntpath`` matches for absolute cwds (``/`` becomes
    ``\\``, a rooted path takes the cwd's drive, a UNC root keeps its trailing ``\\``).
    """
    if platform.windows:
        return ntpath.normpath(ntpath.join(cwd, path))
    resolved = posixpath.normpath(posixpath.join(cwd, path))
    if resolved.startswith("//"):
        resolved = "/" + resolved.lstrip("/")
    return resolved


def session_dir_name(resolved_cwd: str) -> str:
    """Pi's per-project folder name: ``--<cwd without its first separator, / \\ : as ->--``."""
    return "--" + _SEPARATORS.sub("-", _LEADING_SEPARATOR.sub("", resolved_cwd, count=1)) + "--"


def default_session_dir(agent_dir: str, resolved_cwd: str, *, platform: Platform = CURRENT) -> str:
    """``<agentDir>/sessions/--<cwd>--`` as Pi computes it (no folder is created)."""
    if platform.windows:
        return str(PureWindowsPath(agent_dir) / "sessions" / session_dir_name(resolved_cwd))
    return str(Path(agent_dir) / "sessions" / session_dir_name(resolved_cwd))


def session_file_name(timestamp: str, session_id: str) -> str:
    """Pi's file name: the header timestamp with ``:`` and ``.`` turned into ``-``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"
