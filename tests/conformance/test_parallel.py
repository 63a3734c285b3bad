"""``conformance run -j N``: one worker process and one port per worker, one merged report.

The shards are a partition of the selection; the merged report has the rows of the one-process
run with the same statuses; a fault costs exactly its row, in its worker; ``--max-fail`` and a
signal stop every worker; no worker or port process outlives the run (checked by pid).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from testkit.conformance_runs import conformance, write_manifest
from testkit.ports import (
    HOST,
    Run,
    alive,
    faulty_port,
    live_pids,
    read_report,
    recorded_pids,
    run_suite,
    runner_command,
)

from conformance import reports, schemas
from conformance.interruption import EXIT_CODES
from conformance.runner import EXIT_NOT_CONFORMANT, EXIT_PORT_START
from conformance.shards import Shard

AREAS = ("--area", "PRIM,READER", "--no-progress")
NEVER = "no.such.operation"  # a faulty port whose fault never fires: the reference behind a proxy
WAIT_SECONDS = 60
REPORT_SCHEMA = "report/v1/report-line.schema.json"


def statuses(run: Run) -> list[tuple[str, str]]:
    return [(row["id"], row["status"]) for row in run.rows.values()]


def schema_problems(run: Run) -> list[str]:
    return [schemas.describe(e) for line in run.lines for e in schemas.errors(line, REPORT_SCHEMA)]


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_the_shards_partition_the_selection_in_order(count: int) -> None:
    rows = [f"PRIM-{n:03d}" for n in range(1, 23)]
    shares = [Shard(index, count).share(rows) for index in range(count)]
    assert sorted(row for share in shares for row in share) == rows
    assert sum(len(share) for share in shares) == len(rows)  # no row twice
    assert all(share == sorted(share) for share in shares)
    assert max(map(len, shares)) - min(map(len, shares)) <= 1


@pytest.mark.parametrize("text", ["2/2", "1", "a/2", "-1/2", "1/0"])
def test_a_shard_that_is_not_i_of_n_is_a_usage_error(text: str) -> None:
    with pytest.raises(pytest.UsageError):
        Shard.parse(text)


def row(row_id: str, status: str) -> dict[str, Any]:
    return {"id": row_id, "feature": "f", "title": "t", "status": status, "message": "", "duration_ms": 1.0}


def shard_report(rows: list[dict[str, Any]], interrupted: dict[str, str] | None = None) -> reports.Report:
    header = {"type": "header", "implementation": {"name": "p", "version": "1", "language": "x"}}
    return reports.Report(header, rows, reports.summary_line(header, rows, interrupted))


def test_merging_unites_the_rows_recounts_and_keeps_the_worst_interruption() -> None:
    signalled = {"reason": "SIGTERM", "message": "the run was interrupted by SIGTERM"}
    failed = {"reason": "port-start-failed", "message": "port-start-failed: no"}
    first = shard_report([row("PRIM-003", "PASS"), row("PRIM-001", "PASS")], signalled)
    second = shard_report([row("PRIM-002", "NOTRUN")], failed)
    merged = reports.merge_reports([first, second])
    assert [r["id"] for r in merged.results] == ["PRIM-001", "PRIM-002", "PRIM-003"]
    assert merged.summary == reports.summary_line(merged.header, merged.results, failed)
    assert merged.header is first.header
    assert reports.merge_reports([first, second], interrupted={"reason": "SIGINT", "message": "m"}).summary[
        "interrupted"]["reason"] == "SIGINT"  # the runner's own signal wins
    assert "interrupted" not in reports.merge_reports([shard_report([row("PRIM-001", "PASS")])]).summary
    with pytest.raises(reports.ReportError):
        reports.merge_reports([first, first])  # a row twice


def test_two_workers_over_stdio_start_two_ports_and_report_what_one_process_reports(tmp_path: Path) -> None:
    one_state, two_state = tmp_path / "one-port", tmp_path / "two-ports"
    one = run_suite(tmp_path / "one", faulty_port("hang", one_state, op=NEVER), *AREAS)
    two = run_suite(tmp_path / "two", faulty_port("hang", two_state, op=NEVER), *AREAS, "-j", "2")
    assert one.code == 0 and two.code == 0, two.stdout + two.stderr
    assert len(recorded_pids(one_state)) == 2 and len(set(recorded_pids(two_state))) == 4  # a proxy and a host each
    assert live_pids(one_state) == [] and live_pids(two_state) == []
    assert statuses(two) == statuses(one) and len(two.rows) >= 60
    assert two.summary == one.summary
    assert schema_problems(two) == []
    assert two.stdout.splitlines()[-1] == one.stdout.splitlines()[-1]


def test_a_hang_in_one_worker_is_a_timeout_for_that_row_only(tmp_path: Path, state: Path) -> None:
    run = run_suite(tmp_path, faulty_port("hang", state, nth=3), "--area", "PRIM", "-j", "2", "--timeout", "2")
    assert live_pids(state) == []
    assert run.code == EXIT_NOT_CONFORMANT, run.stdout + run.stderr
    broken = run.not_passed()
    assert [r["status"] for r in broken.values()] == ["TIMEOUT"], broken
    assert "faulty-port: hanging on request" in next(iter(broken.values()))["message"]
    assert run.summary["counts"] == {"PASS": len(run.rows) - 1, "TIMEOUT": 1}
    assert len(recorded_pids(state)) == 2 * 2 + 2 + 1  # two ports, one restart, the lingering process
    assert schema_problems(run) == []


def test_max_fail_1_stops_both_workers(tmp_path: Path, state: Path) -> None:
    run = run_suite(tmp_path, faulty_port("crash", state, op="session.records"), *AREAS, "-j", "2",
                    "--max-fail", "1")  # the first rows run (READER) read records: a crash at once
    assert live_pids(state) == []
    assert run.code == EXIT_NOT_CONFORMANT, run.stdout + run.stderr
    counts = run.summary["counts"]
    assert counts["CRASH"] == 1 and "interrupted" not in run.summary
    assert counts["NOTRUN"] > len(run.rows) / 2 + 1  # more than one worker's share never ran
    assert "stopped early" in run.stdout
    assert schema_problems(run) == []


def test_a_port_that_cannot_start_ends_a_parallel_run_with_one_line_and_exit_3(tmp_path: Path, state: Path) -> None:
    run = run_suite(tmp_path, faulty_port("exit-at-once", state), *AREAS, "-j", "2")
    assert live_pids(state) == []
    assert run.code == EXIT_PORT_START, run.stdout + run.stderr
    assert [line for line in run.stderr.splitlines() if "port-start-failed" in line] == [
        run.stderr.strip().splitlines()[-1]]
    assert {r["status"] for r in run.rows.values()} == {"NOTRUN"} and len(run.rows) >= 60
    assert run.summary["interrupted"]["reason"] == "port-start-failed"


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    return int(stat.rsplit(")", 1)[1].split()[1])


def workers_of(runner: int) -> set[int]:
    """The runner's worker processes (``python -m conformance.worker``), from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and parent_of(int(entry.name)) == runner and b"conformance.worker" in (
                    entry / "cmdline").read_bytes():
                found.add(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def wait_for(what: str, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not ready():
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.02)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_signal_to_a_parallel_run_writes_notrun_rows_and_leaves_no_process(tmp_path: Path, state: Path,
                                                                             name: str) -> None:
    """The workers are sent SIGTERM either way; the report and exit code name the runner's signal."""
    report = tmp_path / "report.ndjson"
    port = faulty_port("hang", state, nth=3)
    command = runner_command(report, port, *AREAS, "-j", "2", "--timeout", "600")
    runner = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers: set[int] = set()
    try:
        wait_for("two workers", lambda: len(workers_of(runner.pid)) == 2)
        workers = workers_of(runner.pid)
        wait_for("the hang", (state / "fired").exists)  # one worker's port now hangs; only a signal ends it
        time.sleep(0.2)
        runner.send_signal(getattr(signal, name))
        stdout, stderr = runner.communicate(timeout=WAIT_SECONDS)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate(timeout=WAIT_SECONDS)
        for pid in (pid for pid in workers if alive(pid)):  # only when the runner failed to; the test then fails
            os.kill(pid, signal.SIGKILL)
    assert runner.returncode == EXIT_CODES[name], stdout + stderr
    assert len(workers) == 2 and not any(alive(pid) for pid in workers)
    assert live_pids(state) == []
    lines = read_report(report)
    rows = [line for line in lines if line["type"] == "result"]
    assert lines, f"no report: {stdout}{stderr}"
    assert lines[-1]["interrupted"]["reason"] == name
    assert {r["status"] for r in rows} == {"PASS", "NOTRUN"}
    assert len([r for r in rows if "interrupted" in r["message"]]) >= 1  # the hung row, not PASS
    assert lines[-1]["counts"]["NOTRUN"] >= 2 and len(rows) >= 60
    assert f"interrupted ({name})" in stdout.strip().splitlines()[-1]
    assert "Traceback" not in stdout + stderr
    assert [schemas.describe(e) for line in lines for e in schemas.errors(line, REPORT_SCHEMA)] == []


def test_a_signal_while_the_workers_start_still_gives_every_row_notrun(tmp_path: Path) -> None:
    """A signal before the workers know their rows is deferred, not lost: each worker still writes
    its report (its share NOTRUN), so the merged report has every row and names the signal."""
    report = tmp_path / "report.ndjson"
    runner = subprocess.Popen(runner_command(report, HOST, *AREAS, "-j", "2"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    workers: set[int] = set()
    try:
        wait_for("two workers", lambda: len(workers_of(runner.pid)) == 2)
        workers = workers_of(runner.pid)
        runner.send_signal(signal.SIGTERM)  # at once: the workers are still importing or collecting
        stdout, stderr = runner.communicate(timeout=WAIT_SECONDS)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate(timeout=WAIT_SECONDS)
        for pid in (pid for pid in workers if alive(pid)):
            os.kill(pid, signal.SIGKILL)
    assert runner.returncode == EXIT_CODES["SIGTERM"], stdout + stderr
    assert not any(alive(pid) for pid in workers)
    lines = read_report(report)
    assert lines, f"no report: {stdout}{stderr}"
    rows = [line for line in lines if line["type"] == "result"]
    listed = conformance("list", "--area", "PRIM,READER", "--json")
    assert sorted(r["id"] for r in rows) == sorted(item["id"] for item in json.loads(listed.stdout))
    assert lines[-1]["interrupted"]["reason"] == "SIGTERM" and "NOTRUN" in lines[-1]["counts"]


def test_a_manifest_applies_in_every_worker_and_its_warnings_are_said_once(tmp_path: Path) -> None:
    """The manifest applies in every worker; its warning lines reach stderr once, not once per worker."""
    manifest = write_manifest(tmp_path / "m.toml", 'id = "NOPE-001"\nstatus = "xfail"\nreason = "stale"',
                              'id = "PRIM-001"\nstatus = "skip"\nreason = "an outline: its rows are in both shards"',
                              implementation="recall-rebase-reference")
    report = tmp_path / "report.ndjson"
    outcome = conformance("run", "--area", "PRIM", "-j", "2", "--no-progress", "--expectations", manifest,
                          "--report", report, report=report, timeout=120)
    assert outcome.code == 0, outcome.stdout + outcome.stderr
    warnings = [line for line in outcome.stderr.splitlines() if "warning" in line]
    assert warnings == ["recall-rebase: warning: expectation 'NOPE-001' matches no scenario"]
    skipped = {row for row, status in outcome.statuses().items() if status == "SKIP"}
    assert skipped == {row for row in outcome.statuses() if row.startswith("PRIM-001[")} and len(skipped) >= 2
    assert set(outcome.statuses().values()) == {"PASS", "SKIP"} and len(outcome.statuses()) >= 20
