"""The rebase orchestrator in process (contract §6.5-§6.11, §7.2 cases 1-5; decisions D8, D9).

Real temporary folders, real files and a real SQLite projection index; no process exits here
(``test_rebase_crash.py`` owns those).  An interruption is simulated by making
``crashpoints.reached`` raise ``ContractViolation('simulated-crash')`` at a chosen phase, which
is what upstream's ``afterPhase`` hook does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from testkit.pilines import jsonl, message, sha, ts

from conformance import schemas
from reference.artifacts.checkpoint import CHECKPOINT_TYPE, HANDOFF_TYPE, LINK_TYPE
from reference.artifacts.ids import checkpoint_id, operation_id
from reference.config.defaults import default_config
from reference.lineage.chain import load_rebase_state
from reference.primitives.clock import ManualClock
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify
from reference.rebase import crashpoints
from reference.rebase import service as rebase_module
from reference.rebase.archive import SourceArchive
from reference.rebase.host import RebaseHost, open_from_disk
from reference.rebase.service import RebaseRequest, RebaseService
from reference.recall.service import HistoryHost, HistoryService

SOURCE_ID = "source"
CREATED = 1_750_000_000_000
PHASES = ("Prepared", "ArchiveVerified", "CheckpointReady", "TargetCreated", "Activated", "Verified")
LIMITATIONS = ["deterministic-handoff", "verification-not-inferred", "older-state-requires-recall"]






def upstream_source(cwd: Path, *, task_text: str = "Continue the implementation") -> list[dict[str, Any]]:
    """The §7.2 fixture: old, answer, a compaction keeping answer, then task."""
    return [
        {"type": "session", "version": 3, "id": SOURCE_ID, "timestamp": ts(0), "cwd": str(cwd)},
        message("old", None, 1, "user", "LastExportUtc old original decision"),
        message("answer", "old", 2, "assistant", "Noted."),
        {"type": "compaction", "id": "compact", "parentId": "answer", "timestamp": ts(3),
         "summary": "Earlier work summarized", "firstKeptEntryId": "answer", "tokensBefore": 1000},
        message("task", "compact", 4, "user", task_text),
    ]






def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class SimulatedCrash:
    """``crashpoints.reached`` that raises at one point (upstream's throwing ``afterPhase`` hook)."""

    def __init__(self, point: str | None) -> None:
        self.point = point
        self.seen: list[str] = []

    def __call__(self, point: str) -> None:
        self.seen.append(point)
        if point == self.point:
            raise ContractViolation("simulated-crash", f"simulated crash after {point}")


@dataclass
class World:
    """A project folder, a sessions folder beside it holding the source, and one index."""

    root: Path
    project: Path
    sessions: Path
    source: Path
    index: Path
    clock: ManualClock

    def host(self, session_file: Path | None = None, **facts: Any) -> RebaseHost:
        config = facts.pop("config", None) or default_config()
        return RebaseHost(session_file=str(session_file or self.source), project_path=str(self.project),
                          project_trusted=True, config=config, **facts)

    def service(self, host: RebaseHost | None = None) -> RebaseService:
        return RebaseService(host or self.host(), clock=self.clock, index_path=str(self.index))

    def run(self, session_file: Path | None = None, *, recover: str | None = None, dry_run: bool = False,
            **facts: Any) -> tuple[dict[str, Any], RebaseHost]:
        self.clock.advance(1000)
        host = self.host(session_file, **facts)
        result = self.service(host).rebase(RebaseRequest.of(dry_run=dry_run, recover=recover)).result.to_json()
        return result, host

    @property
    def operations(self) -> Path:
        return self.sessions / ".ds4-rebase" / "operations"

    def journal(self, op: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.operations / f"{op}.json").read_bytes())
        return data

    def write_journal(self, op: str, record: dict[str, Any]) -> None:
        (self.operations / f"{op}.json").write_bytes(js_stringify(record).encode("utf-8"))

    def targets(self) -> list[Path]:
        return sorted(self.sessions.glob("ds4-rebase_*.jsonl"))

    def target(self, op: str) -> Path:
        return self.sessions / f"ds4-{op}.jsonl"

    def temporaries(self) -> list[Path]:
        return sorted(p for p in self.sessions.rglob("*.tmp"))


def make_world(tmp_path: Path, records: list[dict[str, Any]] | None = None) -> World:
    project = tmp_path / "project"
    sessions = tmp_path / "sessions"
    project.mkdir()
    sessions.mkdir()
    source = sessions / "2025-06-01T12-00-00-000Z_source.jsonl"
    source.write_bytes(jsonl(records or upstream_source(project)))
    return World(tmp_path, project, sessions, source, tmp_path / "agent" / "index.sqlite", ManualClock(CREATED))


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


@pytest.fixture
def crash_at(monkeypatch: pytest.MonkeyPatch) -> Callable[[str | None], SimulatedCrash]:
    def arm(point: str | None) -> SimulatedCrash:
        hook = SimulatedCrash(point)
        monkeypatch.setattr(crashpoints, "reached", hook)
        return hook
    return arm


def the_operation(world: World) -> str:
    return operation_id(SOURCE_ID, "task", sha(world.source))


def interrupted(world: World, crash_at: Callable[[str | None], SimulatedCrash], phase: str) -> str:
    """A run interrupted right after ``phase`` (then disarmed): the operation id."""
    crash_at(phase)
    world.run()
    crash_at(None)
    return the_operation(world)


def count_types(target: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in lines(target)[1:]:
        key = record.get("customType") or record["type"]
        counts[key] = counts.get(key, 0) + 1
    return counts


def recall_from(world: World, target: Path, query: str, scope: str) -> dict[str, Any]:
    header = lines(target)[0]
    host = HistoryHost(session_file=str(target), project_path=str(world.project), project_trusted=True,
                       config=default_config(), session_id=header["id"])
    return HistoryService(host, index_path=str(world.index), clock=ManualClock(1)).recall(
        {"query": query, "scope": scope}).as_json()


# ----------------------------------------------------------------------------------------------
# §7.2 case 1: dry run, then the real run


def test_dry_run_writes_nothing_then_the_run_verifies_a_linked_target(world: World) -> None:
    before = sha(world.source)
    preview, _ = world.run(dry_run=True)
    op = the_operation(world)
    assert preview["status"] == "preview"
    assert preview["operationId"] == op
    assert preview["checkpointId"] == checkpoint_id(SOURCE_ID, "task", before)
    assert preview["sourceEntries"] == 4 and preview["sourceBytes"] == world.source.stat().st_size
    assert preview["warnings"] == LIMITATIONS
    assert not world.operations.exists()
    assert world.targets() == []
    assert schemas.errors(preview, "rebase/rebase-result.schema.json") == []

    result, host = world.run()
    assert result["status"] == "verified", result
    assert result["operationId"] == op and result["phase"] == "Verified" and result["sessionReplaced"] is True
    assert {k: v for k, v in result.items() if k not in ("status", "phase", "sessionReplaced")} == {
        k: v for k, v in preview.items() if k != "status"}
    assert schemas.errors(result, "rebase/rebase-result.schema.json") == []
    assert sha(world.source) == before
    target = world.target(op)
    assert world.targets() == [target]
    assert host.session_file == str(target)  # the host switched to the target
    assert [level for level, _ in host.notifications] == ["info"]
    assert op in host.notifications[0][1]

    header = lines(target)[0]
    assert header["parentSession"] == str(world.source.resolve())
    assert header["version"] == 3 and header["cwd"] == str(world.project.resolve())
    state = load_rebase_state(str(target), open_from_disk(str(target)).branch, str(world.project))
    assert state.warnings == []
    assert state.checkpoint is not None and state.checkpoint["verificationState"] == "unknown"
    assert [s.session_id for s in state.sources] == [SOURCE_ID]
    assert state.sources[0].allowed_entry_ids == {"old", "answer", "compact", "task"}
    assert world.journal(op)["phase"] == "Verified"


def test_the_result_never_holds_the_source_path_or_a_message_body(world: World) -> None:
    preview, _ = world.run(dry_run=True)
    result, _ = world.run()
    for value in (preview, result):
        text = js_stringify(value)
        assert str(world.source) not in text and str(world.source.resolve()) not in text
        assert str(world.sessions) not in text and str(world.project) not in text
        assert "LastExportUtc" not in text and "Continue the implementation" not in text


def test_recall_from_the_target_in_current_lineage_finds_the_archived_original(world: World) -> None:
    result, _ = world.run()
    target = world.target(result["operationId"])
    # "old" was cut from the compaction-aware context, so the handoff does not quote it
    assert "LastExportUtc" not in target.read_text(encoding="utf-8")
    found = recall_from(world, target, "LastExportUtc original decision", "current-lineage")
    assert found["status"] in ("complete", "partial"), found
    hits = {(hit["sessionId"], hit["entryId"]): hit for hit in found["hits"]}
    assert (SOURCE_ID, "old") in hits, found
    assert hits[(SOURCE_ID, "old")]["relation"] == "lineage-ancestor"
    # current-branch stays inside the target
    own = recall_from(world, target, "LastExportUtc original decision", "current-branch")
    assert all(hit["sessionId"] != SOURCE_ID for hit in own.get("hits", []))


# ----------------------------------------------------------------------------------------------
# §7.2 case 2: six interruption points, then recovery (twice)


@pytest.mark.parametrize("phase", PHASES)
def test_an_interruption_after_each_phase_is_recoverable_then_verified(
    world: World, crash_at: Callable[[str | None], SimulatedCrash], phase: str
) -> None:
    before = sha(world.source)
    hook = crash_at(phase)
    result, host = world.run()
    op = the_operation(world)
    assert result == {"status": "recoverable", "operationId": op, "phase": "Recoverable",
                      "sessionReplaced": phase in ("Activated", "Verified"), "warnings": ["simulated-crash"],
                      "toolExchangeDiagnostics": {"activeIssueCount": 0, "historicalIssueCount": 0}}
    assert hook.seen[-1] == phase
    journal = world.journal(op)
    assert journal["phase"] == "Recoverable" and journal["errorCode"] == "simulated-crash"
    assert schemas.errors(journal, "rebase/journal.schema.json") == []
    if phase in ("Activated", "Verified"):
        assert host.notifications[-1][0] == "warning" and "Do not delete the source" in host.notifications[-1][1]
        assert host.session_file == str(world.target(op))
    assert world.temporaries() == []

    crash_at(None)
    # recover from wherever the host is now: the source, or the target it switched to
    current = Path(host.session_file) if host.session_file else world.source
    recovered, recovered_host = world.run(current, recover=op)
    assert recovered["status"] == "verified", recovered
    assert recovered["operationId"] == op and recovered["sessionReplaced"] is True
    assert recovered_host.session_file == str(world.target(op))
    target_bytes = world.target(op).read_bytes()
    again, _ = world.run(recover=op)
    assert again == recovered
    assert world.target(op).read_bytes() == target_bytes
    assert sha(world.source) == before
    assert world.targets() == [world.target(op)]
    counts = count_types(world.target(op))
    assert counts == {CHECKPOINT_TYPE: 1, LINK_TYPE: 1, HANDOFF_TYPE: 1}
    journal = world.journal(op)
    assert journal["phase"] == "Verified"
    assert journal["errorCode"] == "simulated-crash"  # never removed (schema note)
    assert schemas.errors(journal, "rebase/journal.schema.json") == []


@pytest.mark.parametrize("point", ["TargetStaged", "TargetInstalled"])
def test_an_interruption_inside_the_install_leaves_no_temporary_and_recovers(
    world: World, crash_at: Callable[[str | None], SimulatedCrash], point: str
) -> None:
    crash_at(point)
    result, _ = world.run()
    op = the_operation(world)
    assert result["status"] == "recoverable" and result["warnings"] == ["simulated-crash"]
    assert world.temporaries() == []  # an exception (unlike a process death) cleans up its temporary
    assert world.target(op).exists() is (point == "TargetInstalled")
    crash_at(None)
    recovered, _ = world.run(recover=op)
    assert recovered["status"] == "verified", recovered
    assert world.targets() == [world.target(op)]


# ----------------------------------------------------------------------------------------------
# §7.2 case 3: changed staged bytes


def rewrite_checkpoint_timestamp(target: Path) -> None:
    records = lines(target)
    checkpoint = next(r for r in records if r.get("customType") == CHECKPOINT_TYPE)
    assert checkpoint["timestamp"] != "2000-01-01T00:00:00.000Z"
    checkpoint["timestamp"] = "2000-01-01T00:00:00.000Z"
    target.write_bytes(jsonl(records))


@pytest.mark.parametrize("phase", ["TargetCreated", "Verified"])
def test_changed_staged_bytes_fail_recovery_with_target_integrity_though_lineage_verifies(
    world: World, crash_at: Callable[[str | None], SimulatedCrash], phase: str
) -> None:
    before = sha(world.source)
    crash_at(phase)
    world.run()
    crash_at(None)
    op = the_operation(world)
    target = world.target(op)
    size = target.stat().st_size
    rewrite_checkpoint_timestamp(target)
    assert target.stat().st_size == size
    state = load_rebase_state(str(target), open_from_disk(str(target)).branch, str(world.project))
    assert state.verified and state.warnings == []
    changed = target.read_bytes()

    result, _ = world.run(target, recover=op)
    assert result["status"] == "recoverable" and result["warnings"] == ["target-integrity"], result
    assert world.journal(op)["phase"] == "Recoverable" and world.journal(op)["errorCode"] == "target-integrity"
    assert target.read_bytes() == changed  # reported, never repaired
    assert world.targets() == [target]
    assert sha(world.source) == before
    from_source, _ = world.run(recover=op)
    assert from_source["warnings"] == ["target-integrity"]


# ----------------------------------------------------------------------------------------------
# §7.2 case 4: the journal rewritten to CheckpointReady


def test_a_journal_rewritten_to_checkpoint_ready_still_recovers_onto_the_installed_target(
    world: World, crash_at: Callable[[str | None], SimulatedCrash]
) -> None:
    op = interrupted(world, crash_at, "TargetCreated")
    target = world.target(op)
    journal = world.journal(op)
    assert journal["targetSize"] == target.stat().st_size
    assert journal["targetHash"] == sha(target)
    journal["phase"] = "CheckpointReady"
    world.write_journal(op, journal)
    target_bytes = target.read_bytes()
    inode = target.stat().st_ino

    result, _ = world.run(recover=op)
    assert result["status"] == "verified", result
    assert target.read_bytes() == target_bytes and target.stat().st_ino == inode
    assert world.targets() == [target]
    assert world.journal(op)["phase"] == "Verified"


# ----------------------------------------------------------------------------------------------
# §7.2 case 5: append-only continuation


def test_recovery_after_an_append_to_the_target_verifies_and_changes_no_byte(world: World) -> None:
    result, _ = world.run()
    op = result["operationId"]
    target = world.target(op)
    last = lines(target)[-1]["id"]
    with target.open("ab") as stream:
        stream.write(jsonl([message("a1b2c3d4", last, 9, "user", "Next step please")]))
    target_bytes, source_bytes = target.read_bytes(), world.source.read_bytes()

    recovered, host = world.run(target, recover=op)
    assert recovered["status"] == "verified", recovered
    assert host.session_file == str(target)  # the same target stays active
    assert target.read_bytes() == target_bytes
    assert world.source.read_bytes() == source_bytes
    assert world.targets() == [target]
    journal = world.journal(op)
    assert journal["phase"] == "Verified" and journal["targetSize"] < len(target_bytes)


def test_a_plain_rerun_on_the_unchanged_source_is_told_to_recover(world: World) -> None:
    first, _ = world.run()
    again, _ = world.run()
    assert again["status"] == "unavailable" and again["warnings"] == ["operation-exists-use-recover"]
    dry, _ = world.run(dry_run=True)
    assert dry["warnings"] == ["operation-exists-use-recover"]
    assert world.journal(first["operationId"])["phase"] == "Verified"


# ----------------------------------------------------------------------------------------------
# D8: a failed checkpoint writes no journal


def test_a_checkpoint_over_budget_writes_nothing_and_a_bigger_budget_then_succeeds(tmp_path: Path) -> None:
    project = tmp_path / "project"
    records = upstream_source(project, task_text="Continue the implementation " + "y" * 4000)
    world = make_world(tmp_path, records)
    before = sha(world.source)
    config = default_config()
    config["sessionRebase"]["checkpointTargetTokens"] = 512
    for dry_run in (True, False):
        result, host = world.run(dry_run=dry_run, config=config)
        assert result["status"] == "unavailable" and result["warnings"] == ["checkpoint-budget"], result
        assert not world.operations.exists()
        assert world.targets() == [] and world.temporaries() == []
        assert host.session_file == str(world.source)
    config["sessionRebase"]["checkpointTargetTokens"] = 8000
    result, _ = world.run(config=config)
    assert result["status"] == "verified", result
    assert result["checkpointTokens"] > 512
    assert sha(world.source) == before
    assert [p.name for p in world.operations.iterdir()] == [f"{result['operationId']}.json"]


# ----------------------------------------------------------------------------------------------
# the source moving under the run


def test_the_source_changing_between_capture_and_prefix_check_is_archive_changed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = rebase_module.capture_source

    def capture_then_edit(path: str, project_path: str, leaf_id: Any, *scans: Any) -> SourceArchive:
        archive = original(path, project_path, leaf_id, *scans)
        data = Path(path).read_bytes()
        Path(path).write_bytes(data.replace(b"original decision", b"modified decision"))
        return archive

    monkeypatch.setattr(rebase_module, "capture_source", capture_then_edit)
    result, _ = world.run()
    assert result["status"] == "unavailable" and result["warnings"] == ["archive-changed"], result
    assert not world.operations.exists()
    assert world.targets() == []


def test_the_source_growing_between_capture_and_prefix_check_rebases_the_captured_prefix(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Growth keeps the captured prefix (§6.2 step 24 checks a prefix): the operation covers
    exactly what was captured, and the appended entry stays only in the source."""
    original = rebase_module.capture_source
    captured: list[int] = []

    def capture_then_append(path: str, project_path: str, leaf_id: Any, *scans: Any) -> SourceArchive:
        archive = original(path, project_path, leaf_id, *scans)
        captured.append(archive.scan.size)
        with open(path, "ab") as stream:
            stream.write(jsonl([message("late0001", "task", 5, "user", "written while the rebase ran")]))
        return archive

    monkeypatch.setattr(rebase_module, "capture_source", capture_then_append)
    result, _ = world.run()
    assert result["status"] == "verified", result
    assert result["sourceBytes"] == captured[0] < world.source.stat().st_size
    journal = world.journal(result["operationId"])
    assert journal["sourceSize"] == captured[0] and journal["sourceLeafId"] == "task"
    assert "written while the rebase ran" not in world.target(result["operationId"]).read_text(encoding="utf-8")


def test_the_source_changing_before_the_switch_is_archive_changed_and_recoverable(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """§6.9 "before switching" step 1: the source prefix is checked again after the install."""

    def edit_after_install(point: str) -> None:
        if point == "TargetCreated":
            world.source.write_bytes(world.source.read_bytes().replace(b"Noted.", b"Nope!!"))

    monkeypatch.setattr(crashpoints, "reached", edit_after_install)
    result, host = world.run()
    assert result["status"] == "recoverable" and result["warnings"] == ["archive-changed"], result
    assert result["sessionReplaced"] is False and host.session_file == str(world.source)
    assert world.journal(result["operationId"])["errorCode"] == "archive-changed"


def test_the_source_changing_during_activation_fails_the_fresh_lineage_check(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """§6.9 inside the fresh context: lineage (which re-hashes the source prefix) is verified
    before the separate prefix re-check, so the failure is ``target-integrity``, after the switch."""
    original = RebaseHost.switch_session

    def switch_then_edit(self: RebaseHost, target_file: str) -> Any:
        world.source.write_bytes(world.source.read_bytes().replace(b"Noted.", b"Nope!!"))
        return original(self, target_file)

    monkeypatch.setattr(RebaseHost, "switch_session", switch_then_edit)
    result, host = world.run()
    assert result["status"] == "recoverable" and result["warnings"] == ["target-integrity"], result
    assert result["sessionReplaced"] is True
    assert host.notifications[-1][0] == "warning"
    journal = world.journal(result["operationId"])
    assert journal["phase"] == "Recoverable" and journal["errorCode"] == "target-integrity"


# ----------------------------------------------------------------------------------------------
# recovery refuses a target that belongs to another checkpoint


def test_recovery_refuses_a_target_whose_checkpoint_is_another_operations(
    world: World, crash_at: Callable[[str | None], SimulatedCrash]
) -> None:
    first, _ = world.run()  # operation A at leaf "task"
    target_a = world.target(first["operationId"])
    crash_at("CheckpointReady")
    second, _ = world.run(leaf="answer")  # operation B at leaf "answer", interrupted before install
    crash_at(None)
    op_b = second["operationId"]
    assert op_b != first["operationId"] and not world.target(op_b).exists()
    # B's target name now holds A's complete, lineage-valid target, with a matching fingerprint
    target_b = world.target(op_b)
    target_b.write_bytes(target_a.read_bytes())
    journal = world.journal(op_b)
    journal.update(targetHash=sha(target_b), targetSize=target_b.stat().st_size)
    world.write_journal(op_b, journal)
    state = load_rebase_state(str(target_b), open_from_disk(str(target_b)).branch, str(world.project))
    assert state.verified and state.checkpoint is not None
    assert state.checkpoint["id"] != checkpoint_id(SOURCE_ID, "answer", sha(world.source))
    copied = target_b.read_bytes()

    result, _ = world.run(recover=op_b, leaf="answer")
    assert result["status"] == "recoverable" and result["warnings"] == ["target-integrity"], result
    assert target_b.read_bytes() == copied
    assert world.targets() == sorted([target_a, target_b])


def test_recovery_of_an_unknown_or_malformed_operation(world: World) -> None:
    missing, _ = world.run(recover="rebase_" + "0" * 32)
    assert missing == {"status": "unavailable", "warnings": ["operation-unavailable"]}
    bad, _ = world.run(recover="rebase_XYZ")
    assert bad == {"status": "unavailable", "warnings": ["invalid-operation"]}
    assert world.targets() == []


def test_a_journal_naming_another_target_session_fails_activation_with_target_identity(
    world: World, crash_at: Callable[[str | None], SimulatedCrash]
) -> None:
    op = interrupted(world, crash_at, "TargetCreated")
    journal = world.journal(op)
    journal["targetSessionId"] = "00000000-0000-4000-8000-000000000000"
    world.write_journal(op, journal)
    result, _ = world.run(recover=op)
    assert result["status"] == "recoverable" and result["warnings"] == ["target-identity"], result
    assert result["sessionReplaced"] is False


def test_a_cancelled_switch_is_activation_cancelled_and_the_next_recovery_activates(world: World) -> None:
    result, host = world.run(activation="cancel")
    op = the_operation(world)
    assert result["status"] == "recoverable" and result["warnings"] == ["activation-cancelled"], result
    assert host.session_file == str(world.source)
    assert world.journal(op)["phase"] == "Recoverable"
    target_bytes = world.target(op).read_bytes()
    recovered, host = world.run(recover=op)
    assert recovered["status"] == "verified" and host.session_file == str(world.target(op))
    assert world.target(op).read_bytes() == target_bytes


def test_the_lock_is_released_after_every_outcome(
    world: World, crash_at: Callable[[str | None], SimulatedCrash]
) -> None:
    from reference.rebase.lock import RebaseLock

    crash_at("ArchiveVerified")
    world.run()
    crash_at(None)
    with RebaseLock(world.source):  # the failed run let go
        busy, _ = world.run(recover=the_operation(world))
    assert busy["status"] == "unavailable" and busy["warnings"] == ["rebase-busy"]
    assert world.journal(the_operation(world))["phase"] == "Recoverable"  # busy writes nothing
    recovered, _ = world.run(recover=the_operation(world))
    assert recovered["status"] == "verified"


def test_the_projection_index_follows_the_journal_and_is_never_needed(world: World) -> None:
    import sqlite3

    result, _ = world.run()
    op = result["operationId"]
    conn = sqlite3.connect(world.index)
    try:
        assert conn.execute("SELECT phase FROM rebase_operations WHERE operation_id = ?", (op,)).fetchone() == (
            "Verified",)
        assert conn.execute("SELECT count(*) FROM session_lineage").fetchone() == (1,)
    finally:
        conn.close()
    world.index.unlink()
    recovered, _ = world.run(world.target(op), recover=op)
    assert recovered["status"] == "verified"
    assert world.index.exists()


# ----------------------------------------------------------------------------------------------
# §6.11 step 3: the source may grow; only its captured prefix must hold


def append_to_source(world: World) -> None:
    with world.source.open("ab") as stream:
        stream.write(jsonl([message("late0001", "task", 5, "user", "a later turn in the source")]))


def test_recovery_onto_an_installed_target_accepts_a_source_that_grew(
    world: World, crash_at: Callable[[str | None], SimulatedCrash]
) -> None:
    op = interrupted(world, crash_at, "TargetCreated")
    append_to_source(world)
    grown = world.source.read_bytes()
    result, _ = world.run(recover=op)
    assert result["status"] == "verified", result
    assert world.source.read_bytes() == grown
    assert world.journal(op)["sourceSize"] < len(grown)


def test_rebuilding_a_missing_target_refuses_a_source_that_moved(
    world: World, crash_at: Callable[[str | None], SimulatedCrash]
) -> None:
    op = interrupted(world, crash_at, "CheckpointReady")
    append_to_source(world)
    result, _ = world.run(recover=op, leaf="task")
    assert result["status"] == "recoverable", result
    assert result["warnings"] == ["source-moved-before-checkpoint"]
    assert world.targets() == []
    assert world.journal(op)["errorCode"] == "source-moved-before-checkpoint"


def test_a_symlink_alias_is_the_same_operation_with_the_canonical_path(world: World) -> None:
    alias = world.root / "alias.jsonl"
    alias.symlink_to(world.source)
    preview, _ = world.run(alias, dry_run=True)
    assert preview["operationId"] == the_operation(world)
    result, host = world.run(alias)
    assert result["status"] == "verified", result
    journal = world.journal(result["operationId"])
    assert host.session_file == journal["targetSessionFile"]
    assert journal["sourceSessionFile"] == str(world.source.resolve())
    assert journal["targetSessionFile"] == str(world.target(result["operationId"]).resolve())
    assert not list(world.root.glob("ds4-*.jsonl"))  # the target sits beside the real file
    again, _ = world.run(world.source)
    assert again["warnings"] == ["operation-exists-use-recover"]
    recovered, _ = world.run(alias, recover=result["operationId"])
    assert recovered["status"] == "verified"


def test_a_session_named_through_a_symlinked_folder_rebases_as_by_its_real_path(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The captured leaf of a source named through a symlink is the archive's (issue 13 item 5: the
    file is not read again whole), and every answer is the one for its real path."""
    from reference.rebase import target as rebase_target

    linked = world.root / "linked"
    linked.symlink_to(world.sessions, target_is_directory=True)
    by_link = linked / world.source.name
    preview_real, _ = world.run(dry_run=True)

    def whole_read(path: Any) -> Any:
        raise AssertionError(f"the source was read again whole: {path}")

    monkeypatch.setattr(rebase_target, "load_session", whole_read)
    preview_link, _ = world.run(by_link, dry_run=True)
    assert preview_link == preview_real
    result, _ = world.run(by_link)
    assert result["status"] == "verified" and result["operationId"] == preview_real["operationId"]


def test_an_index_that_does_not_open_never_blocks_a_run(world: World) -> None:
    """The projection is optional: an index path that cannot be opened (a folder) is no index."""
    world.index.unlink(missing_ok=True)
    world.index.mkdir(parents=True)
    result, _ = world.run()
    assert result["status"] == "verified", result
