"""The chaos campaign's tally (issue 23): runs, port behaviours per kind, broken invariants and the
Hypothesis seed, printed at the end and written to ``$CHAOS_REPORT`` (JSON) when set."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from chaos.budget import BEHAVIOURS_GOAL
from chaos.tally import BEHAVIOURS, BROKEN, RUNS, SEEDS


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.failed and "tests/chaos/" in report.nodeid.replace("\\", "/"):
        BROKEN[report.nodeid] += 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RUNS:
        return
    terminalreporter.section("chaos port")
    for kind in sorted(BEHAVIOURS):
        terminalreporter.write_line(f"{kind:<24} {BEHAVIOURS[kind]:>7}")
    terminalreporter.write_line(f"{'behaviours':<24} {sum(BEHAVIOURS.values()):>7} in {sum(RUNS.values())} runs, "
                                f"{sum(BROKEN.values())} broken invariants")
    if os.environ.get("CHAOS_RUNS") and sum(BEHAVIOURS.values()) < BEHAVIOURS_GOAL:
        terminalreporter.write_line(f"fewer behaviours than the campaign's goal of {BEHAVIOURS_GOAL:,}: raise CHAOS_RUNS")
    for test, seed in SEEDS.items():
        terminalreporter.write_line(f"seed {seed} ({test}); replay: pytest tests/chaos --hypothesis-seed {seed} "
                                    f"with the same CHAOS_RUNS")
    if path := os.environ.get("CHAOS_REPORT"):
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"behaviours": dict(sorted(BEHAVIOURS.items())), "total": sum(BEHAVIOURS.values()),
                       "runs": sum(RUNS.values()), "brokenInvariants": sum(BROKEN.values()),
                       "seeds": SEEDS, "profile": os.environ.get("HYPOTHESIS_PROFILE", "dev"),
                       "runsAsked": os.environ.get("CHAOS_RUNS")}, handle, indent=1)
            handle.write("\n")
