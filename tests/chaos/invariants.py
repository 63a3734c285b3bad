"""One ``conformance run`` against a chaos port, and the invariants every such run keeps.

Whatever the port does, the run ends within :data:`RUN_SECONDS` with exit 0 or 1 and no Python
traceback; the NDJSON report validates (the checks of ``validate-report``), the JUnit XML parses,
the Cucumber JSON parses; every selected row is in the report exactly once; no process the ports
started is left; a row the chaos did not touch has the verdict the reference gets.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from testkit.ports import live_pids

from conformance import reports

RUN_SECONDS: Final = 120
RUNNER: Final = [sys.executable, "-m", "reference.cli", "conformance", "run"]


@dataclass(frozen=True)
class ChaosRun:
    """What one run did: exit code, output, wall time, its report's rows and what its files broke."""

    code: int
    output: str
    seconds: float
    rows: dict[str, dict[str, Any]]
    problems: tuple[str, ...]


def _file_problems(report: Path, junit: Path, cucumber: Path) -> list[str]:
    found = [f"report: {problem.where(str(report))}" for problem in reports.examine_file(report)[1]]
    try:
        ET.parse(junit)
    except (OSError, ET.ParseError) as exc:
        found.append(f"JUnit XML: {exc}")
    try:
        if not isinstance(json.loads(cucumber.read_text(encoding="utf-8")), list):
            found.append("Cucumber JSON: not a list")
    except (OSError, ValueError) as exc:
        found.append(f"Cucumber JSON: {exc}")
    return found


def run_against(port: list[str], folder: Path, state: Path, *options: str) -> ChaosRun:
    """``conformance run OPTIONS`` with every output file, against ``port``; the files checked."""
    folder.mkdir(parents=True, exist_ok=True)
    report, junit, cucumber = folder / "report.ndjson", folder / "junit.xml", folder / "cucumber.json"
    for path in (report, junit, cucumber):
        path.unlink(missing_ok=True)
    command = [*RUNNER, "--report", str(report), "--junitxml", str(junit), "--cucumber-json", str(cucumber),
               "--no-progress", *options, "--stdio", "--", *port]
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=RUN_SECONDS,
                              check=False)
        code, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        code, output = -1, f"the run did not end within {RUN_SECONDS} s"
    seconds = time.monotonic() - started
    problems = _file_problems(report, junit, cucumber)
    if code not in (0, 1):
        problems.append(f"exit code {code}: {output[-2000:]}")
    if "Traceback" in output:
        problems.append(f"a traceback: {output[-2000:]}")
    if left := live_pids(state):
        problems.append(f"processes left behind: {left}")
    rows: dict[str, dict[str, Any]] = {}
    if report.exists():
        for line in report.read_text(encoding="utf-8").splitlines():
            decoded = json.loads(line) if line.strip() else {}
            if decoded.get("type") == "result":
                rows[decoded["id"]] = decoded
    return ChaosRun(code, output, seconds, rows, tuple(problems))
