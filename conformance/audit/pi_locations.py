"""Where Pi keeps a project's sessions, read from pi-session-model.md §1.1 (not the reference's code).

``recall-rebase audit --project CWD`` audits ``<agentDir>/sessions/--<cwd>--``, and without
``--index`` the index the mapping names relative to the agent dir. The agent dir is
``$PI_CODING_AGENT_DIR`` (``~`` expanded) when set and not empty, else ``~/.pi/agent``; a sessions
folder of the user's own (``PI_CODING_AGENT_SESSION_DIR``) replaces the per-project one whole.
Pi's ``--session-dir`` flag and the settings' ``sessionDir`` are not read: name the folder with
``--sessions`` then.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final

AGENT_DIR_ENV: Final = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV: Final = "PI_CODING_AGENT_SESSION_DIR"
_FIRST_SEPARATOR: Final = re.compile(r"^[/\\]")
_SEPARATORS: Final = re.compile(r"[/\\:]")


def _expanded(value: str, home: str) -> str:
    return home + value[1:] if value == "~" or value.startswith(("~/", "~\\")) else value


def agent_dir(env: Mapping[str, str], home: str, cwd: str) -> Path:
    """Pi's agent dir for this environment, made absolute against ``cwd``."""
    raw = env.get(AGENT_DIR_ENV, "")
    folder = _expanded(raw, home) if raw else os.path.join(home, ".pi", "agent")
    return Path(os.path.normpath(os.path.join(cwd, folder)))


def project_folder_name(resolved_cwd: str) -> str:
    """``--<cwd>--``: the first separator dropped, then every ``/``, ``\\`` and ``:`` turned into ``-``."""
    return "--" + _SEPARATORS.sub("-", _FIRST_SEPARATOR.sub("", resolved_cwd, count=1)) + "--"


def project_sessions(project: str, env: Mapping[str, str], home: str, cwd: str) -> Path:
    """The sessions folder Pi uses for the project at ``project`` (resolved as Node's path.resolve: no symlinks)."""
    custom = env.get(SESSION_DIR_ENV, "")
    if custom:
        return Path(os.path.normpath(os.path.join(cwd, _expanded(custom, home))))
    resolved = os.path.normpath(os.path.join(cwd, _expanded(project, home)))
    return agent_dir(env, home, cwd) / "sessions" / project_folder_name(resolved)
