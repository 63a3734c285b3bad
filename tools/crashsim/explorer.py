"""One workload explored: recorded once, its distinct crash states under each model, each written
as a folder where the workload ran and checked by running the reference on it.

Besides the workload's own invariants (``workloads.py``), one is checked here for every workload:
``durable-once-returned``: every state of the last crash point (the command had returned) holds
the files the finished run left, with their bytes (SQLite units aside: the index is disposable
and the lock holds no data).  A state before that point may hold the old files or the new ones; once
the command has said it is done, a power loss must not take it back.
"""

from __future__ import annotations

import random
import shutil
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from crashsim.capture import capture, materialize
from crashsim.model import DEFAULT_POINT_LIMIT, CrashState, Model, Trace, explore, finished_state, states_at
from crashsim.running import ADVISORY, Workload

DURABLE_ONCE_RETURNED = "durable-once-returned"


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


@dataclass(frozen=True)
class Recorded:
    """A workload run once under a recording: where it ran, and its trace."""

    workload: Workload
    root: Path
    trace: Trace


@dataclass(frozen=True)
class Distinct:
    """The distinct states of a trace, all models together (digest: the first model leaving it,
    the state), in the order explored; the digests sampled; the distinct states per model."""

    found: dict[str, tuple[Model, CrashState]]
    sampled: set[str]
    per_model: dict[str, int]


def record(workload: Workload, base: Path) -> Recorded:
    """Prepare ``workload`` in a fresh ``base/<name>`` and run it once under a recording."""
    root = base / workload.name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    workload.prepare(root)
    return Recorded(workload, root, capture(root, lambda: workload.run(root)))


def distinct_states(trace: Trace, how: Exploring) -> Distinct:
    """Every distinct crash state of ``trace`` under ``how.models``."""
    found: dict[str, tuple[Model, CrashState]] = {}
    sampled: set[str] = set()
    per_model = {}
    unit_hashes: dict[int, tuple[bytes, bytes]] = {}
    for model in how.models:
        exploration = explore(trace, model, seed=how.seed, point_limit=how.point_limit)
        per_model[str(model)] = len(exploration.states)
        for state in exploration.states:
            found.setdefault(state.digest(unit_hashes), (model, state))
        sampled |= exploration.sampled
    return Distinct(found, sampled, per_model)


def _files(state: CrashState) -> dict[str, bytes]:
    """What a reader finds in the state's files (SQLite units aside)."""
    contents = dict(state.contents)
    return {name: contents.get(inode, b"") for name, inode in state.visible()[1].items()}


def check_states(recorded: Recorded, states: Iterable[tuple[Model, CrashState]]
                 ) -> tuple[Counter[str], list[Violation], list[Violation]]:
    """Write each state where the workload ran and check it: how the runs ended, the violations,
    the advisory findings."""
    workload, root = recorded.workload, recorded.root
    outcomes: Counter[str] = Counter()
    violations: list[Violation] = []
    notes: list[Violation] = []
    for model, state in states:
        materialize(state, root)
        checked = workload.check(root)
        outcomes[checked.ended] += 1
        for broken in checked.broken:
            seen = Violation(workload.name, f"{model}: {state.description}", broken.invariant, broken.detail)
            (notes if broken.invariant in ADVISORY else violations).append(seen)
    return outcomes, violations, notes


def check_returned(name: str, trace: Trace, how: Exploring) -> list[Violation]:
    """``durable-once-returned`` for each model: every state of the last crash point holds the
    files the finished run left.  Read from the model alone (no run of the reference), since a
    state there may equal one of an earlier point, where it is allowed."""
    finished = _files(finished_state(trace))
    violations = []
    for model in how.models:
        for state in states_at(trace, len(trace.steps), model, seed=how.seed, point_limit=how.point_limit):
            files = _files(state)
            if files != finished:
                differ = sorted(n for n in files.keys() | finished.keys() if files.get(n) != finished.get(n))
                violations.append(Violation(name, f"{model}: {state.description}", DURABLE_ONCE_RETURNED,
                                            f"after the command returned, differs in {', '.join(differ)}"))
    return violations


def explore_recorded(recorded: Recorded, how: Exploring, started: float) -> tuple[WorkloadReport, Distinct]:
    """Check every distinct crash state of a recorded run (a seeded sample of ``how.max_states``
    of them when given and exceeded; those count as sampled); the report and the states."""
    distinct = distinct_states(recorded.trace, how)
    keys = list(distinct.found)  # in the order explored, which the seed fixes (digests hold temporaries' uuids)
    sampled = distinct.sampled
    if how.max_states is not None and len(keys) > how.max_states:
        keys = random.Random(how.seed).sample(keys, how.max_states)
        sampled = set(keys)
    outcomes, violations, notes = check_states(recorded, (distinct.found[key] for key in keys))
    violations = check_returned(recorded.workload.name, recorded.trace, how) + violations
    report = WorkloadReport(recorded.workload.name, len(recorded.trace.steps), len(keys), len(sampled & set(keys)),
                            distinct.per_model, tuple(violations), tuple(notes), dict(outcomes.most_common()),
                            round(time.monotonic() - started, 2))
    return report, distinct


def explore_workload(workload: Workload, base: Path, how: Exploring = Exploring()) -> WorkloadReport:
    """Record ``workload`` under ``base``, then check its distinct crash states (:func:`explore_recorded`)."""
    started = time.monotonic()
    recorded = record(workload, base)
    try:
        return explore_recorded(recorded, how, started)[0]
    finally:
        shutil.rmtree(recorded.root, ignore_errors=True)
