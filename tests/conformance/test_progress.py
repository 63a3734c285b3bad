"""Live progress: the progress file's events, the plain lines of a log, and the bar of a terminal."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from testkit.ports import faulty_port, live_pids, run_suite

from conformance import schemas
from conformance.progress import Bar, NoDisplay, PlainLines, Tally, Watcher, display_for
from conformance.progress_events import (
    PROGRESS_SCHEMA,
    Collected,
    Finished,
    ProgressTail,
    Started,
    event_of,
    line_of,
)
from conformance.runner import RunOptions, _pytest_args
from conformance.selection import Selection, selected_rows
from conformance.statuses import Status

EVENTS: list[dict[str, Any]] = [{"event": "collected", "rows": 4}, {"event": "started", "id": "PRIM-001"},
          {"event": "finished", "id": "PRIM-001", "status": "PASS"}, {"event": "started", "id": "PRIM-002[a]"},
          {"event": "finished", "id": "PRIM-002[a]", "status": "CRASH"},
          {"event": "finished", "id": "PRIM-003", "status": "XFAIL"}]


def write_events(path: Path, events: list[dict[str, object]], tail: str = "") -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(event) + "\n" for event in events) + tail)


def test_every_kind_of_event_follows_the_schema_and_a_wrong_one_does_not() -> None:
    assert [problem for event in EVENTS for problem in schemas.errors(event, PROGRESS_SCHEMA)] == []
    assert [line_of(event_of(event)) for event in EVENTS] == [json.dumps(event) for event in EVENTS]
    assert schemas.errors({"event": "finished", "id": "PRIM-001", "status": "GREEN"}, PROGRESS_SCHEMA)
    assert schemas.errors({"event": "collected"}, PROGRESS_SCHEMA)


def test_the_tail_gives_each_complete_line_once_and_never_half_a_line(tmp_path: Path) -> None:
    path = tmp_path / "progress.ndjson"
    tail = ProgressTail(path)
    assert tail.read() == []  # not written yet
    write_events(path, EVENTS[:2], tail='{"event": "fini')
    assert tail.read() == [Collected(4), Started("PRIM-001")]
    with path.open("a", encoding="utf-8") as handle:
        handle.write('shed", "id": "PRIM-001", "status": "PASS"}\n')
    assert tail.read() == [Finished("PRIM-001", Status.PASS)]
    assert tail.read() == []


def test_the_tally_counts_statuses_and_knows_what_runs() -> None:
    tally = Tally()
    for event in EVENTS[:4]:
        tally.apply(event_of(event))
    assert (tally.total, tally.done, tally.running) == (4, 1, ["PRIM-002[a]"])
    assert tally.describe() == "1/4 rows: 1 PASS"


def test_plain_lines_name_each_row_that_fails_the_run_and_the_counts_now_and_then() -> None:
    stream = io.StringIO()
    lines, tally = PlainLines(stream), Tally()
    for event in EVENTS:
        tally.apply(event_of(event))
        lines.update(tally, [typed] if isinstance(typed := event_of(event), Finished) else [])
    said = stream.getvalue().splitlines()
    assert "recall-rebase: progress: CRASH PRIM-002[a] (2/4)" in said
    assert not any("PRIM-001" in line or "XFAIL PRIM" in line for line in said)  # no line per passing row
    assert "recall-rebase: progress: 1/4 rows: 1 PASS" in said  # a tenth of 4 rows is one row


def test_the_bar_draws_counts_and_the_running_row_on_a_terminal() -> None:
    stream = io.StringIO()
    bar, tally = Bar(Console(file=stream, force_terminal=True, width=160)), Tally()
    for event in EVENTS[:4]:
        tally.apply(event_of(event))
    bar.update(tally, [])
    bar.progress.refresh()
    drawn = stream.getvalue()
    bar.close(tally)
    assert "1/4" in drawn and "1 pass" in drawn and "PRIM-002[a]" in drawn


def test_the_display_is_the_bar_on_a_terminal_lines_elsewhere_and_nothing_when_off() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    bar = display_for(show=True, stream=Terminal())
    assert isinstance(bar, Bar)
    bar.close(Tally())
    assert isinstance(display_for(show=True, stream=io.StringIO()), PlainLines)
    assert isinstance(display_for(show=False, stream=Terminal()), NoDisplay)


def test_the_watcher_writes_the_stop_file_once_max_fail_unexpected_rows_finished(tmp_path: Path) -> None:
    first, second, stop = tmp_path / "a.ndjson", tmp_path / "b.ndjson", tmp_path / "stop"
    watcher = Watcher([first, second], NoDisplay(), stop_after=2, stop_file=stop)
    write_events(first, EVENTS)  # one CRASH; XFAIL is expected
    write_events(second, [{"event": "finished", "id": "PRIM-004", "status": "NOTRUN"}])  # no outcome
    watcher.poll()
    assert watcher.unexpected == 1 and not stop.exists()
    write_events(second, [{"event": "finished", "id": "PRIM-005", "status": "TIMEOUT"}])
    watcher.poll()
    assert watcher.unexpected == 2 and stop.exists()


def test_a_run_in_a_log_shows_plain_progress_lines_on_stderr_only(tmp_path: Path, state: Path) -> None:
    run = run_suite(tmp_path, faulty_port("crash", state, nth=3), "--area", "PRIM", "--timeout", "5")
    assert live_pids(state) == []
    progress = [line for line in run.stderr.splitlines() if line.startswith("recall-rebase: progress: ")]
    assert any(line.startswith("recall-rebase: progress: CRASH PRIM-") for line in progress), run.stderr
    assert len(progress) < len(run.rows) / 2  # never a line per row
    assert "progress" not in run.stdout


@pytest.mark.parametrize("option", ["--no-progress", "--json"])
def test_no_progress_turns_it_off_and_json_keeps_stdout_one_document(tmp_path: Path, state: Path,
                                                                     option: str) -> None:
    run = run_suite(tmp_path, faulty_port("crash", state, nth=3), "--area", "PRIM", "--timeout", "5", option)
    assert live_pids(state) == []
    assert run.code == 1
    if option == "--no-progress":
        assert "recall-rebase: progress: " not in run.stderr
    else:
        assert json.loads(run.stdout)["summary"]["counts"]["CRASH"] == 1  # stdout is the JSON alone
        assert "recall-rebase: progress: CRASH" in run.stderr


def test_a_worker_writes_progress_events_that_follow_the_schema(tmp_path: Path) -> None:
    """``python -m conformance.worker``, as ``-j N`` starts it, on two rows: their events, in order."""
    spec = importlib.util.find_spec("conformance.suite_tests.test_features")
    assert spec is not None and spec.origin is not None
    ini, progress, report = tmp_path / "pytest.ini", tmp_path / "progress.ndjson", tmp_path / "report.ndjson"
    ini.write_text("[pytest]\n", encoding="utf-8")
    args = _pytest_args(spec.origin, tmp_path, ini, report, RunOptions(only="PRIM-001,PRIM-002"))
    args += ["-p", "conformance.progress_events", "--rr-progress", str(progress),
             "-p", "conformance.shards", "--rr-shard", "0/1"]
    done = subprocess.run([sys.executable, "-m", "conformance.worker", *args], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in progress.read_text(encoding="utf-8").splitlines()]
    assert [problem for line in lines for problem in schemas.errors(line, PROGRESS_SCHEMA)] == []
    events = ProgressTail(progress).read()
    assert events == [event_of(line) for line in lines]
    rows = [row.id for row in selected_rows(Selection.parse(["PRIM-001,PRIM-002"], None, None))]
    assert events[0] == Collected(len(rows)) and len(rows) > 2  # PRIM-002 is an outline
    for started, finished in zip(events[1::2], events[2::2], strict=True):  # one row at a time
        assert isinstance(started, Started) and finished == Finished(started.id, Status.PASS)
    assert sorted(e.id for e in events if isinstance(e, Finished)) == sorted(rows)
