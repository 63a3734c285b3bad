"""``conformance run -j N``: the selected rows split over N worker processes, one port each.

Each worker (:mod:`conformance.worker`) is today's single-process run on its shard
(:mod:`conformance.shards`), with its own report, progress file, pytest temporary folder and
port, in a process group of its own. The runner waits for them, forwards SIGINT or SIGTERM
as SIGTERM (each worker then writes its report with NOTRUN rows and kills its port), kills
every worker group left on its way out, and merges the shard reports into the run's one report
(:func:`conformance.reports.merge_reports`) and the Cucumber JSON files into one
(:mod:`conformance.cucumber`). JUnit XML is never written by a worker: it is made once, from
the merged report.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from conformance import cucumber, interruption, procgroup, reports
from conformance.faults import PORT_START_FAILED
from conformance.shards import Shard

POLL_SECONDS: Final = 0.1
#: How long workers asked to stop get to write their reports before their groups are killed.
STOP_SECONDS: Final = 30.0


@dataclass
class Worker:
    """One worker: its shard, its files in the run's scratch folder, and its process once started."""

    shard: Shard
    folder: Path
    cucumber: bool = False
    process: subprocess.Popen[str] | None = field(default=None, repr=False)

    @property
    def report(self) -> Path:
        return self.folder / "report.ndjson"

    @property
    def progress(self) -> Path:
        return self.folder / "progress.ndjson"

    @property
    def log(self) -> Path:
        return self.folder / "output.log"

    @property
    def ready(self) -> Path:
        """Created by the worker once its signal handler defers a signal until its rows exist."""
        return self.folder / "ready"

    @property
    def cucumber_json(self) -> Path:
        return self.folder / "cucumber.json"

    def arguments(self, run_args: Sequence[str], stop_file: Path) -> list[str]:
        """The run's pytest arguments, made this worker's: its own files, its shard, no JUnit XML."""
        args = _without(run_args, "--junitxml")
        for option, value in (("--rr-report", self.report), ("--basetemp", self.folder / "tmp"),
                              ("--rr-progress", self.progress)):
            args = _replaced(args, option, str(value))
        args += ["-p", "conformance.shards", "--rr-shard", str(self.shard), "--rr-stop-file", str(stop_file)]
        if self.cucumber:
            args += ["--cucumberjson", str(self.cucumber_json)]
        return args

    def start(self, run_args: Sequence[str], stop_file: Path) -> None:
        command = [sys.executable, "-m", "conformance.worker", "--ready", str(self.ready),
                   *self.arguments(run_args, stop_file)]
        with self.log.open("w", encoding="utf-8") as log:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                            text=True, **procgroup.isolated_popen_kwargs())
        procgroup.remember(self.process)

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""


def _replaced(args: Sequence[str], option: str, value: str) -> list[str]:
    """``args`` with the value after ``option`` replaced (added when ``option`` is absent)."""
    out = list(args)
    if option in out:
        out[out.index(option) + 1] = value
    else:
        out += [option, value]
    return out


def _without(args: Sequence[str], option: str) -> list[str]:
    """``args`` without ``option`` and its value."""
    out = list(args)
    while option in out:
        at = out.index(option)
        del out[at : at + 2]
    return out


def plan(jobs: int, scratch: Path, *, cucumber_json: bool) -> list[Worker]:
    """The run's ``jobs`` workers, each with a folder of its own under ``scratch``."""
    workers = []
    for index in range(jobs):
        folder = scratch / f"worker-{index}"
        folder.mkdir(parents=True, exist_ok=True)
        workers.append(Worker(Shard(index, jobs), folder, cucumber=cucumber_json))
    return workers


def run_workers(workers: Sequence[Worker], run_args: Sequence[str], stop_file: Path) -> tuple[int, str]:
    """Start every worker, wait for them (a signal stops them all), and leave no process behind.
    The result is the run's pytest exit code and the workers' output, as for one process."""
    with interruption.signals_interrupt_the_run():
        try:
            for worker in workers:
                worker.start(run_args, stop_file)
            _wait(workers, stop_file)
        except KeyboardInterrupt:  # SIGINT or SIGTERM to the runner (later ones are ignored)
            _stop(workers)
        finally:
            procgroup.kill_all_live()
    codes = [w.process.returncode for w in workers if w.process is not None and w.process.returncode is not None]
    return _exit_code(codes), "".join(worker.output() for worker in workers)


def _wait(workers: Sequence[Worker], stop_file: Path) -> None:
    """Until every worker has ended; one whose port could not start stops the others."""
    pending = list(workers)
    while pending:
        for worker in [w for w in pending if not w.running()]:
            pending.remove(worker)
            if _port_start_failed(worker.report):
                stop_file.touch()
        time.sleep(POLL_SECONDS)


def _stop(workers: Sequence[Worker]) -> None:
    """Forward the interruption: SIGTERM to every worker once it can take one without losing its
    report (it is ready, or has ended), then wait for them (bounded)."""
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline and any(w.running() and not w.ready.exists() for w in workers):
        time.sleep(POLL_SECONDS)
    for worker in workers:
        if worker.running() and worker.process is not None:
            procgroup.ask_to_stop(worker.process)
    for worker in workers:
        if worker.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):  # then killed with its group by the caller
                worker.process.wait(timeout=max(0.0, deadline - time.monotonic()))


def _port_start_failed(path: Path) -> bool:
    try:
        summary = reports.read_report(path).summary
    except reports.ReportError:
        return False
    return bool(summary.get("interrupted", {}).get("reason") == PORT_START_FAILED)


def _exit_code(codes: Sequence[int]) -> int:
    """One pytest exit code for the workers': 0 when all passed (an empty shard's 5 aside)."""
    telling = [code for code in codes if code not in (0, 5)]
    if telling:
        return telling[0]
    return 0 if 0 in codes else 5


def merge(workers: Sequence[Worker], report_path: Path, cucumber_json: str | None) -> None:
    """Write the run's report (and Cucumber JSON) from the workers'; a missing one is said, not guessed
    (the runner then shows the workers' output). The runner's own signal, if one came, is the run's
    ``interrupted``."""
    if cucumber_json:
        cucumber.write_merged([w.cucumber_json for w in workers], Path(cucumber_json))
    _relay_warnings(workers)
    missing = [worker for worker in workers if not worker.report.exists()]
    for worker in missing:
        code = worker.process.returncode if worker.process is not None else None
        print(f"recall-rebase: worker {worker.shard} wrote no report (exit {code}); its last output:", file=sys.stderr)
        for line in worker.output().splitlines()[-20:]:
            print(f"    {line}", file=sys.stderr)
    signal_name = interruption.received()
    stopped = {"reason": signal_name, "message": f"the run was interrupted by {signal_name}"} if signal_name else None
    try:
        if missing:
            raise reports.ReportError(f"{len(missing)} of {len(workers)} workers wrote no report")
        merged = reports.merge_reports([reports.read_report(w.report) for w in workers], interrupted=stopped)
    except reports.ReportError as error:
        report_path.unlink(missing_ok=True)  # no stale report stands in for this run's
        print(f"recall-rebase: {error.code}: {error.message}", file=sys.stderr)
        return
    reports.write_report(report_path, merged)


def _relay_warnings(workers: Sequence[Worker]) -> None:
    """The workers' ``recall-rebase: warning:`` lines, each once, on the runner's stderr."""
    seen: dict[str, None] = {}
    for worker in workers:
        for line in worker.output().splitlines():
            if line.startswith("recall-rebase: warning: "):
                seen.setdefault(line)
    for line in seen:
        print(line, file=sys.stderr)
