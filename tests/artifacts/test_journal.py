"""The rebase journal: fields and their order, phases, the 32,000-byte limit, the recovery codes of
§6.2 steps 11-13 and 25, and the RebaseResult shapes (contract §6.1, §6.5, §6.10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.schemas import describe, errors
from reference.artifacts.checkpoint import LIMITATIONS
from reference.artifacts.ids import ProjectPaths, RebaseSource, operation_id
from reference.artifacts.journal import (
    MAX_JOURNAL_BYTES,
    WRITE_ORDER,
    check_journal,
    check_source_session,
    encode_journal,
    failure_code,
    load_journal,
    new_operation,
    parse_journal,
    preview_result,
    recoverable_result,
    unavailable_result,
    verified_result,
)
from reference.artifacts.phases import FINGERPRINTED_PHASES, PHASES
from reference.pi.exact.toolexchange import ToolExchangeDiagnostics
from reference.primitives.clock import ManualClock
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify
from reference.rebase.operation_journal import OperationJournal

SOURCE = "/home/u/.pi/agent/sessions/--home-u-proj--/2025-06-01T12-00-00-000Z_s1.jsonl"
PROJECT = "/home/u/proj"
HASH = "ab" * 32
TARGET_HASH = "cd" * 32


def operation(**overrides: Any) -> dict[str, Any]:
    args: dict[str, Any] = dict(
        project_path=PROJECT, source_session_id="s1", source_session_file=SOURCE, source_leaf_id="e4",
        source_size=1234, source_hash=HASH, target_session_id="0190d7a0-0000-7000-8000-000000000001",
        now_ms=1_750_000_000_000,
    )
    args.update(overrides)
    source = RebaseSource(*(args.pop(f"source_{key}") for key in ("session_id", "leaf_id", "size", "hash")))
    return new_operation(source, **args)


def schema_problems(record: Any, ref: str = "rebase/journal.schema.json") -> list[str]:
    return [describe(e) for e in errors(record, ref)]


class Recorder:
    """A writer that keeps every durable write in memory."""

    def __init__(self) -> None:
        self.writes: list[tuple[Path, bytes]] = []

    def __call__(self, path: Path, data: bytes) -> None:
        self.writes.append((path, data))


def journal_of(record: dict[str, Any], now: int = 1, writer: Recorder | None = None) -> OperationJournal:
    """The journal's one writer on ``record``, writing to a recorder instead of a disk."""
    journal = OperationJournal(ManualClock(now), None, writer or Recorder())
    journal.adopt(record, persisted=True)
    return journal


def with_phase(record: dict[str, Any], phase: str, now: int) -> dict[str, Any]:
    journal = journal_of(record, now)
    journal.write(phase)  # type: ignore[arg-type]  # a str: the writer checks it is a journal phase
    return journal.operation


def with_failure(record: dict[str, Any], code: str, now: int) -> dict[str, Any]:
    return journal_of(record, now).fail(code)


def with_target_fingerprint(record: dict[str, Any], target_hash: str, target_size: int) -> dict[str, Any]:
    journal = journal_of(record)
    journal.fingerprint(target_hash, target_size)
    return journal.operation


def code_of(call: Any) -> str:
    with pytest.raises(ContractViolation) as caught:
        call()
    return caught.value.code


# ----------------------------------------------------------------------------------------------
# the record and its bytes


def test_a_new_operation_has_every_field_in_the_written_order() -> None:
    record = operation()
    assert list(record) == list(WRITE_ORDER[:13])
    assert record["schemaVersion"] == 1 and record["phase"] == "Prepared"
    assert record["id"] == operation_id("s1", "e4", HASH)
    assert record["targetSessionFile"] == str(Path(SOURCE).parent / f"ds4-{record['id']}.jsonl")
    assert record["createdAt"] == record["updatedAt"] == 1_750_000_000_000
    assert schema_problems(record) == []


def test_the_phase_sequence_writes_durably_and_keeps_the_order() -> None:
    writer = Recorder()
    now = 1_750_000_000_000
    journal = journal_of(operation(), now, writer)
    assert isinstance(journal.clock, ManualClock)
    for phase in PHASES:
        if phase == "CheckpointReady":
            journal.fingerprint(TARGET_HASH, 5000)
        now += 1
        journal.clock.set(now)
        journal.write(phase)
        assert schema_problems(journal.record) == []
    record = journal.operation
    assert [json.loads(data)["phase"] for _, data in writer.writes] == list(PHASES)
    assert {path for path, _ in writer.writes} == {journal.path}
    assert journal.path == Path(SOURCE).parent / ".ds4-rebase" / "operations" / f"{record['id']}.json"
    last = writer.writes[-1][1]
    assert not last.endswith(b"\n")
    assert last == js_stringify(record).encode()
    assert list(json.loads(last)) == list(WRITE_ORDER[:15])
    assert json.loads(last)["updatedAt"] == now
    # The fingerprint is in the CheckpointReady write itself, before any target is installed.
    assert json.loads(writer.writes[2][1])["targetHash"] == TARGET_HASH


def test_fingerprinted_phases_need_the_fingerprint_and_recoverable_needs_a_code() -> None:
    for phase in FINGERPRINTED_PHASES:
        assert schema_problems(with_phase(operation(), phase, 1))
    failed = with_failure(operation(), "checkpoint-budget", 2)
    assert failed["phase"] == "Recoverable" and list(failed)[-1] == "errorCode"
    assert schema_problems(failed) == []
    no_code = dict(failed)
    del no_code["errorCode"]
    assert schema_problems(no_code)


def test_a_recovered_journal_keeps_its_own_order_and_its_error_code() -> None:
    # Failed before any fingerprint, then recovered: errorCode comes before the fingerprint.
    failed = with_failure(operation(), "archive-changed", 2)
    reread = parse_journal(encode_journal(failed))
    recovered = with_phase(with_target_fingerprint(with_phase(reread, "Prepared", 3), TARGET_HASH, 10), "Verified", 4)
    assert list(recovered)[-3:] == ["errorCode", "targetHash", "targetSize"]
    assert recovered["errorCode"] == "archive-changed"  # upstream never clears it
    assert schema_problems(recovered) == []


def test_only_written_phases_are_accepted() -> None:
    with pytest.raises(ValueError):
        with_phase(operation(), "Failed", 1)
    assert schema_problems({**operation(), "phase": "Failed"})


def test_the_journal_size_limit_is_32000_bytes() -> None:
    base = len(encode_journal(operation()))
    fits = operation(project_path=PROJECT + "x" * (MAX_JOURNAL_BYTES - base))
    assert len(encode_journal(fits)) == MAX_JOURNAL_BYTES
    over = operation(project_path=PROJECT + "x" * (MAX_JOURNAL_BYTES - base + 1))
    assert code_of(lambda: encode_journal(over)) == "rebase-unavailable"
    assert parse_journal(encode_journal(fits))["projectPath"] == fits["projectPath"]
    assert code_of(lambda: parse_journal(js_stringify(over).encode())) == "operation-unavailable"
    # The limit counts UTF-8 bytes, not characters.
    wide = operation(project_path="é" * ((MAX_JOURNAL_BYTES - base) // 2 + 10))
    assert code_of(lambda: encode_journal(wide)) == "rebase-unavailable"


# ----------------------------------------------------------------------------------------------
# reading it back: §6.2 steps 11-13 and 25


def load(data: bytes | None, *, requested: str | None = None, source: str = SOURCE, project: str = PROJECT) -> Any:
    record = operation()
    return load_journal(
        data, requested_id=requested or record["id"], source_file=source,
        project=ProjectPaths(project, canonical=lambda p: p.rstrip("/"), cwd="/"),
    )


def test_a_good_journal_loads() -> None:
    data = encode_journal(operation())
    assert load(data) == operation()


def test_the_operation_id_is_checked_first() -> None:
    assert code_of(lambda: load(None, requested="rebase_XYZ")) == "invalid-operation"


def test_missing_oversize_and_non_json_journals() -> None:
    assert code_of(lambda: load(None)) == "operation-unavailable"
    assert code_of(lambda: load(b" " * (MAX_JOURNAL_BYTES + 1))) == "operation-unavailable"
    assert code_of(lambda: load(b"{\"id\":")) == "rebase-unavailable"
    assert code_of(lambda: load(b"\xef\xbb\xbf" + encode_journal(operation()))) == "rebase-unavailable"
    padded = encode_journal(operation()) + b" " * (MAX_JOURNAL_BYTES - len(encode_journal(operation())))
    assert load(padded)["id"] == operation()["id"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"id": "rebase_" + "0" * 32}, "operation-integrity"),
        ({"schemaVersion": 2}, "operation-integrity"),
        ({"schemaVersion": "1"}, "operation-integrity"),
        ({"sourceSessionFile": SOURCE.replace("/sessions/", "/sessions/./")}, "operation-integrity"),
        ({"projectPath": "/home/u/other"}, "operation-integrity"),
        ({"targetSessionFile": "/tmp/ds4-rebase_" + "0" * 32 + ".jsonl"}, "operation-integrity"),
        ({"projectPath": 7}, "rebase-unavailable"),
        ({"targetSessionFile": None}, "rebase-unavailable"),
    ],
)
def test_integrity_codes(change: dict[str, Any], expected: str) -> None:
    record = {**operation(), **change}
    assert code_of(lambda: load(js_stringify(record).encode())) == expected


def test_what_still_passes_integrity() -> None:
    # JSON 1.0 is the number 1; a project path with the same canonical form; a target path that
    # resolves into the source directory.
    record = {**operation(), "schemaVersion": 1.0, "projectPath": PROJECT + "/"}
    record["targetSessionFile"] = str(Path(SOURCE).parent / "x" / ".." / Path(record["targetSessionFile"]).name)
    assert load(js_stringify(record).encode())["projectPath"] == PROJECT + "/"


def test_non_object_journals() -> None:
    assert code_of(lambda: load(b"null")) == "rebase-unavailable"
    assert code_of(lambda: load(b"[]")) == "operation-integrity"
    assert code_of(lambda: load(b"\"rebase\"")) == "operation-integrity"


def test_the_source_session_must_match_the_source_header() -> None:
    record = operation()
    check_source_session(record, "s1")
    assert code_of(lambda: check_source_session(record, "s2")) == "operation-integrity"


def test_check_journal_uses_the_real_canonical_path_by_default(tmp_path: Path) -> None:
    real = tmp_path / "proj"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    source = str(tmp_path / "s.jsonl")
    record = operation(project_path=str(tmp_path / "alias"), source_session_file=source)
    checked = check_journal(record, requested_id=record["id"], source_file=source, project=ProjectPaths(str(real)))
    assert checked == record


# ----------------------------------------------------------------------------------------------
# failure codes and results


def test_failure_codes() -> None:
    assert failure_code("archive-changed") == "archive-changed"
    assert failure_code("ENOENT: no such file") == "rebase-unavailable"
    assert failure_code("archive-changed\n") == "rebase-unavailable"
    assert failure_code("a" * 65) == "rebase-unavailable"


CHECKPOINT = {"id": "checkpoint_" + "1" * 32, "handoff": "x" * 2049, "pins": [{}], "memories": [],
              "limitations": list(LIMITATIONS)}


def test_results_have_the_upstream_shape_and_no_paths() -> None:
    diagnostics = ToolExchangeDiagnostics(active_issue_count=0, historical_issue_count=1)
    preview = preview_result(operation()["id"], CHECKPOINT, source_entries=4, source_bytes=1234,
                             tool_exchange=diagnostics).to_json()
    assert list(preview) == ["status", "operationId", "checkpointId", "sourceEntries", "sourceBytes",
                             "checkpointTokens", "preservedPins", "preservedMemories", "warnings",
                             "toolExchangeDiagnostics"]
    assert preview["status"] == "preview" and preview["checkpointTokens"] == 513 and preview["preservedPins"] == 1
    verified = verified_result(preview_result(operation()["id"], CHECKPOINT, source_entries=4, source_bytes=1234,
                                              tool_exchange=diagnostics)).to_json()
    assert list(verified)[-2:] == ["phase", "sessionReplaced"] and verified["status"] == "verified"
    recoverable = recoverable_result(operation()["id"], "target-integrity", session_replaced=False).to_json()
    unavailable = unavailable_result("pending-or-orphan-tool-exchange",
                                     tool_exchange=ToolExchangeDiagnostics(1, 0)).to_json()
    for result in (preview, verified, recoverable, unavailable):
        assert schema_problems(result, "rebase/rebase-result.schema.json") == []
        assert "/" not in js_stringify(result)
    assert list(recoverable) == ["status", "operationId", "phase", "sessionReplaced", "warnings"]
    assert list(unavailable) == ["status", "warnings", "toolExchangeDiagnostics"]


def test_the_result_schema_rejects_wrong_shapes() -> None:
    ref = "rebase/rebase-result.schema.json"
    assert schema_problems({"status": "unavailable", "warnings": []}, ref)
    assert schema_problems({"status": "unavailable", "warnings": ["x"], "operationId": operation()["id"]}, ref)
    assert schema_problems({"status": "recoverable", "warnings": ["x"]}, ref)
    assert schema_problems({"status": "unavailable", "warnings": ["x"], "sourceFile": SOURCE}, ref)
    assert schema_problems({"status": "preview", "warnings": list(LIMITATIONS)}, ref)
