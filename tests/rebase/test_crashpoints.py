"""Crash points (D11): real processes die with 91 exactly where armed, and nowhere else."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

from reference.artifacts.phases import CRASH_POINTS, CrashPoint
from reference.primitives.errors import ContractViolation
from reference.rebase import crashpoints
from reference.rebase.adapter_state import RebaseHostState

ROOT = REPO_ROOT
PHASES = ("Prepared", "ArchiveVerified", "CheckpointReady", "TargetCreated", "Activated", "Verified")


def child(script: str, crash_at: str | None, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter, with ``RECALL_REBASE_CRASH_AT`` set or unset."""
    env = {k: v for k, v in os.environ.items() if k != crashpoints.ENV_VAR}
    env["PYTHONPATH"] = str(ROOT)
    if crash_at is not None:
        env[crashpoints.ENV_VAR] = crash_at
    return subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )


@pytest.fixture(autouse=True)
def disarmed() -> Iterator[None]:
    crashpoints.arm(None)
    yield
    crashpoints.arm(None)


def test_the_points_are_the_six_phases_plus_two_inside_the_durable_write() -> None:
    points = CRASH_POINTS
    assert len(points) == len(set(points)) == 8
    assert tuple(p for p in points if p in PHASES) == PHASES
    assert set(points) - set(PHASES) == {CrashPoint.TARGET_STAGED, CrashPoint.TARGET_INSTALLED}
    # the inner points lie between the fingerprint (CheckpointReady) and TargetCreated
    assert (
        points.index("CheckpointReady")
        < points.index("TargetStaged")
        < points.index("TargetInstalled")
        < points.index("TargetCreated")
    )


def test_unknown_point_is_refused_and_changes_nothing() -> None:
    crashpoints.arm("Verified")
    with pytest.raises(ContractViolation) as refused:
        crashpoints.arm("verified")
    assert refused.value.code == "invalid-crash-point"
    assert "Verified" in refused.value.message  # the message lists the valid names
    assert crashpoints._armed == "Verified"
    with pytest.raises(ContractViolation):
        crashpoints.reached("NoSuchPoint")


def test_environment_arms_only_when_asked_and_empty_means_nothing() -> None:
    assert crashpoints.arm_from_environment({}) is None
    assert crashpoints.arm_from_environment({crashpoints.ENV_VAR: ""}) is None
    assert crashpoints.arm_from_environment({crashpoints.ENV_VAR: "Activated"}) == "Activated"
    assert crashpoints._armed == "Activated"
    with pytest.raises(ContractViolation) as refused:
        crashpoints.arm_from_environment({crashpoints.ENV_VAR: "Bogus"})
    assert refused.value.code == "invalid-crash-point"


def test_unarmed_or_other_point_does_nothing() -> None:
    for point in CRASH_POINTS:
        crashpoints.reached(point)  # not armed: returns
    crashpoints.arm("Verified")
    crashpoints.reached("Prepared")  # armed elsewhere: returns


SCRIPT = """
import atexit, pathlib, sys
from reference.artifacts.phases import CRASH_POINTS
from reference.rebase import crashpoints
from reference.rebase.adapter_state import RebaseHostState
atexit.register(lambda: pathlib.Path('atexit-ran').write_text('x'))
crashpoints.arm_from_environment()
for point in CRASH_POINTS:
    print('before', point, flush=True)
    try:
        crashpoints.reached(point)
    finally:
        pathlib.Path('finally-' + point).write_text('x')
print('completed', flush=True)
"""


@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_child_armed_at_a_point_dies_there_with_91_and_no_cleanup(point: str, tmp_path: Path) -> None:
    done = child(SCRIPT, point, tmp_path)
    assert done.returncode == crashpoints.CRASH_EXIT_CODE == 91, done.stderr
    order = CRASH_POINTS
    expected = [f"before {p}" for p in order[: order.index(point) + 1]]
    assert done.stdout.splitlines() == expected
    assert not (tmp_path / "atexit-ran").exists()
    assert not (tmp_path / f"finally-{point}").exists()


def test_an_unarmed_child_runs_to_the_end(tmp_path: Path) -> None:
    done = child(SCRIPT, None, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "completed"
    assert (tmp_path / "atexit-ran").exists()


def test_an_unknown_point_in_the_environment_is_refused_at_start_up(tmp_path: Path) -> None:
    done = child(SCRIPT, "TargetWritten", tmp_path)
    assert done.returncode not in (0, 91)
    assert "invalid-crash-point" in done.stderr
    assert "TargetWritten" in done.stderr
    assert "before" not in done.stdout


def test_importing_reads_no_environment(tmp_path: Path) -> None:
    done = child("from reference.rebase import crashpoints; print(crashpoints._armed)", "Prepared", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


@pytest.mark.parametrize("point", ["verified", None, 3])
def test_the_adapter_refuses_an_unknown_point_before_any_child_runs(point: object, tmp_path: Path) -> None:
    state = RebaseHostState()
    state.open({"home": str(tmp_path), "cwd": str(tmp_path), "sessionFile": str(tmp_path / "none.jsonl")})
    with pytest.raises(ContractViolation) as refused:
        state.crash({"point": point})
    assert refused.value.code == "invalid-crash-point"
    assert "Verified" in refused.value.message  # the one check's message, listing the valid names
