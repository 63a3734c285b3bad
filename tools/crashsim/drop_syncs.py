"""``--drop-syncs`` (issue 28, deliverable 4): each sync site of the reference removed in turn.

Every recorded fsync names its site (``platform_ops.sync_sites``).  For one site, its syncs are
taken out of each workload's trace, so the persistence models treat what they covered as not
synced; the crash states this adds (those the full trace does not have) are checked as any other,
and ``durable-once-returned`` on the last crash point.  A site is **caught** when some added state
breaks an invariant; otherwise the finding says why nothing broke.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from crashsim.explorer import (
    Distinct,
    Exploring,
    Recorded,
    Violation,
    check_returned,
    check_states,
    distinct_states,
)
from crashsim.model import Trace
from reference.primitives.platform_ops.recorder import Step, SyncFile, SyncFolder
from reference.primitives.platform_ops.sync_sites import SyncSite


@dataclass(frozen=True)
class SiteFinding:
    """One row of the ``sync_sites`` list: the site, whether removing it is caught, and why."""

    site: str
    caught: bool
    why: str


@dataclass(frozen=True)
class Dropped:
    """One site taken out of one workload's trace: how many syncs that removed, the crash states
    it added (checked: at most ``Exploring.max_states`` of them, a seeded sample past that), the
    violations among them, those of ``durable-once-returned`` (on the last crash point), and the
    sites of the later syncs of the same file or folder, how the reference's runs on the added
    states ended."""

    workload: str
    syncs: int
    added: int
    checked: int
    violations: tuple[Violation, ...]
    returned: tuple[Violation, ...]
    later: tuple[str, ...]
    endings: dict[str, int]


def _site(step: Step) -> SyncSite | None:
    return step.site if isinstance(step, (SyncFile, SyncFolder)) else None


def without_site(trace: Trace, site: SyncSite) -> Trace:
    """``trace`` with ``site``'s syncs removed; each SQLite unit version keeps its place."""
    kept_before = [0]
    for step in trace.steps:
        kept_before.append(kept_before[-1] + (_site(step) is not site))
    units = tuple(replace(unit, seen_at=tuple(kept_before[k] for k in unit.seen_at)) for unit in trace.units)
    return replace(trace, steps=tuple(s for s in trace.steps if _site(s) is not site), units=units)


def _same_target(sync: SyncFile | SyncFolder, other: Step) -> bool:
    if isinstance(sync, SyncFile):
        return isinstance(other, SyncFile) and other.identity == sync.identity
    return isinstance(other, SyncFolder) and other.path == sync.path


def later_syncs(trace: Trace, site: SyncSite) -> tuple[str, ...]:
    """The sites of the syncs of another site, later in ``trace``, of a file or folder one of
    ``site``'s syncs made durable (those cover what it covered, from their place on)."""
    found: dict[str, None] = {}
    for index, step in enumerate(trace.steps):
        if isinstance(step, (SyncFile, SyncFolder)) and step.site is site:
            for later in trace.steps[index + 1:]:
                if _same_target(step, later) and (other := _site(later)) not in (None, site):
                    found[str(other)] = None
                    break
    return tuple(found)


def drop_site(recorded: Recorded, baseline: Distinct, site: SyncSite, how: Exploring) -> Dropped | None:
    """Take ``site`` out of the recorded trace and check the states that adds; None when the
    workload never reaches the site."""
    trace = recorded.trace
    syncs = sum(_site(step) is site for step in trace.steps)
    if not syncs:
        return None
    dropped = without_site(trace, site)
    distinct = distinct_states(dropped, how)
    added = [key for key in distinct.found if key not in baseline.found]
    chosen = added
    if how.max_states is not None and len(added) > how.max_states:
        chosen = random.Random(how.seed).sample(added, how.max_states)
    endings, violations, _ = check_states(recorded, (distinct.found[key] for key in chosen))
    returned = check_returned(recorded.workload.name, dropped, how)
    return Dropped(recorded.workload.name, syncs, len(added), len(chosen), tuple(violations), tuple(returned),
                   later_syncs(trace, site), dict(endings.most_common()))


def finding(site: SyncSite, dropped: Sequence[Dropped], workloads_run: Sequence[str]) -> SiteFinding:
    """The row of one site, from its removal in each workload that reaches it."""
    if not dropped:
        return SiteFinding(str(site), False, f"not caught: no workload run reaches it ({', '.join(workloads_run)})")
    violations = [v for d in dropped for v in d.violations]
    returned = [v for d in dropped for v in d.returned]
    if violations or returned:
        first = (violations + returned)[0]
        counts = f"{len(violations)} in {sum(d.checked for d in dropped)} added states checked"
        return SiteFinding(str(site), True, f"{first.workload}: {first.state}: {first.invariant} ({first.detail}); "
                                            f"violations: {counts}, {len(returned)} once the command returned")
    later = ", ".join(sorted({name for d in dropped for name in d.later}))
    if not any(d.added for d in dropped):
        covered = f"a later sync of the same file or folder covers it ({later})" if later else "nothing to cover"
        return SiteFinding(str(site), False, f"not needed in these workloads: removing it adds no crash state; {covered}")
    covered = (f"later syncs of the same file or folder ({later}) cover it only from their place on" if later
               else "no later sync of the same file or folder")
    where = ", ".join(f"{d.workload} {d.checked} of {d.added}" for d in dropped)
    endings = "; ".join(f"{d.workload}: " + ", ".join(f"{e} {n}" for e, n in d.endings.items()) for d in dropped)
    return SiteFinding(str(site), False, f"not caught: the added states ({where} checked) break no invariant "
                                         f"(the reference on them: {endings}); {covered}")
