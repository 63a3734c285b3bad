"""Every end-of-run summary says the same under pytest-xdist (``-n 2``) as in one process (``-n 0``).

Each test runs a small pytest session twice in a child process, with copies of the real
tests/conftest.py (which registers the plugins that print the summaries) and of the area's own
conftest (tests/oracle, tests/chaos, tests/fuzz, tests/cli), and a few made-up tests that count
what the real ones count. Under ``-n 2`` the tests run in two workers, so the
summary is right only if the controller adds up what each worker counted (testkit/worker_counts.py).
A report file (``$CHAOS_REPORT``, ``$FUZZ_REPORT``) is written by the controller alone: the
session's workers are pointed at a file of their own, which must never appear.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

from testkit.paths import TESTS_ROOT

#: A worker's own report path: the given one plus ``.gw0``, ``.gw1``...
_WORKERS_OWN_REPORT: Final = '''
import os

def pytest_configure(config):
    if hasattr(config, "workerinput"):
        for name in ("CHAOS_REPORT", "FUZZ_REPORT"):
            if name in os.environ:
                os.environ[name] += "." + config.workerinput["workerid"]
'''
_ORACLE_AVAILABLE: Final = '''
from testkit import pi_oracle

pi_oracle.problem = lambda: None  # the made-up tests below need no Node and no Pi
'''


def _session(folder: Path, area: str, tests: dict[str, str], workers: int, root_conftest: str = "",
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the made-up ``tests`` beside copies of tests/conftest.py and tests/AREA/conftest.py in ``folder``,
    on ``workers`` (0: in one process)."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "tests" / area).mkdir(parents=True)
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "conftest.py").write_text(_WORKERS_OWN_REPORT + root_conftest, encoding="utf-8")
    for conftest in ("conftest.py", "slow.txt", f"{area}/conftest.py"):  # slow.txt: what conftest.py marks slow
        shutil.copy(TESTS_ROOT / conftest, folder / "tests" / conftest)
    for name, text in tests.items():
        (folder / "tests" / area / name).write_text(text, encoding="utf-8")
    inherited = {k: v for k, v in os.environ.items()
                 if not k.startswith(("PYTEST_", "CHAOS_", "FUZZ_")) and k != "HYPOTHESIS_PROFILE"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "--import-mode=importlib",
         "-n", str(workers), "tests"],
        cwd=folder, capture_output=True, text=True, timeout=300, check=False,
        env={**inherited, "PYTHONPATH": str(TESTS_ROOT), **(env or {})},
    )


def _section(output: str, title: str) -> list[str]:
    """The lines of the summary section ``title`` (up to the next ``===`` or ``---`` rule)."""
    lines = output.splitlines()
    starts = [n for n, line in enumerate(lines) if re.fullmatch(rf"[=-]+ {re.escape(title)} [=-]+", line)]
    assert len(starts) == 1, f"section {title!r} printed {len(starts)} times:\n{output}"
    rest = lines[starts[0] + 1:]
    end = next((n for n, line in enumerate(rest) if re.fullmatch(r"[=-]+( .* [=-]+)?", line)), len(rest))
    return rest[:end]


def _workers_used(output: str) -> set[str]:
    return set(re.findall(r"^\[(gw\d+)\] ", output, flags=re.MULTILINE))


def _both(tmp_path: Path, area: str, tests: dict[str, str], title: str, root_conftest: str = "",
          report: str | None = None) -> tuple[list[str], object]:
    """The section ``title`` of a run under ``-n 2``, after checking it equals the ``-n 0`` run's
    (and so does the report file's content, when ``report`` names its variable)."""
    found = []
    for workers in (0, 2):
        folder = tmp_path / f"n{workers}"
        path = tmp_path / f"report-n{workers}.json"
        done = _session(folder, area, tests, workers, root_conftest, {report: str(path)} if report else None)
        output = done.stdout + done.stderr
        if workers:
            assert _workers_used(output) == {"gw0", "gw1"}, output
        content = json.loads(path.read_text(encoding="utf-8")) if report else None
        found.append((_section(output, title), content))
        assert not list(tmp_path.glob("report-*.json.gw*")), "a worker wrote the report"
    assert found[0] == found[1], f"-n 0 and -n 2 disagree:\n{found[0]}\n{found[1]}"
    return found[1]


_CHAOS_TESTS: Final = {"test_made_up.py": '''
import pytest
from chaos import tally

@pytest.mark.parametrize("run", range(8))
def test_run(run, request):
    tally.SEEDS[request.node.name] = 1000 + run
    tally.RUNS["runs"] += 1
    tally.BEHAVIOURS.update({"slow-answer": 2, "torn-line": run})

def test_an_invariant_broke():
    tally.RUNS["runs"] += 1
    assert False, "made up"
'''}


def test_the_chaos_summary_and_report_add_up_every_workers_runs(tmp_path: Path) -> None:
    lines, report = _both(tmp_path, "chaos", _CHAOS_TESTS, "chaos port", report="CHAOS_REPORT")
    assert f"{'behaviours':<24} {44:>7} in 9 runs, 1 broken invariants" in lines
    assert f"{'torn-line':<24} {28:>7}" in lines
    assert sum(line.startswith("seed ") for line in lines) == 8
    assert isinstance(report, dict)
    assert (report["total"], report["runs"], report["brokenInvariants"], len(report["seeds"])) == (44, 9, 1, 8)


_FUZZ_TESTS: Final = {
    "test_alpha.py": '''
import pytest
from fuzz.tally import count_case

@pytest.mark.parametrize("case", range(7))
def test_alpha(case):
    for _ in range(case):
        count_case("alpha")
''',
    "test_beta.py": '''
from fuzz.tally import count_case

def test_beta_breaks():
    count_case("beta")
    assert False, "made up"

def test_beta_holds():
    count_case("beta")
''',
}


def test_the_fuzz_summary_and_report_add_up_every_workers_cases(tmp_path: Path) -> None:
    lines, report = _both(tmp_path, "fuzz", _FUZZ_TESTS, "fuzz campaign", report="FUZZ_REPORT")
    assert lines == ["alpha       21 cases", "beta         2 cases", "total       23 cases, 1 failing tests"]
    assert report == {"cases": {"alpha": 21, "beta": 2}, "failingTests": 1, "profile": "dev"}


_ORACLE_TESTS: Final = {"test_made_up.py": '''
import pytest
from testkit.pi_oracle import Comparison

@pytest.mark.parametrize("n", range(6))
def test_pairs(n, pair_stats, triple_stats):
    pair_stats.add("shared" if n % 2 else f"own-{n}", Comparison(pairs=n, differences=[None] * (n // 4),
                                                                  files={f"f{n}", "common"}))
    triple_stats.add("recall", triples=10 * n, disagreements=n // 5, files=1)
'''}


def test_the_pi_oracle_summary_adds_up_every_workers_pairs_and_triples(tmp_path: Path) -> None:
    lines, _ = _both(tmp_path, "oracle", _ORACLE_TESTS, "pi-oracle", root_conftest=_ORACLE_AVAILABLE)
    assert lines == [
        "  own-0: 0 pairs from 2 files, 0 differences",
        "  shared: 9 pairs from 6 files, 1 differences",
        "  own-2: 2 pairs from 2 files, 0 differences",
        "  own-4: 4 pairs from 2 files, 1 differences",
        "pi-oracle: compared 15 (session, leaf) pairs, 2 differences",
        "  recall: 150 triples from 6 files, 1 disagreements",
        "pi-oracle recall: compared 150 (session, leaf, query) triples, 1 disagreements",
    ]


_GRID_TESTS: Final = {"test_wrong_paths.py": '''
import pytest

@pytest.mark.parametrize("cell", [f"{slot}-{thing}" for slot in ("show-a", "show-b", "set-c")
                                  for thing in ("session", "other-session", "fifo")])
def test_a_wrong_path_is_refused_or_used_and_nothing_else_is_touched(cell):
    assert cell != "show-b-fifo", "made up"
'''}


def test_the_wrong_path_grid_is_printed_once_with_every_workers_cells(tmp_path: Path) -> None:
    lines, _ = _both(tmp_path, "cli", _GRID_TESTS, "wrong-path matrix")
    assert lines[-4:-1] == ["set-c    .  .  .", "show-a   .  .  .", "show-b   .  .  F"]
    assert lines[-1].startswith("9 cells, 1 broken")
