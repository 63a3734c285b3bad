"""The crash campaign (decision D11, contract §6.5, §6.11, §6.12, §7.2 case 6): the real
``recall-rebase rebase`` command dies with exit 91 at each of the eight crash points, the index
is then deleted, and recovery in a fresh process, from the source or from the target, reaches
``Verified`` with one target, no temporary left and the source untouched.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from testkit.paths import REPO_ROOT
from testkit.pilines import compacted_session, jsonl, sha

from conformance import schemas
from reference.artifacts.ids import operation_id
from reference.artifacts.phases import CRASH_POINTS
from reference.rebase.crashpoints import CRASH_EXIT_CODE, ENV_VAR

ROOT = REPO_ROOT
CHILD_TIMEOUT_S = 30
SOURCE_ID = "source"
HEX64 = re.compile(r"[a-f0-9]{64}")
#: The journal phase a crash at each point leaves (the two install points lie after CheckpointReady).
LAST_WRITTEN = {
    "Prepared": "Prepared",
    "ArchiveVerified": "ArchiveVerified",
    "CheckpointReady": "CheckpointReady",
    "TargetStaged": "CheckpointReady",
    "TargetInstalled": "CheckpointReady",
    "TargetCreated": "TargetCreated",
    "Activated": "Activated",
    "Verified": "Verified",
}
FINGERPRINTED = ("CheckpointReady", "TargetStaged", "TargetInstalled", "TargetCreated", "Activated", "Verified")
#: Points after which the target file exists under its final name.
TARGET_EXISTS = ("TargetInstalled", "TargetCreated", "Activated", "Verified")








@dataclass
class Campaign:
    project: Path
    sessions: Path
    source: Path
    home: Path

    @property
    def index(self) -> Path:
        """The default projection index of the child's agent folder."""
        return self.home / ".pi" / "agent" / "recall-rebase" / "index.sqlite"

    def cli(self, session: Path, *args: str, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in (ENV_VAR, "PI_CODING_AGENT_DIR")}
        env.update(HOME=str(self.home), PYTHONPATH=str(ROOT))
        if crash_at is not None:
            env[ENV_VAR] = crash_at
        return subprocess.run(
            [sys.executable, "-m", "reference.cli", "rebase", "--session", str(session), "--approve", "--json", *args],
            cwd=self.project, env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False)

    def journal(self, op: str) -> dict[str, Any]:
        data = (self.sessions / ".ds4-rebase" / "operations" / f"{op}.json").read_bytes()
        assert len(data) <= 32_000
        record: dict[str, Any] = json.loads(data)
        assert schemas.errors(record, "rebase/journal.schema.json") == []
        return record

    def target(self, op: str) -> Path:
        return self.sessions / f"ds4-{op}.jsonl"

    def targets(self) -> list[Path]:
        return sorted(self.sessions.glob("ds4-rebase_*.jsonl"))

    def temporaries(self) -> list[Path]:
        return sorted(self.sessions.rglob("*.tmp"))


@pytest.fixture
def campaign(tmp_path: Path) -> Campaign:
    project, sessions, home = tmp_path / "project", tmp_path / "sessions", tmp_path / "home"
    for folder in (project, sessions, home):
        folder.mkdir()
    source = sessions / "2025-06-01T12-00-00-000Z_source.jsonl"
    source.write_bytes(jsonl(compacted_session(SOURCE_ID, project)))
    return Campaign(project, sessions, source, home)


def verified(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["status"] == "verified" and result["phase"] == "Verified", result
    return result


@pytest.mark.parametrize("origin", ["source", "target"])
@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_real_crash_at_each_point_recovers_after_index_loss(campaign: Campaign, point: str, origin: str) -> None:
    before = sha(campaign.source)
    op = operation_id(SOURCE_ID, "task", before)

    crashed = campaign.cli(campaign.source, crash_at=point)
    assert crashed.returncode == CRASH_EXIT_CODE == 91, (crashed.stdout, crashed.stderr)
    assert "Traceback" not in crashed.stderr and "Error" not in crashed.stderr
    assert crashed.stdout == ""  # died before printing any result
    journal = campaign.journal(op)
    assert journal["phase"] == LAST_WRITTEN[point]
    if point in FINGERPRINTED:
        assert journal["targetSize"] > 0 and HEX64.fullmatch(journal["targetHash"])
    else:
        assert "targetSize" not in journal and "targetHash" not in journal
    target = campaign.target(op)
    assert target.exists() is (point in TARGET_EXISTS)
    if target.exists():
        assert target.stat().st_size == journal["targetSize"] and sha(target) == journal["targetHash"]
    # a process death inside the install leaves its temporary for recovery to remove
    assert bool(campaign.temporaries()) is (point in ("TargetStaged", "TargetInstalled"))
    assert sha(campaign.source) == before

    assert campaign.index.is_file()
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{campaign.index}{suffix}").unlink(missing_ok=True)

    # from the target only when it exists; otherwise there is nothing but the source to start from
    start = target if origin == "target" and target.exists() else campaign.source
    first = verified(campaign.cli(start, "--recover", op))
    assert first["operationId"] == op
    assert campaign.targets() == [target]
    assert campaign.temporaries() == []
    assert sha(campaign.source) == before
    after_first = campaign.journal(op)
    assert after_first["phase"] == "Verified"
    assert target.stat().st_size == after_first["targetSize"] and sha(target) == after_first["targetHash"]
    if point in FINGERPRINTED:  # a target installed before the crash was reused, never rebuilt
        assert after_first["targetHash"] == journal["targetHash"]
    target_bytes = target.read_bytes()

    second = verified(campaign.cli(start, "--recover", op))
    assert second == first
    assert target.read_bytes() == target_bytes
    after_second = campaign.journal(op)
    assert {k: v for k, v in after_second.items() if k != "updatedAt"} == {
        k: v for k, v in after_first.items() if k != "updatedAt"}
    assert campaign.targets() == [target] and campaign.temporaries() == []
    assert sha(campaign.source) == before


def test_without_a_crash_point_the_command_completes(campaign: Campaign) -> None:
    done = campaign.cli(campaign.source)
    result = verified(done)
    assert result["operationId"] == operation_id(SOURCE_ID, "task", sha(campaign.source))
    assert campaign.journal(result["operationId"])["phase"] == "Verified"


HOLDER = """
import sys, time
from reference.rebase.lock import RebaseLock
lock = RebaseLock(sys.argv[1])
lock.acquire()
print('held', flush=True)
time.sleep(600)
"""


def test_a_lock_holder_killed_by_sigkill_frees_the_lock_at_once(campaign: Campaign) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(campaign.source)], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        busy = campaign.cli(campaign.source)
        assert busy.returncode == 3, busy.stderr
        assert json.loads(busy.stdout) == {"status": "unavailable", "warnings": ["rebase-busy"]}
        assert not (campaign.sessions / ".ds4-rebase" / "operations").exists()
        os.kill(holder.pid, signal.SIGKILL)
        assert holder.wait(timeout=CHILD_TIMEOUT_S) == -signal.SIGKILL
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=CHILD_TIMEOUT_S)
    result = verified(campaign.cli(campaign.source))
    assert campaign.targets() == [campaign.target(result["operationId"])]
