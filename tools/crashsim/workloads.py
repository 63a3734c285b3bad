"""The workloads the crash states come from (issue 28, deliverables 1 and 3), each usable by its
name with ``tools/crashstates.py --workload``: ``config-set``, ``rebase``, ``recover-<point>`` for
each of the eight crash points (D11), ``rebase-lineage``, ``index-build`` and ``index-catchup``.
Each prepares a folder, runs one reference command under a recording and checks a crash state
materialized where it ran (``crashsim.running``)."""

from __future__ import annotations

from crashsim.config_workload import ConfigSet
from crashsim.index_workloads import IndexBuild, IndexCatchUp
from crashsim.rebase_workloads import LineageRun, RebaseRun, RecoveryRun
from crashsim.running import Workload
from reference.artifacts.phases import CRASH_POINTS


def workloads() -> tuple[Workload, ...]:
    """The workloads, in the order they run."""
    return (ConfigSet(), RebaseRun(), *(RecoveryRun(point) for point in CRASH_POINTS), LineageRun(),
            IndexBuild(), IndexCatchUp())
