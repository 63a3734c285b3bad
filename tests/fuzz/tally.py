"""The fuzz campaign's counts and their end-of-run tally (issue 12): how many cases each category
ran and how many broke an invariant, printed at the end of the run and written to ``$FUZZ_REPORT``
(JSON) when set.

``tox -e fuzz`` runs the categories with the ``fuzz`` Hypothesis profile (at least 10,000 cases
in all); the ``tests`` environment runs the same tests with the bounded ``ci`` profile.  A case
that breaks an invariant fails its test, so a green run has 0 violations by construction; the
tally says how many cases that green stands for.

One module, imported by the tests that count and registered as a pytest plugin by
tests/conftest.py (a conftest every process loads: under pytest-xdist the controller, which
prints, never loads tests/fuzz/conftest.py). Each worker hands its cases to the controller
(testkit/worker_counts.py); failing tests are counted from the test reports, which the controller
receives from every worker.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import pytest
from testkit.worker_counts import hand_over, handed_over, on_worker

CASES: Counter[str] = Counter()
VIOLATIONS: Counter[str] = Counter()
_HANDED: str = "fuzz"


def count_case(category: str) -> None:
    CASES[category] += 1


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.failed and "tests/fuzz/" in report.nodeid.replace("\\", "/"):
        category = report.nodeid.split("::")[0].rsplit("/", 1)[-1].removeprefix("test_").removesuffix(".py")
        VIOLATIONS[category] += 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    hand_over(session.config, _HANDED, dict(CASES))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any) -> None:
    if cases := handed_over(node, _HANDED):
        CASES.update(cases)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not CASES or on_worker(config):
        return
    terminalreporter.section("fuzz campaign")
    width = max(len(name) for name in CASES)
    for name in sorted(CASES):
        terminalreporter.write_line(f"{name:<{width}}  {CASES[name]:>7} cases")
    terminalreporter.write_line(f"{'total':<{width}}  {sum(CASES.values()):>7} cases, "
                                f"{sum(VIOLATIONS.values())} failing tests")
    path = os.environ.get("FUZZ_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"cases": dict(sorted(CASES.items())), "failingTests": sum(VIOLATIONS.values()),
                       "profile": os.environ.get("HYPOTHESIS_PROFILE", "dev")}, handle, indent=1)
            handle.write("\n")
