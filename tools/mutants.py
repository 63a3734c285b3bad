"""Run the catalogue of port bugs (``conformance/mutants/*.toml``) against the conformance suite.

    python tools/mutants.py run [--only IDS] [--area AREAS] [--sample N [--sample-seed S]] [-j N] [--json]
    python tools/mutants.py check        # schema, unique ids, known kills, every entry applies once

Each entry is a small patch to the reference, applied by content to a copy of the checkout's
``reference/`` (never the checkout); the suite then runs against the copy (a ``--stdio`` port by
default): the scenarios the entry names first, and when none of them fails, the whole suite. Verdicts: killed, killed-elsewhere,
timeout (both count as killed), survived, stale, error. ``killed K/N`` is printed last; the exit
code is 0 only when every chosen entry is killed. docs/mutants.md has the format and the rules.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import signal
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Final

from mutation import catalogue, processes, report
from mutation.judge import Judgement, Setup, Verdict, copy_reference, judge, provenance, run_suite
from mutation.sample import Sample, choose, week_seed

from conformance.mutant_catalogue import Mutant, catalogue_files, load

ROOT: Final = Path(__file__).resolve().parents[1]
CATALOGUE: Final = ROOT / "conformance" / "mutants"
DEFAULT_TIMEOUT: Final = 900.0
EXIT_REFUSED: Final = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tools/mutants.py", description=(__doc__ or "").splitlines()[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--catalogue", type=Path, default=CATALOGUE, help="the folder of *.toml catalogue files")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", parents=[common], help="judge the catalogue's entries; killed K/N printed last")
    run.add_argument("--only", default="", help="only these entry ids, comma-separated, globs allowed")
    run.add_argument("--area", default="", help="only the entries of these areas, comma-separated")
    run.add_argument("--sample", type=int, metavar="N", help="only N entries, rotating every ISO week")
    run.add_argument("--sample-seed", type=int, metavar="S", help="the sample's seed (default: weeks since 1970)")
    run.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="mutants judged at once")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                     help="seconds one suite process may take per mutant; past it the tree is killed "
                     "and the mutant counts as killed (TIMEOUT)")
    run.add_argument("--in-process", action="store_true",
                     help="run the mutated reference in the suite's process, not as a --stdio port")
    run.add_argument("--request-timeout", type=float, help="the suite's --timeout per --stdio request")
    run.add_argument("--no-baseline", action="store_true",
                     help="skip the unmutated runs: the provenance probe and the confirmation of each kill")
    run.add_argument("--suite-ids", default="", metavar="IDS",
                     help="the second pass runs only these scenarios, not the whole suite (for focused work)")
    run.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    run.add_argument("--dry-run", action="store_true", help="print the chosen entries and stop")
    commands.add_parser("check", parents=[common],
                        help="validate the catalogue and show that every entry applies exactly once")
    return parser


def check(folder: Path) -> int:
    problems = catalogue.problems(folder, ROOT)
    if problems:
        print("\n".join(problems))
        print(f"catalogue refused: {len(problems)} problem(s)")
        return 1
    mutants = load(folder)
    stale = [(mutant, catalogue.stale_reason(mutant, ROOT)) for mutant in mutants]
    for mutant, reason in stale:
        if reason is not None:
            print(f"STALE {mutant.id} ({mutant.source}): {reason}")
    applying = sum(reason is None for _, reason in stale)
    print(f"{applying}/{len(mutants)} entries apply")
    return 0 if applying == len(mutants) else 1


def choose_entries(mutants: list[Mutant], args: argparse.Namespace) -> tuple[list[Mutant],
                                                                                        Sample | None]:
    wanted = [part.strip() for part in args.only.split(",") if part.strip()]
    areas = {part.strip().upper() for part in args.area.split(",") if part.strip()}
    chosen = [mutant for mutant in mutants
              if (not wanted or any(fnmatch.fnmatchcase(mutant.id, pattern) for pattern in wanted))
              and (not areas or mutant.area in areas)]
    if args.sample is None:
        return chosen, None
    seed = week_seed() if args.sample_seed is None else args.sample_seed
    sample = choose([mutant.id for mutant in chosen], args.sample, seed)
    return [mutant for mutant in chosen if mutant.id in sample.ids], sample


def confirm(setup: Setup, judgements: list[Judgement]) -> tuple[list[Judgement], list[str]]:
    """Run the unmutated copy over every row a mutant failed: a kill counts only by a row that passes
    without the mutant. Entries killed by no such row become ERROR; a run that fails to report, a refusal."""
    rows = sorted({row for judgement in judgements if judgement.verdict.killed for row in judgement.failed})
    if not rows:
        return judgements, []
    with tempfile.TemporaryDirectory(prefix="mutants-baseline-") as scratch:
        done = run_suite(setup, copy_reference(setup, Path(scratch)), ["--id", ",".join(rows)], "baseline")
    if done.code is None or (done.code != 0 and not done.failed):
        return judgements, [f"the unmutated reference's run over the failed rows ended without a verdict "
                            f"(exit {done.code}): {done.log[-2000:]}"]
    broken = set(done.failed)
    confirmed = [judgement if not judgement.failed or not set(judgement.failed) <= broken else
                 replace(judgement, verdict=Verdict.ERROR,
                         detail=f"killed only by rows that fail without the mutant too: {', '.join(judgement.failed)}")
                 for judgement in judgements]
    return confirmed, [f"the unmutated reference fails: {', '.join(sorted(broken))}"] if broken else []


def judge_all(mutants: Sequence[Mutant], setup: Setup, jobs: int,
              unknown: dict[str, str]) -> list[Judgement]:
    """Every mutant judged, ``jobs`` at once, a progress line on stderr as each one finishes."""
    results: dict[str, Judgement] = {}
    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        futures = [pool.submit(judge, mutant, setup) for mutant in mutants if mutant.id not in unknown]
        for mutant in mutants:
            if mutant.id in unknown:
                results[mutant.id] = Judgement(mutant, Verdict.STALE, 0.0, detail=unknown[mutant.id])
                print(report.progress_line(len(results), len(mutants), results[mutant.id]), file=sys.stderr)
        try:
            for future in as_completed(futures):
                judgement = future.result()
                results[judgement.mutant.id] = judgement
                print(report.progress_line(len(results), len(mutants), judgement), file=sys.stderr, flush=True)
        except BaseException:
            for future in futures:
                future.cancel()
            processes.kill_everything()
            raise
    return [results[mutant.id] for mutant in mutants]


def run(args: argparse.Namespace) -> int:
    problems = catalogue.folder_problems(args.catalogue) + [
        problem for path in catalogue_files(args.catalogue) for problem in catalogue.schema_problems(path, ROOT)]
    mutants = [] if problems else load(args.catalogue)
    scenarios = catalogue.scenario_ids(ROOT / "features")
    problems += [problem for problem in catalogue.entry_problems(mutants, scenarios, catalogue.clause_ids(ROOT)) if "matches no scenario" not in problem]
    if problems:
        print("\n".join([*problems, f"catalogue refused: {len(problems)} problem(s); see tools/mutants.py check"]))
        return EXIT_REFUSED
    chosen, sample = choose_entries(mutants, args)
    if not chosen:
        print(f"no entry of {args.catalogue} is chosen by --only {args.only!r} --area {args.area!r}"
              f" --sample {args.sample}")
        return EXIT_REFUSED
    if sample is not None:
        print(sample.describe(), file=sys.stderr if args.json else sys.stdout, flush=True)
    if args.dry_run:
        print("\n".join(mutant.id for mutant in chosen))
        return 0
    unknown = {mutant.id: f"kills names no scenario of features/: {', '.join(bad)}"
               for mutant in chosen if (bad := catalogue.unknown_kills(mutant, scenarios))}
    setup = Setup(root=ROOT, timeout=args.timeout, stdio=not args.in_process, request_timeout=args.request_timeout,
                  suite_ids=args.suite_ids)
    if not args.no_baseline:
        with tempfile.TemporaryDirectory(prefix="mutants-probe-") as scratch:
            refused = provenance(setup, Path(scratch) / "probe")
        if refused:
            print("\n".join([*refused, "no verdict: the suite must run the copy's reference"]))
            return EXIT_REFUSED
    judgements = judge_all(chosen, setup, args.jobs, unknown)
    if not args.no_baseline:
        judgements, refused = confirm(setup, judgements)
        if refused:
            print("\n".join(refused), file=sys.stderr)
        if any(problem.startswith("the unmutated reference's run") for problem in refused):
            return EXIT_REFUSED
    print(report.as_json(judgements, sample) if args.json else report.text(judgements))
    return 0 if report.passed(judgements) else 1


def _stop(signum: int, _frame: object) -> None:
    """SIGTERM (a cancelled CI job) ends the run like Ctrl-C: every suite process tree is killed."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "check":
        return check(args.catalogue)
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        return run(args)
    finally:
        processes.kill_everything()
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    raise SystemExit(main())
