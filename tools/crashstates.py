"""Power-loss crash states of the reference's durable steps (issue 28), each checked by running
the reference on it.

    python tools/crashstates.py [--workload NAME ...] [--model M ...] [--seed S]
                                [--point-limit N] [--max-states N] [--drop-syncs] [--json]

What it does: each workload (a `config set`, a rebase, ...) runs once in this process while its
durable steps (create, write, fsync, rename, link, unlink, mkdir, folder fsync) are recorded.
From that trace come the distinct states a power loss may leave under each persistence model
(`ordered`, `general`, `harsh`: unsynced writes lost or torn, unsynced renames and new names
reverted).  Each state is written as a real folder where the workload ran and checked by running
the reference on it (recovery, or the command again): the source never changes, at most one
target, a journal valid or absent, recovery verified or refused with a documented code, a
configuration file old or new, and once the command has returned, its files kept.

Printed per workload: recorded steps, states explored, states sampled, violations, time; `--json`
prints one object {states, workloads, violations, seed}.  `--drop-syncs` then removes each sync
site of the reference (every fsync names the place that asked for it) in turn, checks the states
that adds, and prints a table of the sites, each caught (a violating state named) or the reason
it is not needed; `--json` adds `sync_sites`.  The model, the invariants and the measured tables:
docs/rebase-durability.md, "Power loss".  A full run takes minutes; `tox -e crashstates` runs all
of it.  Exit 0: no violation; 1: a state breaks an invariant (with `--drop-syncs`, only the
full traces count); 2: bad arguments (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crashsim.drop_syncs import Dropped, SiteFinding, drop_site, finding
from crashsim.explorer import Exploring, WorkloadReport, explore_recorded, record
from crashsim.model import DEFAULT_POINT_LIMIT, Model
from crashsim.workloads import workloads

from conformance.commandline import EXIT_BAD_INPUT, SingleValueParser, UsageError
from reference.primitives.platform_ops.sync_sites import SyncSite


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


_positive.__name__ = "positive integer"  # argparse's word for a value it refuses


def build_parser() -> argparse.ArgumentParser:
    names = [w.name for w in workloads()]
    parser = SingleValueParser(prog="tools/crashstates.py", description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", action="append", choices=names,
                        help=f"only this workload, repeatable (default: all: {', '.join(names)})")
    parser.add_argument("--model", action="append", choices=[str(m) for m in Model],
                        help="only this persistence model, repeatable (default: all three)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of every sample (default: 0)")
    parser.add_argument("--point-limit", type=_positive, default=DEFAULT_POINT_LIMIT,
                        help="combinations one crash point may enumerate before it draws a seeded sample "
                             f"of that many instead (default: {DEFAULT_POINT_LIMIT})")
    parser.add_argument("--max-states", type=_positive, default=None,
                        help="check a seeded sample of at most N states per workload, and per site with "
                             "--drop-syncs (default: all)")
    parser.add_argument("--drop-syncs", action="store_true",
                        help="also remove each sync site in turn and say whether a power loss then breaks an invariant")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the text")
    return parser


def summary(reports: list[WorkloadReport], seed: int, sites: list[SiteFinding] | None = None) -> dict[str, object]:
    """The ``--json`` object of issue 28: the total, an object per workload, the violations, the
    seed; with ``--drop-syncs``, ``sync_sites``."""
    result: dict[str, object] = {
        "states": sum(r.states for r in reports),
        "workloads": {r.name: {"steps": r.steps, "states": r.states, "sampled": r.sampled, "perModel": r.per_model,
                               "violations": len(r.violations), "advisory": len(r.notes), "outcomes": r.outcomes,
                               "seconds": r.seconds}
                      for r in reports},
        "violations": [asdict(v) for r in reports for v in r.violations],
        "seed": seed,
    }
    if sites is not None:
        result["sync_sites"] = [asdict(site) for site in sites]
    return result


def _print_text(reports: list[WorkloadReport], seed: int, sites: list[SiteFinding] | None) -> None:
    for r in reports:
        print(f"{r.name}: {r.steps} steps, {r.states} states explored, {r.sampled} sampled, "
              f"{len(r.violations)} violations, {r.seconds} s  (per model: {r.per_model})")
        print(f"  the reference on the states: {r.outcomes}")
        for v in r.violations[:20]:
            print(f"  {v.invariant}: {v.state}: {v.detail}")
        if r.notes:
            print(f"  advisory, not violations: {len(r.notes)} states ({r.notes[0].invariant}), e.g. {r.notes[0].state}")
    print(f"total: {sum(r.states for r in reports)} states, seed {seed}")
    if sites is not None:
        print("\n| sync site | caught | why |\n|---|---|---|")
        for site in sites:
            print(f"| `{site.site}` | {'caught' if site.caught else 'not caught'} | {site.why} |")


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(arguments)
    except UsageError as error:
        print(f"crashstates: {error.code}: {error.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    how = Exploring(tuple(Model(m) for m in args.model) if args.model else tuple(Model), args.seed,
                    args.point_limit, args.max_states)
    chosen = [w for w in workloads() if not args.workload or w.name in args.workload]
    reports = []
    dropped: dict[SyncSite, list[Dropped]] = {site: [] for site in SyncSite}
    with tempfile.TemporaryDirectory(prefix="crashstates-") as base:
        for workload in chosen:
            recorded = record(workload, Path(base))
            report, distinct = explore_recorded(recorded, how, time.monotonic())
            reports.append(report)
            for site in SyncSite if args.drop_syncs else ():
                if (result := drop_site(recorded, distinct, site, how)) is not None:
                    dropped[site].append(result)
    names = [w.name for w in chosen]
    sites = [finding(site, dropped[site], names) for site in SyncSite] if args.drop_syncs else None
    if args.json:
        print(json.dumps(summary(reports, args.seed, sites), indent=2))
    else:
        _print_text(reports, args.seed, sites)
    return 1 if any(r.violations for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
