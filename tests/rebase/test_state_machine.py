"""The rebase as a state machine (contract §6.5-§6.13, decision D11): Hypothesis interleaves
rebases, real process crashes at any crash point, recoveries from the source or the target,
appends to the continuation, index loss and lineage recall, and after every step checks what
must always hold: the source never changes, each operation has at most one target whose staged
bytes never change, no temporary outlives a recovery, and every journal is a valid, bounded
record whose phase is the one the model expects.

Each step may start a real process, so the machine runs few examples: 20 machines of 20 steps
under ``deep``, 20 of 10 under ``ci`` (docs/testing-hypothesis.md; ``testkit.profiles.examples``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from testkit.paths import REPO_ROOT
from testkit.pilines import jsonl, message, ts
from testkit.profiles import Steps, examples

from conformance import schemas
from reference.artifacts.ids import operation_id
from reference.artifacts.phases import CRASH_POINTS
from reference.config.defaults import default_config
from reference.pi.leaf import DEFAULT_LEAF
from reference.primitives.clock import ManualClock
from reference.primitives.platform_ops.durable import stale_temporaries
from reference.rebase.crashpoints import CRASH_EXIT_CODE, ENV_VAR
from reference.rebase.host import RebaseHost
from reference.rebase.service import RebaseRequest, RebaseService
from reference.recall.service import HistoryHost, HistoryService

ROOT = REPO_ROOT
SOURCE_ID = "source"
LEAVES = ("task", "answer", "compact", "old")  # one operation per captured leaf
MAX_JOURNAL_BYTES = 32_000
LAST_WRITTEN = {"TargetStaged": "CheckpointReady", "TargetInstalled": "CheckpointReady"}
TARGET_EXISTS_AFTER = ("TargetInstalled", "TargetCreated", "Activated", "Verified")
INSIDE_INSTALL = ("TargetStaged", "TargetInstalled")
INSTALL_POINTS = CRASH_POINTS[: CRASH_POINTS.index("TargetCreated") + 1]
FINGERPRINTED = ("CheckpointReady", "TargetCreated", "Activated", "Verified")








def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class OperationModel:
    """What the model expects of one operation (one captured leaf of the source)."""

    def __init__(self, op: str) -> None:
        self.op = op
        self.phase: str | None = None  # the journal phase, None: no journal
        self.target = False  # the target file exists
        self.temporaries = False  # a process died inside the install, leaving its temporary
        self.staged: bytes | None = None  # the installed bytes [0, targetSize)
        self.inode: int | None = None
        self.appended = 0


class RebaseMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="rebase-sm-"))
        self.project = self.root / "project"
        self.sessions = self.root / "sessions"
        self.home = self.root / "home"
        for folder in (self.project, self.sessions, self.home):
            folder.mkdir()
        self.source = self.sessions / "2025-06-01T12-00-00-000Z_source.jsonl"
        self.source.write_bytes(jsonl([
            {"type": "session", "version": 3, "id": SOURCE_ID, "timestamp": ts(0), "cwd": str(self.project)},
            message("old", None, 1, "user", "LastExportUtc old original decision"),
            message("answer", "old", 2, "assistant", "Noted."),
            {"type": "compaction", "id": "compact", "parentId": "answer", "timestamp": ts(3),
             "summary": "Earlier work summarized", "firstKeptEntryId": "answer", "tokensBefore": 1000},
            message("task", "compact", 4, "user", "Continue the implementation"),
        ]))
        self.source_hash = sha(self.source.read_bytes())
        self.index = self.home / ".pi" / "agent" / "recall-rebase" / "index.sqlite"
        self.clock = ManualClock(1_750_000_000_000)
        self.model = {leaf: OperationModel(operation_id(SOURCE_ID, leaf, self.source_hash)) for leaf in LEAVES}
        self.used_ids = {"old", "answer", "compact", "task"}
        self.second = 10

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # ------------------------------------------------------------------ helpers

    def target(self, leaf: str) -> Path:
        return self.sessions / f"ds4-{self.model[leaf].op}.jsonl"

    def journal_file(self, leaf: str) -> Path:
        return self.sessions / ".ds4-rebase" / "operations" / f"{self.model[leaf].op}.json"

    def journal(self, leaf: str) -> dict[str, Any]:
        record: dict[str, Any] = json.loads(self.journal_file(leaf).read_bytes())
        return record

    def start(self, leaf: str, origin: str) -> Path:
        """Where a recovery starts: the target when asked and present, else the source."""
        return self.target(leaf) if origin == "target" and self.model[leaf].target else self.source

    def in_process(self, leaf: str, *, recover: bool, origin: str = "source", dry_run: bool = False) -> dict[str, Any]:
        self.clock.advance(1000)
        start = self.start(leaf, origin) if recover else self.source
        host = RebaseHost(session_file=str(start), project_path=str(self.project), project_trusted=True,
                          config=default_config(), leaf=leaf if start == self.source else DEFAULT_LEAF)
        service = RebaseService(host, clock=self.clock, index_path=str(self.index))
        return service.rebase(RebaseRequest.of(
            dry_run=dry_run, recover=self.model[leaf].op if recover else None)).result.to_json()

    def child(self, leaf: str, *, recover: bool, origin: str = "source",
              crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
        start = self.start(leaf, origin) if recover else self.source
        env = {k: v for k, v in os.environ.items() if k not in (ENV_VAR, "PI_CODING_AGENT_DIR")}
        env.update(HOME=str(self.home), PYTHONPATH=str(ROOT))
        if crash_at is not None:
            env[ENV_VAR] = crash_at
        args = ["--session", str(start), "--approve", "--json"]
        if start == self.source:
            args += ["--leaf", leaf]
        if recover:
            args += ["--recover", self.model[leaf].op]
        return subprocess.run([sys.executable, "-m", "reference.cli", "rebase", *args], cwd=self.project,
                              env=env, capture_output=True, text=True, timeout=30, check=False)

    def installed(self, leaf: str) -> None:
        """The target now exists: remember its staged bytes and its file identity."""
        model = self.model[leaf]
        target = self.target(leaf)
        if model.staged is None:
            journal = self.journal(leaf)
            model.staged = target.read_bytes()[: journal["targetSize"]]
            model.inode = target.stat().st_ino
        model.target = True

    def verified(self, leaf: str, result: dict[str, Any]) -> None:
        model = self.model[leaf]
        assert result["status"] == "verified", result
        assert result["operationId"] == model.op and result["phase"] == "Verified"
        model.phase = "Verified"
        self.installed(leaf)
        model.temporaries = False

    def expect_refusal(self, leaf: str, result: dict[str, Any], *, recover: bool) -> None:
        model = self.model[leaf]
        if recover:
            assert model.phase is None
            assert result == {"status": "unavailable", "warnings": ["operation-unavailable"]}, result
        else:
            assert model.phase is not None
            assert result["status"] == "unavailable" and result["warnings"] == ["operation-exists-use-recover"]

    # ------------------------------------------------------------------ rules

    @rule(leaf=st.sampled_from(LEAVES), dry_run=st.booleans())
    def rebase(self, leaf: str, dry_run: bool) -> None:
        result = self.in_process(leaf, recover=False, dry_run=dry_run)
        if self.model[leaf].phase is not None:
            self.expect_refusal(leaf, result, recover=False)
        elif dry_run:
            assert result["status"] == "preview" and result["operationId"] == self.model[leaf].op, result
            assert not self.journal_file(leaf).exists()
        else:
            self.verified(leaf, result)

    @rule(leaf=st.sampled_from(LEAVES), point=st.sampled_from(CRASH_POINTS), origin=st.sampled_from(("source", "target")),
          refused=st.integers(0, 9))
    def crash(self, leaf: str, point: str, origin: str, refused: int) -> None:
        """A new run when the operation has no journal yet, else a recovery; one time in ten the
        other, which is refused before any crash point."""
        model = self.model[leaf]
        recover = (model.phase is not None) is (refused != 0)
        done = self.child(leaf, recover=recover, origin=origin, crash_at=point)
        assert "Traceback" not in done.stderr, done.stderr
        refused_early = model.phase is None if recover else model.phase is not None
        if refused_early:
            event("crash: refused before any point")
            assert done.returncode == 3, (done.returncode, done.stderr)
            self.expect_refusal(leaf, json.loads(done.stdout), recover=recover)
            return
        reached = point not in INSTALL_POINTS or not model.target  # an installed target is reused
        event(f"crash: {'recovery' if recover else 'new run'} {'died' if reached else 'completed'}")
        if not reached:
            self.verified(leaf, json.loads(done.stdout))
            assert done.returncode == 0
            return
        assert done.returncode == CRASH_EXIT_CODE, (done.returncode, done.stdout, done.stderr)
        assert done.stdout == ""
        model.phase = LAST_WRITTEN.get(point, point)
        if point in TARGET_EXISTS_AFTER:
            self.installed(leaf)
        if point in INSIDE_INSTALL:
            model.temporaries = True
        elif point in ("Activated", "Verified"):
            model.temporaries = False  # removed once the target was known good

    @rule(pick=st.integers(0, 7), origin=st.sampled_from(("source", "target")), in_process=st.booleans())
    def recover(self, pick: int, origin: str, in_process: bool) -> None:
        """Mostly an operation that is not verified yet (a crash left it), sometimes any leaf
        (a verified one is re-verified; one without a journal is refused)."""
        pending = [leaf for leaf, m in self.model.items() if m.phase not in (None, "Verified")]
        leaf = pending[pick % len(pending)] if pending and pick < 6 else LEAVES[pick % len(LEAVES)]
        model = self.model[leaf]
        had_target = model.target
        if in_process:
            result = self.in_process(leaf, recover=True, origin=origin)
        else:
            done = self.child(leaf, recover=True, origin=origin)
            assert "Traceback" not in done.stderr, done.stderr
            result = json.loads(done.stdout)
            assert done.returncode == (3 if model.phase is None else 0), (done.returncode, done.stderr)
        if model.phase is None:
            event("recover: refused")
            self.expect_refusal(leaf, result, recover=True)
            return
        where = "target" if self.start(leaf, origin) != self.source else "source"
        event(f"recover: from the {where} at {model.phase}" + ("" if had_target else ", no target yet"))
        self.verified(leaf, result)
        if had_target:  # the existing target was reused: the same file, never a second one
            assert self.target(leaf).stat().st_ino == model.inode

    @precondition(lambda self: any(m.target for m in self.model.values()))
    @rule(leaf=st.sampled_from(LEAVES), raw_id=st.integers(0, 2**32 - 1), text=st.text(min_size=1, max_size=40))
    def append_to_target(self, leaf: str, raw_id: int, text: str) -> None:
        if not self.model[leaf].target:
            leaf = next(name for name, m in self.model.items() if m.target)
        entry_id = f"{raw_id:08x}"
        while entry_id in self.used_ids:
            raw_id = (raw_id + 1) % 2**32
            entry_id = f"{raw_id:08x}"
        self.used_ids.add(entry_id)
        target = self.target(leaf)
        last = json.loads(target.read_bytes().splitlines()[-1])["id"]
        self.second += 1
        with target.open("ab") as stream:
            stream.write(jsonl([message(entry_id, last, self.second, "user", text)]))
        self.model[leaf].appended += 1

    @rule()
    def delete_index(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{self.index}{suffix}").unlink(missing_ok=True)
        assert not self.index.exists()

    @precondition(lambda self: any(m.phase == "Verified" for m in self.model.values()))
    @rule(leaf=st.sampled_from(LEAVES))
    def recall(self, leaf: str) -> None:
        if self.model[leaf].phase != "Verified":
            leaf = next(name for name, m in self.model.items() if m.phase == "Verified")
        target = self.target(leaf)
        header = json.loads(target.read_bytes().splitlines()[0])
        host = HistoryHost(session_file=str(target), project_path=str(self.project), project_trusted=True,
                           config=default_config(), session_id=header["id"])
        result = HistoryService(host, index_path=str(self.index), clock=ManualClock(1)).recall(
            {"query": "LastExportUtc original decision", "scope": "current-lineage"}).as_json()
        hits = [(hit["sessionId"], hit["entryId"], hit["relation"]) for hit in result.get("hits", [])]
        assert (SOURCE_ID, "old", "lineage-ancestor") in hits, result

    # ------------------------------------------------------------------ invariants

    @invariant()
    def the_source_never_changes(self) -> None:
        assert sha(self.source.read_bytes()) == self.source_hash

    @invariant()
    def targets_are_exactly_the_installed_ones(self) -> None:
        expected = sorted(self.target(leaf) for leaf, m in self.model.items() if m.target)
        assert sorted(self.sessions.glob("ds4-*.jsonl")) == expected
        for leaf, model in self.model.items():
            if model.target:
                target = self.target(leaf)
                assert model.staged is not None and target.read_bytes()[: len(model.staged)] == model.staged
                assert target.stat().st_ino == model.inode
                assert target.read_bytes().count(b"\n") == 4 + model.appended

    @invariant()
    def no_temporary_outlives_a_recovery(self) -> None:
        allowed: set[Path] = set()
        for leaf, model in self.model.items():
            left = stale_temporaries(self.target(leaf))
            assert bool(left) is model.temporaries, (leaf, left)
            allowed.update(left)
        assert set(self.root.rglob("*.tmp")) == allowed

    @invariant()
    def every_journal_is_valid_bounded_and_as_expected(self) -> None:
        operations = self.sessions / ".ds4-rebase" / "operations"
        names = sorted(p.name for p in operations.iterdir()) if operations.exists() else []
        assert names == sorted(f"{m.op}.json" for m in self.model.values() if m.phase is not None)
        for leaf, model in self.model.items():
            if model.phase is None:
                continue
            data = self.journal_file(leaf).read_bytes()
            assert len(data) <= MAX_JOURNAL_BYTES and not data.endswith(b"\n")
            journal = json.loads(data)
            assert schemas.errors(journal, "rebase/journal.schema.json") == []
            assert journal["id"] == model.op and journal["sourceLeafId"] == leaf
            assert journal["phase"] == model.phase
            assert journal["sourceHash"] == self.source_hash
            if journal["phase"] in FINGERPRINTED and model.target:
                prefix = self.target(leaf).read_bytes()[: journal["targetSize"]]
                assert len(prefix) == journal["targetSize"] and sha(prefix) == journal["targetHash"]
                assert prefix == model.staged


RebaseMachine.TestCase.settings = examples(
    deep=20, ci=20, steps=Steps(deep=20, ci=10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestRebaseStateMachine = RebaseMachine.TestCase
