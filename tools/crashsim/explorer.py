"""One workload explored: recorded once, its distinct crash states under each model, each written
as a folder where the workload ran and checked by running the reference on it."""

from __future__ import annotations

import random
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from crashsim.capture import capture, materialize
from crashsim.model import DEFAULT_POINT_LIMIT, CrashState, Model, explore
from crashsim.running import ADVISORY, Workload


@dataclass(frozen=True)
class Violation:
    """A crash state that breaks an invariant."""

    workload: str
    state: str
    invariant: str
    detail: str


@dataclass(frozen=True)
class WorkloadReport:
    """Per workload: its recorded steps, the distinct states checked (all models together), how
    many of them came from a sample, the distinct states per model, the violations, the advisory
    findings (``workloads.ADVISORY``), how the reference's runs on the states ended (count
    per ending), the time."""

    name: str
    steps: int
    states: int
    sampled: int
    per_model: dict[str, int]
    violations: tuple[Violation, ...]
    notes: tuple[Violation, ...]
    outcomes: dict[str, int]
    seconds: float


@dataclass(frozen=True)
class Exploring:
    """How to explore: the persistence models, the seed of every sample, the combinations one
    crash point may enumerate before it is sampled, and at most how many states to check (a
    seeded sample of them past that; None: all)."""

    models: tuple[Model, ...] = tuple(Model)
    seed: int = 0
    point_limit: int = DEFAULT_POINT_LIMIT
    max_states: int | None = None


def explore_workload(workload: Workload, base: Path, how: Exploring = Exploring()) -> WorkloadReport:
    """Record ``workload`` under ``base``, then check every distinct crash state (a seeded sample
    of ``how.max_states`` of them when given and exceeded; those count as sampled)."""
    models, seed, point_limit, max_states = how.models, how.seed, how.point_limit, how.max_states
    started = time.monotonic()
    root = base / workload.name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    workload.prepare(root)
    trace = capture(root, lambda: workload.run(root))
    found: dict[str, tuple[Model, CrashState]] = {}
    sampled: set[str] = set()
    per_model = {}
    unit_hashes: dict[int, tuple[bytes, bytes]] = {}
    for model in models:
        exploration = explore(trace, model, seed=seed, point_limit=point_limit)
        per_model[str(model)] = len(exploration.states)
        for state in exploration.states:
            found.setdefault(state.digest(unit_hashes), (model, state))
        sampled |= exploration.sampled
    keys = list(found)  # in the order explored, which the seed fixes (digests hold temporaries' uuids)
    if max_states is not None and len(keys) > max_states:
        keys = random.Random(seed).sample(keys, max_states)
        sampled = set(keys)
    outcomes: Counter[str] = Counter()
    violations: list[Violation] = []
    notes: list[Violation] = []
    for key in keys:
        model, state = found[key]
        materialize(state, root)
        checked = workload.check(root)
        outcomes[checked.ended] += 1
        for broken in checked.broken:
            seen = Violation(workload.name, f"{model}: {state.description}", broken.invariant, broken.detail)
            (notes if broken.invariant in ADVISORY else violations).append(seen)
    shutil.rmtree(root, ignore_errors=True)
    return WorkloadReport(workload.name, len(trace.steps), len(keys), len(sampled & set(keys)), per_model,
                          tuple(violations), tuple(notes), dict(outcomes.most_common()), round(time.monotonic() - started, 2))
