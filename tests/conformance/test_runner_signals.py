"""SIGINT and SIGTERM to a real ``conformance run`` while its port hangs: report, exit code, no process left."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest
from testkit.ports import faulty_port, live_pids, read_report, recorded_pids, runner_command

from conformance import schemas
from conformance.interruption import EXIT_CODES

WAIT_SECONDS = 60


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_ends_the_run_with_a_report_and_no_process_left(tmp_path: Path, state: Path, name: str) -> None:
    report = tmp_path / "report.ndjson"
    command = runner_command(report, faulty_port("hang", state, nth=3), "--only", "PRIM-*", "--timeout", "600")
    runner = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(state / "fired")  # the port now hangs, and only a signal ends this run in time
        time.sleep(0.2)
        runner.send_signal(getattr(signal, name))
        stdout, stderr = runner.communicate(timeout=WAIT_SECONDS)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate(timeout=WAIT_SECONDS)
    assert runner.returncode == EXIT_CODES[name], stdout + stderr
    assert len(recorded_pids(state)) == 3 and live_pids(state) == []  # proxy, reference host, lingering process
    lines = read_report(report)
    assert [schemas.describe(e) for line in lines for e in schemas.errors(line, "report/v1/report-line.schema.json")] == []
    rows = [line for line in lines if line["type"] == "result"]
    summary = lines[-1]
    assert summary["interrupted"]["reason"] == name and summary["conformant"] is False
    interrupted = [row for row in rows if "interrupted" in row["message"]]
    assert len(interrupted) == 1 and interrupted[0]["status"] == "NOTRUN"  # the hung one is not PASS
    statuses = {row["status"] for row in rows}
    assert statuses == {"PASS", "NOTRUN"}
    assert summary["counts"]["NOTRUN"] >= 2 and summary["total"] == len(rows) >= 20
    assert f"interrupted ({name})" in stdout.strip().splitlines()[-1]
    assert "Traceback" not in stdout + stderr
