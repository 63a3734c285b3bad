"""Faulty ports built from the reference, and what a test needs to run the suite against them.

``faulty_port.py`` (run as a script) is ``recall-rebase host --stdio`` behind a proxy that
misbehaves on cue; :func:`faulty_port` builds its command line. :func:`run_suite` runs
``conformance run`` against a port as a real child process, bounded in time;
:func:`live_pids` says which of the processes a port recorded still run.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testkit.paths import REPO_ROOT

FAULTY_PORT = Path(__file__).with_name("faulty_port.py")
HOST = [sys.executable, "-m", "reference.cli", "host", "--stdio"]
RUNNER = [sys.executable, "-m", "reference.cli", "conformance", "run"]
RUN_SECONDS = 120


def faulty_port(fault: str, state: Path, *, op: str = "text.measure", nth: int = 1) -> list[str]:
    """The command of a port that misbehaves as ``fault`` (see ``faulty_port.py``)."""
    state.mkdir(parents=True, exist_ok=True)
    return [sys.executable, str(FAULTY_PORT), "--fault", fault, "--state", str(state), "--op", op,
            "--nth", str(nth), "--", *HOST]


def runner_command(report: Path, port: list[str], *options: str) -> list[str]:
    return [*RUNNER, "--report", str(report), *options, "--stdio", "--", *port]


@dataclass
class Run:
    """One finished ``conformance run``: its exit code, its output and its report's lines."""

    code: int
    stdout: str
    stderr: str
    lines: list[dict[str, Any]]

    @property
    def rows(self) -> dict[str, dict[str, Any]]:
        return {line["id"]: line for line in self.lines if line["type"] == "result"}

    @property
    def summary(self) -> dict[str, Any]:
        return self.lines[-1]

    def not_passed(self) -> dict[str, dict[str, Any]]:
        return {key: row for key, row in self.rows.items() if row["status"] != "PASS"}


def read_report(report: Path) -> list[dict[str, Any]]:
    if not report.exists():
        return []
    return [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines() if line.strip()]


def run_suite(tmp_path: Path, port: list[str], *options: str, seconds: float = RUN_SECONDS) -> Run:
    """``conformance run OPTIONS --stdio -- PORT`` to its end, within ``seconds``."""
    report = tmp_path / "report.ndjson"
    done = subprocess.run(runner_command(report, port, *options), capture_output=True, text=True,
                          timeout=seconds, check=False)
    return Run(done.returncode, done.stdout, done.stderr, read_report(report))


def run_plugin_in_process(tmp_path: Path, adapter: str, *options: str, env: dict[str, str] | None = None,
                          seconds: float = RUN_SECONDS) -> Run:
    """The conformance plugin in a child pytest against an in-process ``adapter`` (an entry point
    name or ``module:attr``, importable from ``tests/``), as the runner drives it; bounded in time."""
    spec = importlib.util.find_spec("conformance.suite_tests.test_features")
    assert spec is not None and spec.origin is not None
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    report = tmp_path / "report.ndjson"
    report.unlink(missing_ok=True)
    paths = os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tests")])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", spec.origin, "-p", "conformance.plugin", "-p", "no:cacheprovider",
         "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path), "--import-mode=importlib",
         "--basetemp", str(tmp_path / "tmp"), "-q", "--rr-report", str(report), "--rr-adapter", adapter, *options],
        capture_output=True, text=True, timeout=seconds, check=False,
        env={**os.environ, "PYTHONPATH": paths, **(env or {})},
    )
    return Run(done.returncode, done.stdout, done.stderr, read_report(report))


def recorded_pids(state: Path) -> list[int]:
    """Every pid the faulty ports of a run recorded (proxies and their reference hosts)."""
    path = state / "pids"
    return [int(line) for line in path.read_text(encoding="utf-8").split()] if path.exists() else []


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return not stat.parent.parent.joinpath("self").exists()


def live_pids(state: Path) -> list[int]:
    return [pid for pid in recorded_pids(state) if alive(pid)]


def kill_recorded(state: Path) -> None:
    """A test's own cleanup: whatever the harness left (it should have left nothing)."""
    for pid in live_pids(state):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
