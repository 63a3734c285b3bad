"""How often one rebase run hashes the source prefix, opens the target and loads lineage
(issue 25 item 5; docs/rebase.md, "What one run reads"): exactly what the contract's
verifications require (§6.2 steps 2, 22, 24; §6.9; §6.11; §6.13), counted by patching the one
prefix hashing function, the one session opener, the one scan and the one lineage loader.

What one step has proven (a prefix hash, a scan, a verified lineage, an opened target) is handed
to the step that uses it as a value; nothing is cached between runs, so two runs in a row count
the same.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from testkit.pilines import jsonl, message, ts

from reference.config.defaults import default_config
from reference.lineage import chain
from reference.lineage import proof as prefix
from reference.pi.exact import session
from reference.pi.model import session as scan
from reference.primitives.clock import ManualClock
from reference.rebase.host import RebaseHost
from reference.rebase.service import RebaseRequest, RebaseService

SOURCE_ID = "source"


@dataclass
class Counts:
    """Calls per kind ("hash", "open", "scan", "lineage") and file ("source", "target")."""

    calls: Counter[tuple[str, str]]
    source: Path

    def of(self, kind: str, which: str) -> int:
        return self.calls[(kind, which)]

    def table(self) -> dict[str, int]:
        return {f"{kind} {which}": n for (kind, which), n in sorted(self.calls.items())}


def _patch_everywhere(monkeypatch: pytest.MonkeyPatch, original: Callable[..., Any],
                      wrapper: Callable[..., Any]) -> None:
    """Every module of the reference that bound ``original`` by name gets ``wrapper``."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("reference") or module is None:
            continue
        for attribute, value in list(vars(module).items()):
            if value is original:
                monkeypatch.setattr(module, attribute, wrapper)


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Counts]:
    found = Counts(Counter(), tmp_path / "sessions" / "2025-06-01T12-00-00-000Z_source.jsonl")

    def which(path: Any) -> str:
        if path is None:
            return "none"
        name = Path(str(path)).name
        return "source" if name == found.source.name else "target" if name.startswith("ds4-rebase_") else name

    def counting(kind: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            found.calls[(kind, which(args[0] if args else None))] += 1
            return original(*args, **kwargs)
        return counted

    for kind, original in (("hash", prefix.sha256_prefix), ("open", session.load_session),
                           ("scan", scan.scan_source), ("lineage", chain.load_rebase_state)):
        _patch_everywhere(monkeypatch, original, counting(kind, original))
    yield found


@pytest.fixture
def project(tmp_path: Path, counts: Counts) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    counts.source.parent.mkdir()
    counts.source.write_bytes(jsonl([
        {"type": "session", "version": 3, "id": SOURCE_ID, "timestamp": ts(0), "cwd": str(project)},
        message("old", None, 1, "user", "the original decision"),
        message("answer", "old", 2, "assistant", "Noted."),
        message("task", "answer", 3, "user", "Continue the implementation"),
    ]))
    return project


def _run(project: Path, session_file: Path, counts: Counts, **mode: Any) -> dict[str, Any]:
    host = RebaseHost(session_file=str(session_file), project_path=str(project), project_trusted=True,
                      config=default_config())
    service = RebaseService(host, clock=ManualClock(1_750_000_000_000),
                            index_path=str(project.parent / "agent" / "index.sqlite"))
    counts.calls.clear()
    result = service.rebase(RebaseRequest.of(**mode)).result.to_json()
    return result


def test_a_dry_run_hashes_the_source_prefix_once_and_loads_lineage_twice(project: Path, counts: Counts) -> None:
    result = _run(project, counts.source, counts, dry_run=True)
    assert result["status"] == "preview", result
    assert counts.table() == {"hash source": 1, "lineage source": 2, "scan source": 1}, counts.table()


def test_a_rebase_hashes_the_source_prefix_three_times_and_opens_the_target_twice(
        project: Path, counts: Counts) -> None:
    for _ in range(2):  # the second run is a new operation on a new file: nothing is carried over
        result = _run(project, counts.source, counts)
        assert result["status"] == "verified", result
        assert counts.table() == {"hash source": 3, "hash target": 1, "lineage source": 2, "lineage target": 2,
                                  "open target": 2, "scan source": 1}, counts.table()
        for target in counts.source.parent.glob("ds4-rebase_*.jsonl"):
            target.unlink()
        for journal in (counts.source.parent / ".ds4-rebase" / "operations").glob("*.json"):
            journal.unlink()


def test_a_recovery_from_the_source_reuses_what_each_step_proved(project: Path, counts: Counts) -> None:
    operation = _run(project, counts.source, counts)["operationId"]
    result = _run(project, counts.source, counts, recover=operation)
    assert result["status"] == "verified", result
    # §6.2 step 2 (its verified lineage serves step 10), step 22, §6.11 step 4.3, §6.9 before and
    # inside the switch; step 24's hash serves §6.11 step 4.3, §6.9 step 1's the check after it.
    assert counts.table() == {"hash source": 3, "hash target": 2, "lineage source": 2, "lineage target": 3,
                              "open target": 2, "scan source": 1}, counts.table()


def test_a_recovery_from_the_target_reads_the_source_once(project: Path, counts: Counts) -> None:
    operation = _run(project, counts.source, counts)["operationId"]
    target = next(counts.source.parent.glob("ds4-rebase_*.jsonl"))
    result = _run(project, target, counts, recover=operation)
    assert result["status"] == "verified", result
    assert counts.table() == {"hash source": 4, "hash target": 2, "lineage source": 1, "lineage target": 4,
                              "open target": 2, "scan source": 1, "scan target": 1}, counts.table()
