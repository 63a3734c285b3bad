"""The wrong-path matrix's grid (issue 23): every cell of tests/cli/test_wrong_paths.py that ran,
listed at the end of the run as one row per path slot and one column per wrong thing (``.``
held, ``F`` broken), with the count of cells and of broken ones. A broken cell is a failing
test whose message says what moved, changed or was printed.

A pytest plugin, registered by tests/conftest.py (a conftest every process loads): under
pytest-xdist the controller, which prints the grid, never loads tests/cli/conftest.py. The cells
are read from the test reports, which the controller receives from every worker; a worker
prints nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from testkit.worker_counts import on_worker
from testkit.wrong_paths import KINDS

MATRIX_TEST = "test_wrong_paths.py::test_a_wrong_path_is_refused_or_used_and_nothing_else_is_touched["
#: Each cell that ran: (slot, thing) -> held.
_CELLS: dict[tuple[str, str], bool] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call" or MATRIX_TEST not in report.nodeid.replace("\\", "/"):
        return
    cell = report.nodeid.split("[", 1)[1].removesuffix("]")
    thing = next((kind for kind in sorted(KINDS, key=len, reverse=True) if cell.endswith(f"-{kind}")), "")
    _CELLS[(cell.removesuffix(f"-{thing}") if thing else cell, thing)] = report.passed


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not _CELLS or on_worker(config):
        return
    things = [kind for kind in KINDS if any(thing == kind for _, thing in _CELLS)]
    slots = sorted({slot for slot, _ in _CELLS})
    width = max(len(slot) for slot in slots)
    terminalreporter.section("wrong-path matrix")
    for number, thing in enumerate(things, 1):
        terminalreporter.write_line(f"  column {number:>2}: {thing}")
    terminalreporter.write_line(f"{'':<{width}}  " + " ".join(f"{n:>2}" for n in range(1, len(things) + 1)))
    for slot in slots:
        marks = [{True: ".", False: "F", None: " "}[_CELLS.get((slot, thing))] for thing in things]
        terminalreporter.write_line(f"{slot:<{width}}  " + " ".join(f"{mark:>2}" for mark in marks))
    broken = sum(not held for held in _CELLS.values())
    terminalreporter.write_line(f"{len(_CELLS)} cells, {broken} broken (a file moved, renamed or changed, "
                                "something new beside a foreign file, a hang, a traceback or an undocumented exit)")
