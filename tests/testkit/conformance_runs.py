"""``recall-rebase conformance ...`` in a child process, bounded in time, with its report read back."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from testkit.paths import TESTS_ROOT

PARTIAL_PORT: Final = TESTS_ROOT / "testkit" / "partial_port.py"
TIMEOUT_S: Final = 300


@dataclass
class Outcome:
    """What one command did: exit code, output, and the report's lines (if it wrote one)."""

    code: int
    stdout: str
    stderr: str
    lines: list[dict[str, Any]] = field(default_factory=list)

    def statuses(self) -> dict[str, str]:
        return {line["id"]: line["status"] for line in self.lines if line["type"] == "result"}

    def result(self, row: str) -> dict[str, Any]:
        return next(line for line in self.lines if line.get("id") == row)


def conformance(*args: str | Path, report: Path | None = None, timeout: float = TIMEOUT_S) -> Outcome:
    """One ``conformance`` subcommand; ``report`` is read back when the command wrote it."""
    command = [sys.executable, "-m", "reference.cli", "conformance", *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    lines = []
    if report is not None and report.exists():
        lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return Outcome(done.returncode, done.stdout, done.stderr, lines)


def run_partial_port(tmp_path: Path, *port_args: str, only: str, manifest: Path | None = None) -> Outcome:
    """``conformance run --only ONLY`` against :mod:`testkit.partial_port` with ``port_args``."""
    report = tmp_path / "report.ndjson"
    report.unlink(missing_ok=True)
    options: list[str | Path] = ["run", "--only", only, "--report", report]
    if manifest is not None:
        options += ["--expectations", manifest]
    return conformance(*options, "--stdio", "--", sys.executable, PARTIAL_PORT, *port_args, report=report)


def write_manifest(path: Path, *entries: str, implementation: str = "partial-port") -> Path:
    """A manifest of ``entries`` (TOML tables' bodies, each becoming one ``[[expectation]]``)."""
    tables = "".join(f"\n[[expectation]]\n{entry.strip()}\n" for entry in entries)
    path.write_text(f'implementation = "{implementation}"\n{tables}', encoding="utf-8")
    return path
