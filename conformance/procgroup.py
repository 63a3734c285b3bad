"""A port runs in a process group of its own, so that killing it kills everything it started.

The one place for the operating system's branches: POSIX starts the port in a new session
(``start_new_session``) and kills the group with ``SIGKILL``; Windows starts it with
``CREATE_NEW_PROCESS_GROUP`` and kills the tree with ``taskkill /T /F``. Every group started
here is remembered until it is killed, so the runner can kill what is left on its way out
(an interrupted run leaves no process behind).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from typing import Any, Final

IS_WINDOWS: Final = os.name == "nt"
REAP_SECONDS: Final = 5.0

_live: set[subprocess.Popen[str]] = set()
_live_lock = threading.Lock()


def isolated_popen_kwargs() -> dict[str, Any]:
    """``Popen`` keyword arguments that give the child a process group of its own."""
    if IS_WINDOWS:
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    return {"start_new_session": True}


def remember(process: subprocess.Popen[str]) -> None:
    """Track a started group until :func:`kill_group` kills it."""
    with _live_lock:
        _live.add(process)


def kill_group(process: subprocess.Popen[str]) -> None:
    """Kill the process and everything in its group, then reap it (bounded)."""
    if IS_WINDOWS:
        _kill_tree_windows(process)
    else:
        _kill_group_posix(process)
    try:
        process.wait(timeout=REAP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
    with _live_lock:
        _live.discard(process)


def ask_to_stop(process: subprocess.Popen[str]) -> None:
    """Ask a child started with :func:`isolated_popen_kwargs` to stop: SIGTERM on POSIX,
    Ctrl-Break on Windows (which :mod:`conformance.interruption` takes for SIGTERM)."""
    with contextlib.suppress(ProcessLookupError, OSError):
        if IS_WINDOWS:
            process.send_signal(getattr(signal, "CTRL_BREAK_EVENT", signal.SIGTERM))
        else:
            process.send_signal(signal.SIGTERM)


def kill_all_live() -> None:
    """Kill every group still remembered: the runner's last act, whatever interrupted it."""
    with _live_lock:
        left = list(_live)
    for process in left:
        kill_group(process)


def _kill_group_posix(process: subprocess.Popen[str]) -> None:
    # start_new_session made the port its group's leader: its pid is the group id. The group
    # outlives the leader while a member lives, so this reaches orphans the port left behind.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _kill_tree_windows(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(["taskkill", "/T", "/F", "/PID", str(process.pid)], capture_output=True,
                       timeout=REAP_SECONDS, check=False)
    if process.poll() is None:
        process.kill()
