"""The chaos campaign's counts and their end-of-run tally (issue 23): runs, port behaviours per
kind, broken invariants and the Hypothesis seed, printed at the end and written to
``$CHAOS_REPORT`` (JSON) when set.

One module, shared by the test that counts and the summary that prints; it is a pytest plugin,
registered by tests/conftest.py (a conftest every process loads: under pytest-xdist the
controller, which prints, never loads tests/chaos/conftest.py). Each worker hands its counts to
the controller (testkit/worker_counts.py); broken invariants are counted from the test reports,
which the controller receives from every worker.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import pytest
from testkit.worker_counts import hand_over, handed_over, on_worker

from chaos.budget import BEHAVIOURS_GOAL

#: Port behaviours (broken answers) run, per kind.
BEHAVIOURS: Counter[str] = Counter()
RUNS: Counter[str] = Counter()
BROKEN: Counter[str] = Counter()
#: The Hypothesis seed each chaos test ran with (replay: ``--hypothesis-seed SEED``).
SEEDS: dict[str, int | str | None] = {}
_HANDED: str = "chaos"


def progress(behaviours: int, seconds: float) -> None:
    """One line per run in ``$CHAOS_PROGRESS`` (when set): a long campaign can be watched."""
    if path := os.environ.get("CHAOS_PROGRESS"):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{behaviours} {seconds:.2f}\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.failed and "tests/chaos/" in report.nodeid.replace("\\", "/"):
        BROKEN[report.nodeid] += 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    hand_over(session.config, _HANDED, {"behaviours": dict(BEHAVIOURS), "runs": dict(RUNS), "seeds": SEEDS})


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any) -> None:
    if counts := handed_over(node, _HANDED):
        BEHAVIOURS.update(counts["behaviours"])
        RUNS.update(counts["runs"])
        SEEDS.update(counts["seeds"])


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not RUNS or on_worker(config):
        return
    terminalreporter.section("chaos port")
    for kind in sorted(BEHAVIOURS):
        terminalreporter.write_line(f"{kind:<24} {BEHAVIOURS[kind]:>7}")
    terminalreporter.write_line(f"{'behaviours':<24} {sum(BEHAVIOURS.values()):>7} in {sum(RUNS.values())} runs, "
                                f"{sum(BROKEN.values())} broken invariants")
    if os.environ.get("CHAOS_RUNS") and sum(BEHAVIOURS.values()) < BEHAVIOURS_GOAL:
        terminalreporter.write_line(f"fewer behaviours than the campaign's goal of {BEHAVIOURS_GOAL:,}: raise CHAOS_RUNS")
    for test, seed in sorted(SEEDS.items()):
        terminalreporter.write_line(f"seed {seed} ({test}); replay: pytest tests/chaos --hypothesis-seed {seed} "
                                    f"with the same CHAOS_RUNS")
    if path := os.environ.get("CHAOS_REPORT"):
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"behaviours": dict(sorted(BEHAVIOURS.items())), "total": sum(BEHAVIOURS.values()),
                       "runs": sum(RUNS.values()), "brokenInvariants": sum(BROKEN.values()),
                       "seeds": dict(sorted(SEEDS.items())), "profile": os.environ.get("HYPOTHESIS_PROFILE", "dev"),
                       "runsAsked": os.environ.get("CHAOS_RUNS")}, handle, indent=1)
            handle.write("\n")
