"""``conformance run --repeat N``: every selected row N times, rows with mixed outcomes flaky.

N whole runs, one after another, each an ordinary run (so ``-j``, ``--shard``, ``--stdio`` and the
expectations work as ever: a repeat is nothing the plugin or the workers need to know), each
writing its report into a scratch folder; their reports are then folded by row id. A row with
one status in every run is that status; a row with several is flaky: the fold prints the
``[[expectation]]`` entry (``status = "flaky"``, its ``outcomes``) to paste into the manifest,
and the folded report (``--report``) keeps one row per id, its worst status, with a ``repeat``
field counting the statuses (``schemas/report/v1``). The runs' own summaries go to stderr, so
stdout holds only the fold (and ``--json`` one JSON object).
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from conformance import outputs, reports
from conformance.expectation_updates import flaky_entry
from conformance.protocol import JsonObject
from conformance.runner import EXIT_NOT_CONFORMANT, EXIT_USAGE, RunOptions, run_conformance
from conformance.statuses import Status

MAX_REPEAT: Final = 100
#: Worst first: the status a folded row keeps when its runs disagree.
SEVERITY: Final = (Status.CRASH, Status.TIMEOUT, Status.ERROR, Status.XPASS, Status.FAIL, Status.NOTRUN,
                   Status.XFAIL, Status.UNSUPPORTED, Status.SKIP, Status.PASS)
#: A run's status as the raw outcome a manifest's ``flaky`` entry names (PASS, FAIL or ERROR).
OUTCOME: Final = {Status.PASS: "PASS", Status.XPASS: "PASS", Status.FAIL: "FAIL", Status.XFAIL: "FAIL",
                  Status.ERROR: "ERROR"}


@dataclass(frozen=True)
class RepeatedRow:
    """One row's statuses over the N runs."""

    id: str
    counts: dict[str, int]

    @property
    def flaky(self) -> bool:
        return len(self.counts) > 1

    @property
    def worst(self) -> Status:
        return next(s for s in SEVERITY if s in self.counts)

    @property
    def outcomes(self) -> list[str]:
        """The raw outcomes a ``flaky`` entry allows; empty when a status has none (TIMEOUT, CRASH…)."""
        if any(status not in OUTCOME for status in self.counts):
            return []
        return sorted({OUTCOME[Status(status)] for status in self.counts})

    def entry(self, runs: int) -> str:
        """The ``[[expectation]]`` table to paste, or a comment saying why none fits."""
        seen = ", ".join(f"{status} {n}/{runs}" for status, n in self.counts.items())
        if len(self.outcomes) < 2:
            return (f"# {self.id}: {seen}: no flaky entry fits (a flaky entry allows only PASS, FAIL and "
                    "ERROR): fix the port")
        return flaky_entry(self.id, self.outcomes, f"flaky under --repeat {runs}: {seen}")

    def to_json(self, runs: int) -> JsonObject:
        return {"id": self.id, "status": self.worst.value, "counts": self.counts, "flaky": self.flaky,
                **({"entry": self.entry(runs)} if self.flaky else {})}


def fold(runs: Sequence[reports.Report]) -> tuple[reports.Report, list[RepeatedRow]]:
    """One report of N runs' reports (the worst row of each id, with its ``repeat`` counts) and its rows."""
    statuses: dict[str, Counter[str]] = {}
    worst_rows: dict[str, JsonObject] = {}
    for run in runs:
        for row in run.results:
            statuses.setdefault(row["id"], Counter())[row["status"]] += 1
    repeated = [RepeatedRow(row_id, dict(sorted(c.items(), key=lambda kv: SEVERITY.index(Status(kv[0])))))
                for row_id, c in sorted(statuses.items())]
    for run in runs:
        for row in run.results:
            kept = worst_rows.get(row["id"])
            if kept is None or SEVERITY.index(Status(row["status"])) < SEVERITY.index(Status(kept["status"])):
                worst_rows[row["id"]] = row
    results = [{**worst_rows[r.id], "repeat": r.counts} for r in repeated]
    interrupted = next((run.summary["interrupted"] for run in runs if "interrupted" in run.summary), None)
    return reports.Report(runs[0].header, results, reports.summary_line(runs[0].header, results, interrupted)), repeated


def _print_fold(repeated: list[RepeatedRow], runs: int) -> None:
    flaky = [row for row in repeated if row.flaky]
    for row in repeated:
        if not row.flaky and row.worst is not Status.PASS:
            print(f"{row.id} {row.worst.value} (all {runs} runs)")
    for row in flaky:
        seen = ", ".join(f"{status} {n}/{runs}" for status, n in row.counts.items())
        print(f"FLAKY {row.id}: {seen}")
    if flaky:
        print("\n# paste into the expectations manifest:")
        for row in flaky:
            print(f"\n{row.entry(runs)}")
    stable = len(repeated) - len(flaky)
    print(f"\n{len(repeated)} rows run {runs} times: {stable} stable, {len(flaky)} flaky")


def run_repeated(options: RunOptions, runs: int) -> int:
    """Run the selection ``runs`` times and fold; exit 1 when a row is flaky or a run was not conformant.
    An interrupted run (SIGINT, SIGTERM) is the last: the fold covers the runs made."""
    for option, given in (("--junitxml", options.junitxml), ("--cucumber-json", options.cucumber_json)):
        if given:
            print(f"recall-rebase: usage: {option} is one run's output: not with --repeat", file=sys.stderr)
            return EXIT_USAGE
    if (problem := outputs.first_unwritable({outputs.REPORT: options.report})) is not None:
        print(f"recall-rebase: {outputs.OUTPUT_UNWRITABLE}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    codes: list[int] = []
    read: list[reports.Report] = []
    with tempfile.TemporaryDirectory(prefix="recall-rebase-repeat-") as scratch:
        for number in range(1, runs + 1):
            print(f"recall-rebase: repeat {number}/{runs}", file=sys.stderr)
            path = Path(scratch) / f"run-{number}.ndjson"
            once = replace(options, report=str(path), as_json=False)
            with contextlib.redirect_stdout(sys.stderr):
                codes.append(run_conformance(once))
            if not path.exists():  # the run could not start (a usage line, an unstartable port): its code
                return codes[-1]
            try:
                read.append(reports.read_report(path))
            except reports.ReportError as error:
                print(f"recall-rebase: {error.code}: {error.message}", file=sys.stderr)
                return EXIT_NOT_CONFORMANT
            if "interrupted" in read[-1].summary:
                break
    runs = len(read)
    folded, repeated = fold(read)
    if options.report:
        reports.write_report(Path(options.report), folded)
    flaky = [row for row in repeated if row.flaky]
    if options.as_json:
        print(json.dumps({"implementation": folded.header["implementation"], "repeat": runs,
                          "summary": folded.summary, "exit_codes": codes,
                          "rows": [row.to_json(runs) for row in repeated]}))
    else:
        _print_fold(repeated, runs)
    return EXIT_NOT_CONFORMANT if flaky or any(code != 0 for code in codes) else 0
