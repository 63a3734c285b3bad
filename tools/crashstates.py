"""Power-loss crash states of the reference's durable steps (issue 28), checked by running the
reference on each state.

    python tools/crashstates.py [--workload NAME ...] [--model M ...] [--seed S] [--max-states N] [--json]

Each workload runs once under a recording of its durable steps (platform_ops.recorder); every
distinct state a power loss may leave under the persistence models (docs/rebase-durability.md,
"Power loss") is written as a folder where the workload ran, and the reference runs on it
(recovery, or the command again) to check the invariants.  Printed per workload: states
explored, states sampled, violations, time; ``--json`` prints one object.  The exit code is 1
when a state breaks an invariant.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crashsim.explorer import Exploring, WorkloadReport, explore_workload
from crashsim.model import DEFAULT_POINT_LIMIT, Model
from crashsim.workloads import workloads


def build_parser() -> argparse.ArgumentParser:
    names = [w.name for w in workloads()]
    parser = argparse.ArgumentParser(prog="tools/crashstates.py", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workload", action="append", choices=names, help="only these workloads (default: all)")
    parser.add_argument("--model", action="append", choices=[str(m) for m in Model],
                        help="only these persistence models (default: all three)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of every sample (default: 0)")
    parser.add_argument("--point-limit", type=int, default=DEFAULT_POINT_LIMIT,
                        help="combinations one crash point may enumerate before it is sampled")
    parser.add_argument("--max-states", type=int, default=None,
                        help="check a seeded sample of at most N states per workload (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def summary(reports: list[WorkloadReport], seed: int) -> dict[str, object]:
    """The ``--json`` object of issue 28: the total, an object per workload, the violations, the seed."""
    return {
        "states": sum(r.states for r in reports),
        "workloads": {r.name: {"steps": r.steps, "states": r.states, "sampled": r.sampled, "perModel": r.per_model,
                               "violations": len(r.violations), "advisory": len(r.notes), "outcomes": r.outcomes,
                               "seconds": r.seconds}
                      for r in reports},
        "violations": [asdict(v) for r in reports for v in r.violations],
        "seed": seed,
    }


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    how = Exploring(tuple(Model(m) for m in args.model) if args.model else tuple(Model), args.seed,
                    args.point_limit, args.max_states)
    chosen = [w for w in workloads() if not args.workload or w.name in args.workload]
    reports = []
    with tempfile.TemporaryDirectory(prefix="crashstates-") as base:
        for workload in chosen:
            reports.append(explore_workload(workload, Path(base), how))
    if args.json:
        print(json.dumps(summary(reports, args.seed), indent=2))
    else:
        for r in reports:
            print(f"{r.name}: {r.steps} steps, {r.states} states explored, {r.sampled} sampled, "
                  f"{len(r.violations)} violations, {r.seconds} s  (per model: {r.per_model})")
            print(f"  the reference on the states: {r.outcomes}")
            for v in r.violations[:20]:
                print(f"  {v.invariant}: {v.state}: {v.detail}")
            if r.notes:
                print(f"  advisory, not violations: {len(r.notes)} states ({r.notes[0].invariant}), e.g. {r.notes[0].state}")
        print(f"total: {sum(r.states for r in reports)} states, seed {args.seed}")
    return 1 if any(r.violations for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
