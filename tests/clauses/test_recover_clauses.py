"""Clauses of contract §6.10 and §6.11 that no scenario can tell apart through the adapter
protocol (issue 26): each test plants the one condition the clause names and checks its code or
its effect directly."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from reference.artifacts.ids import RebaseSource
from reference.artifacts.journal import new_operation
from reference.artifacts.phases import Phase
from reference.lineage.proof import ProvenPrefix
from reference.primitives.clock import ManualClock
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.durable import durable_replace
from reference.rebase import target as target_module
from reference.rebase.operation_journal import OperationJournal


def _operation(tmp_path: Path) -> dict[str, Any]:
    source = tmp_path / "sessions" / "source.jsonl"
    source.parent.mkdir()
    source.write_text('{"type":"session","version":3,"id":"s1"}\n')
    return new_operation(RebaseSource("s1", "e1", 42, "ab" * 32), project_path=str(tmp_path),
                         source_session_file=str(source), target_session_id="t1", now_ms=1_750_000_000_000)


def test_a_recoverable_journal_that_cannot_be_written_leaves_the_previous_durable_journal(tmp_path: Path) -> None:
    """§6.10 (C6.10-4): the Recoverable write failing keeps the last durable journal in place."""
    failing = False

    def writer(path: Path, data: bytes) -> None:
        if failing:
            raise OSError("disk full")
        durable_replace(path, data)

    journal = OperationJournal(ManualClock(1_750_000_000_500), None, writer)
    journal.adopt(_operation(tmp_path), persisted=False)
    journal.write(Phase.ARCHIVE_VERIFIED)
    before = journal.path.read_bytes()
    failing = True
    record = journal.fail("archive-changed")
    assert (record["phase"], record["errorCode"]) == ("Recoverable", "archive-changed")
    assert journal.path.read_bytes() == before
    assert json.loads(before)["phase"] == "ArchiveVerified"


def test_an_installed_target_whose_header_is_not_version_3_is_target_integrity_before_its_lineage(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """§6.11 step 4.2 (C6.11-6): the header version is checked on its own, before the lineage
    check that would refuse the same target with the same code (which is why no scenario can
    tell the two apart)."""
    operation = _operation(tmp_path)
    target = Path(operation["targetSessionFile"])
    data = b'{"type":"session","version":2,"id":"t1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n'
    target.write_bytes(data)
    operation.update(targetSize=len(data), targetHash=hashlib.sha256(data).hexdigest())
    journal = OperationJournal(ManualClock(), None)
    journal.adopt(operation, persisted=True)

    def lineage_not_reached(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the lineage of a version 2 target was verified")

    monkeypatch.setattr(target_module, "verify_target", lineage_not_reached)
    with pytest.raises(ContractViolation) as caught:
        target_module.existing_target(journal, str(tmp_path), "s1", "e1",
                                      source=ProvenPrefix(operation["sourceSessionFile"], 42, "ab" * 32))
    assert caught.value.code == "target-integrity"
