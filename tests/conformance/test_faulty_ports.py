"""A runner that survives its port: the reference behind a proxy that misbehaves on cue.

Each run is ``conformance run --only PRIM-* --stdio -- faulty_port.py ...`` as a real child
process, bounded in time. A port that fails once costs exactly the scenario it was serving
(TIMEOUT or CRASH, with the port's stderr line in its message) and is restarted; a port that
cannot start is one line and exit 3. Every process a port started is gone afterwards (by pid),
and every report validates against its schema.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit.ports import Run, faulty_port, live_pids, recorded_pids, run_suite

from conformance import schemas
from conformance.runner import EXIT_NOT_CONFORMANT, EXIT_PORT_START

ONLY = ("--only", "PRIM-*")
REPORT_SCHEMA = "report/v1/report-line.schema.json"


def schema_problems(run: Run) -> list[str]:
    return [schemas.describe(e) for line in run.lines for e in schemas.errors(line, REPORT_SCHEMA)]


@pytest.mark.parametrize(("fault", "status", "says"), [
    ("hang", "TIMEOUT", "faulty-port: hanging on request"),
    ("crash", "CRASH", "faulty-port: crashing on request"),
    ("stray", "CRASH", "faulty-port: a stray stdout line on request"),
    ("errored", "CRASH", "faulty-port: answering errored on request"),
])
def test_a_port_that_fails_once_costs_exactly_one_scenario(tmp_path: Path, state: Path, fault: str, status: str,
                                                           says: str) -> None:
    run = run_suite(tmp_path, faulty_port(fault, state, nth=3), *ONLY, "--timeout", "2")
    assert live_pids(state) == []
    assert run.code == EXIT_NOT_CONFORMANT, run.stdout + run.stderr
    broken = run.not_passed()
    assert len(broken) == 1, broken
    (row,) = broken.values()
    assert row["status"] == status
    assert says in row["message"]  # the port's last stderr lines travel with the scenario
    total = run.summary["total"]
    assert total == len(run.rows) >= 20
    assert run.summary["counts"] == {"PASS": total - 1, status: 1}
    assert "interrupted" not in run.summary
    lingering = 1 if fault == "hang" else 0  # the hung port's extra process, in its group
    assert len(recorded_pids(state)) == 4 + lingering  # a proxy and its reference host, twice: one restart
    assert schema_problems(run) == []
    assert "Traceback" not in run.stdout + run.stderr


@pytest.mark.parametrize(("fault", "code", "says"), [
    ("cannot-exec", "port-start-failed", "cannot start '/nonexistent/port'"),
    ("exit-at-once", "port-start-failed", "exited (code 3) during the handshake"),
    ("bad-hello", "port-handshake-failed", "hello is not valid"),
    ("wrong-version", "port-handshake-failed", "protocol version 2"),
    ("slow-start", "port-start-failed", "no handshake within 1 s"),
])
def test_a_port_that_cannot_start_is_one_line_and_its_own_exit_code(tmp_path: Path, state: Path, fault: str,
                                                                    code: str, says: str) -> None:
    port = ["/nonexistent/port"] if fault == "cannot-exec" else faulty_port(fault, state)
    run = run_suite(tmp_path, port, *ONLY, "--start-timeout", "1" if fault == "slow-start" else "30")
    assert live_pids(state) == []
    assert run.code == EXIT_PORT_START, run.stdout + run.stderr
    running, fatal = run.stderr.strip().splitlines()
    assert running.startswith("recall-rebase: running the conformance suite")
    assert fatal.startswith(f"recall-rebase: {code}: ") and says in fatal
    assert run.stdout == ""
    assert {row["status"] for row in run.rows.values()} == {"NOTRUN"} and len(run.rows) >= 20
    assert run.summary["interrupted"]["reason"] == "port-start-failed"
    assert schema_problems(run) == []


def test_a_port_that_cannot_be_restarted_ends_the_run_with_what_ran(tmp_path: Path, state: Path) -> None:
    run = run_suite(tmp_path, faulty_port("crash-for-good", state, nth=3), *ONLY)
    assert live_pids(state) == []
    assert run.code == EXIT_PORT_START
    counts = run.summary["counts"]
    assert counts["CRASH"] == 1 and counts["PASS"] >= 1 and counts["NOTRUN"] >= 1
    assert set(counts) == {"PASS", "CRASH", "NOTRUN"}
    refused = [row for row in run.rows.values() if row["message"].startswith("not run: port-start-failed: ")]
    assert len(refused) == 1  # the scenario the fresh port could not be started for; the rest never began
    assert run.stderr.strip().splitlines()[-1].startswith("recall-rebase: port-start-failed: ")
    assert "interrupted (port-start-failed)" in run.stdout
    assert schema_problems(run) == []
