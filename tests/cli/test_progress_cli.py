"""Progress of an index build on a terminal (issue 13 item 4): a bar on stderr, never on stdout,
off with ``--json`` and off when stderr is not a terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX (pty)")


def _project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    session = tmp_path / "s.jsonl"
    lines = [{"type": "session", "version": 3, "id": "s-bar", "timestamp": "2026-01-01T00:00:00.000Z",
              "cwd": str(cwd)}]
    lines += [{"type": "message", "id": f"{n:08x}", "parentId": f"{n - 1:08x}" if n else None,
               "timestamp": "2026-01-01T00:00:01.000Z",
               "message": {"role": "user", "content": f"entry {n} about backoff", "timestamp": 1}}
              for n in range(50)]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "PI_CODING_AGENT_DIR": str(tmp_path / "agent"),
           "PYTHONPATH": str(REPO_ROOT), "RECALL_REBASE_PROGRESS_DELAY": "0", "TERM": "xterm", "COLUMNS": "100"}
    return cwd, session, env


def _run_with_terminal_stderr(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """The command with stderr on a pseudo-terminal and stdout on a pipe: (exit, stdout, terminal)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "reference.cli", *args], cwd=cwd, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            process.kill()
            raise AssertionError("the command hung")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the terminal's last writer is gone
            break
        if not chunk:
            break
        seen += chunk
    assert process.stdout is not None
    stdout = process.stdout.read().decode()
    code = process.wait(timeout=60)
    os.close(leader)
    return code, stdout, seen.decode(errors="replace")


def test_a_build_on_a_terminal_draws_a_bar_on_stderr_only(tmp_path: Path) -> None:
    cwd, session, env = _project(tmp_path)
    code, stdout, terminal = _run_with_terminal_stderr(
        ["history", "search", "backoff", "--session", str(session)], cwd, env)
    assert code == 0
    assert f"indexing {session.name}" in terminal  # a short name is shown whole
    assert "indexing" not in stdout and "hit(s)" in stdout


def test_json_draws_no_bar(tmp_path: Path) -> None:
    cwd, session, env = _project(tmp_path)
    code, stdout, terminal = _run_with_terminal_stderr(
        ["history", "index", "--session", str(session), "--json"], cwd, env)
    assert code == 0
    assert "indexing" not in terminal
    assert json.loads(stdout)["indexedEntries"] == 50


def test_a_warm_call_draws_no_bar(tmp_path: Path) -> None:
    cwd, session, env = _project(tmp_path)
    first = _run_with_terminal_stderr(["history", "index", "--session", str(session)], cwd, env)
    assert first[0] == 0 and "indexing" in first[2]
    code, _stdout, terminal = _run_with_terminal_stderr(["history", "status", "--session", str(session)], cwd, env)
    assert code == 0 and "indexing" not in terminal and "catching up" not in terminal


def test_stderr_that_is_not_a_terminal_gets_no_bar(tmp_path: Path) -> None:
    cwd, session, env = _project(tmp_path)
    done = subprocess.run([sys.executable, "-m", "reference.cli", "history", "index", "--session", str(session)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert done.stderr == ""
