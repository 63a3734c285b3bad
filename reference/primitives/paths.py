"""Canonical paths (contract §0.2) and Pi's session-directory naming of a cwd.

Platform branches are named and kept here: Windows lower-cases canonical paths.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Final

IS_WINDOWS: Final = sys.platform == "win32"
_SEPARATORS: Final = re.compile(r"[/\\:]")
_LEADING_SEPARATOR: Final = re.compile(r"^[/\\]")


def canonical_path(path: str | os.PathLike[str], *, windows: bool = IS_WINDOWS) -> str:
    """Absolute, real path when it exists (else the resolved one), lower-cased only on Windows."""
    absolute = os.path.abspath(os.fspath(path))
    try:
        resolved = os.path.realpath(absolute, strict=True)
    except OSError:
        resolved = absolute
    return resolved.lower() if windows else resolved


def resolve_like_node(path: str, cwd: str) -> str:
    """Node's ``path.resolve(cwd, path)``: absolute and normalized, symlinks not followed.

    POSIX ``normpath`` keeps a leading ``//`` (implementation-defined there); Node folds it.
    """
    resolved = os.path.normpath(os.path.join(cwd, path))
    if not IS_WINDOWS and resolved.startswith("//"):
        resolved = "/" + resolved.lstrip("/")
    return resolved


def session_dir_name(resolved_cwd: str) -> str:
    """Pi's per-project folder name: ``--<cwd without its first separator, / \\ : as ->--``."""
    return "--" + _SEPARATORS.sub("-", _LEADING_SEPARATOR.sub("", resolved_cwd, count=1)) + "--"


def default_session_dir(agent_dir: str, resolved_cwd: str) -> str:
    """``<agentDir>/sessions/--<cwd>--`` as Pi computes it (no folder is created)."""
    return str(Path(agent_dir) / "sessions" / session_dir_name(resolved_cwd))
