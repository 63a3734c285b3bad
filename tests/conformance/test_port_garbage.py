"""A port's garbage never spoils a run (issue 23): each way of breaking the protocol fails only the
rows it touches, with a readable reason, and the report, JUnit XML and Cucumber JSON are written
and valid, in bounded time, with no process left behind.

The port is :mod:`chaos.chaos_port` (the reference served from this process over a Unix socket),
breaking the answer to the run's first ``json.canonicalize`` request in one way per test.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from chaos.chaos_port import KINDS
from chaos.invariants import run_against
from chaos.reference_server import ReferenceServer, Schedule, first_of, reference_server

from conformance import portpipe, reports
from conformance.untrusted_text import for_json

ROWS = "PRIM-001*"  # 17 rows, one json.canonicalize request each
TIMEOUT = "2"  # seconds per request: the hangs cost this much


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with reference_server() as served:
        yield served


def test_for_json_writes_a_lone_surrogate_as_visible_text_and_keeps_the_rest() -> None:
    text = for_json({"actual": "x\ud800y", "\udfff": ["é", "\U0001f600", "\\ud800"]})
    text.encode("utf-8")  # a file can hold it
    assert json.loads(text) == {"actual": "x\\ud800y", "\\udfff": ["é", "\U0001f600", "\\ud800"]}


def test_a_report_holding_a_lone_surrogate_is_written_and_reads_back_valid(tmp_path: Path) -> None:
    row = {"id": "PRIM-001[x]", "feature": "f.feature", "title": "t\udc00", "status": "FAIL",
           "message": "m\ud800", "duration_ms": 1.0, "actual": ["\ud800"], "expected": ["\\ud800"]}
    header = {"type": "header", "suite_version": "0", "protocol_version": 1,
              "implementation": {"name": "p\ud800", "version": "0", "language": "x"},
              "run_info": {"os": "Linux", "python": "3.11", "adapter": "stdio"}, "started": "2026-12-04T00:00:00Z"}
    path = tmp_path / "report.ndjson"
    reports.write_report(path, reports.Report(header, [row], reports.summary_line(header, [row])))
    read = reports.read_report(path)
    assert read.results[0]["actual"] == ["\\ud800"] and read.implementation["name"] == "p\\ud800"


def test_a_lone_surrogate_in_an_answer_fails_its_row_and_is_shown_escaped(server: ReferenceServer, tmp_path: Path,
                                                                          state: Path) -> None:
    server.schedule = Schedule(first_of("json.canonicalize", "lone-surrogate-escape"))
    run = run_against(server.port_command(state), tmp_path / "run", state, "--id", "PRIM-001[lone-surrogate]")
    assert run.problems == (), run.problems
    assert run.code == 1
    row = run.rows["PRIM-001[lone-surrogate]"]
    assert row["status"] == "FAIL"
    assert row["actual"] == "x\\ud800y"  # what the port sent, its lone surrogate written as an escape
    assert "PRIM-001[lone-surrogate]" in run.output and "FAIL" in run.output  # the summary was printed


@pytest.mark.parametrize("kind", sorted(set(KINDS) - {"clean"}))
def test_a_broken_answer_costs_only_the_rows_it_touches(server: ReferenceServer, tmp_path: Path, state: Path,
                                                        kind: str) -> None:
    server.schedule = Schedule(first_of("json.canonicalize", kind))
    run = run_against(server.port_command(state), tmp_path / "run", state, "--id", ROWS, "--timeout", TIMEOUT)
    assert run.problems == (), run.problems
    assert len(run.rows) == 17
    broken = {row_id: row for row_id, row in run.rows.items() if row["status"] != "PASS"}
    _, spoils_next = KINDS[kind]
    if kind in ("delay", "stderr-flood"):  # in sync and right: nothing to fail
        assert broken == {}
        return
    assert 1 <= len(broken) <= (2 if spoils_next else 1), broken
    for row in broken.values():
        assert row["status"] in ("FAIL", "CRASH", "TIMEOUT")
        assert row["message"].strip() and "Traceback" not in row["message"]
    assert run.seconds < 60


def test_a_stdout_line_past_the_limit_is_refused_without_being_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(portpipe, "MAX_LINE_CHARS", 1000)
    flood = "import sys, time; sys.stdout.write('x' * 50_000); sys.stdout.flush(); time.sleep(30)"
    pipe = portpipe.PortPipe([sys.executable, "-c", flood], None)
    try:
        with pytest.raises(portpipe.LineTooLong):
            pipe.next_line(timeout=20)
    finally:
        pipe.kill()


def test_a_stderr_flood_of_one_endless_line_is_kept_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(portpipe, "STDERR_PIECE_CHARS", 100)
    flood = "import sys; sys.stderr.write('e' * 200_000); sys.stderr.flush()"
    pipe = portpipe.PortPipe([sys.executable, "-c", flood], None)
    try:
        assert pipe.next_line(timeout=20) is None  # its stdout ends
        pipe.wait(timeout=20)
    finally:
        pipe.kill()
    assert 0 < len(pipe.stderr_tail(lines=portpipe.STDERR_KEPT)) <= portpipe.STDERR_KEPT * 100
