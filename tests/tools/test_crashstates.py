"""tools/crashstates.py (issue 28): a seeded small run of the explorer on the real workloads, with
the reference run on each state (kept under 20 s)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from crashsim.explorer import Exploring, explore_workload
from crashsim.workloads import ConfigSet, RebaseRun
from testkit.paths import REPO_ROOT


def test_every_crash_state_of_config_set_holds_the_old_file_or_the_new(tmp_path: Path) -> None:
    report = explore_workload(ConfigSet(), tmp_path)
    assert report.steps == 5 and report.states >= 4 and report.sampled == 0
    assert report.violations == ()


def test_a_seeded_sample_of_a_rebase_run_keeps_every_invariant(tmp_path: Path) -> None:
    report = explore_workload(RebaseRun(), tmp_path, Exploring(seed=7, point_limit=64, max_states=12))
    assert report.steps > 30
    assert report.states == report.sampled == 12
    assert min(report.per_model.values()) > 100
    assert report.violations == ()


@pytest.mark.parametrize("flag", ["--json"])
def test_the_command_prints_the_issue_s_json_object(flag: str) -> None:
    done = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "crashstates.py"), "--workload", "config-set",
                           "--seed", "3", flag], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"states", "workloads", "violations", "seed"}
    assert result["seed"] == 3 and result["violations"] == []
    assert result["states"] == result["workloads"]["config-set"]["states"] >= 4
