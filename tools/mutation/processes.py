"""Run one suite process with a deadline, and kill its whole tree when the deadline passes.

A mutant may make the reference loop forever or never answer. The suite starts in a session of
its own; on timeout the tree is collected first (the suite starts ``--stdio`` ports in sessions
of their own, which a group kill would miss) and every process in it gets ``SIGKILL``. On
Windows ``taskkill /T /F`` kills the tree.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from conformance.procgroup import IS_WINDOWS, isolated_popen_kwargs

PROC: Final = Path("/proc")

_live: set[subprocess.Popen[bytes]] = set()
_live_lock = threading.Lock()


def run(command: Sequence[str], *, cwd: Path, env: Mapping[str, str], log: Path,
        timeout: float) -> int | None:
    """The process's exit code, or None when it outlived ``timeout`` seconds (its tree killed)."""
    with log.open("wb") as output:
        process = subprocess.Popen(list(command), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                                   stdout=output, stderr=subprocess.STDOUT,
                                   **isolated_popen_kwargs())
        with _live_lock:
            _live.add(process)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(process)
            return None
        finally:
            if process.poll() is None:  # interrupted while waiting
                kill_tree(process)
            with _live_lock:
                _live.discard(process)


def kill_everything() -> None:
    """Kill every tree still running (an interrupted run leaves no process behind)."""
    with _live_lock:
        left = list(_live)
    for process in left:
        kill_tree(process)


def kill_tree(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process, its group and every descendant (collected before the first kill)."""
    if IS_WINDOWS:
        subprocess.run(["taskkill", "/T", "/F", "/PID", str(process.pid)], capture_output=True, check=False)
    else:
        tree = [process.pid, *descendants(process.pid)]
        own_group = os.getpgrp()
        for pid in tree:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                group = os.getpgid(pid)
                if group != own_group:
                    os.killpg(group, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from ``/proc``; empty where there is none, as on macOS)."""
    children: dict[int, list[int]] = {}
    for stat in PROC.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="utf-8", errors="replace").rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(children.get(child, []))
    return found
