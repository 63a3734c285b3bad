"""Clauses of contract §6.1-§6.9 that no scenario can check through the adapter protocol (issue 26):
the ``/context rebase`` command's word shapes (the protocol's ``rebase.run`` takes a mode, not
words), rebase never being a model tool, an exception inside the runtime's lineage step, a second
rebase asked while one runs, and the shape of a recorded source hash (which a mismatch would hide)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from testkit.pilines import jsonl, message

from reference.cli import interactive
from reference.config.defaults import default_config
from reference.lineage.proof import prefix_holds
from reference.privacy.egress import HISTORY_TOOL_NAMES
from reference.rebase import service as rebase_service
from reference.rebase.host import RebaseHost
from reference.rebase.service import RebaseRequest, RebaseService

USAGE = "usage: /context rebase [--dry-run | --recover <operationId>]"
OPERATION = "rebase_" + "0123456789abcdef" * 2


@dataclass
class _Answer:
    result: Any


@dataclass
class _Result:
    def to_json(self) -> dict[str, Any]:
        return {"status": "preview", "warnings": []}


@dataclass
class _Host:
    notifications: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class _Service:
    """Records the requests the command makes of the rebase service."""

    host: _Host = field(default_factory=_Host)
    requests: list[RebaseRequest] = field(default_factory=list)

    def rebase(self, request: RebaseRequest) -> _Answer:
        self.requests.append(request)
        return _Answer(_Result())


def command(words: list[str]) -> tuple[str, list[RebaseRequest]]:
    service = _Service()
    text = interactive._rebase_command(service, None, words)  # type: ignore[arg-type]
    return text, service.requests


@pytest.mark.parametrize(("words", "request_made"), [
    ([], RebaseRequest()),                                     # C6.1-3
    (["--dry-run"], RebaseRequest(dry_run=True)),              # C6.1-4
    (["--recover", OPERATION], RebaseRequest(recover=OPERATION)),  # C6.1-5
])
def test_the_three_command_forms_reach_the_service(words: list[str], request_made: RebaseRequest) -> None:
    text, requests = command(words)
    assert requests == [request_made]
    assert text.startswith("{") and '"status":"preview"' in text


@pytest.mark.parametrize("words", [
    ["--now"],
    ["--dry-run", "--dry-run"],                       # --dry-run is exactly one token
    ["--dry-run", "extra"],
    ["--recover"],                                    # --recover is exactly two tokens
    ["--recover", OPERATION, "extra"],
    ["--dry-run", "--recover", OPERATION],
    ["--recover", "rebase_" + "0123456789ABCDEF" * 2],  # the id must match ^rebase_[a-f0-9]{32}$
    ["--recover", "rebase_0123"],
    ["--recover", "0123456789abcdef" * 2],
])
def test_any_other_shape_is_the_usage_error_and_runs_nothing(words: list[str]) -> None:
    """C6.1-2: any other argument shape prints the usage line; no rebase is asked."""
    text, requests = command(words)
    assert (text, requests) == (USAGE, [])


def test_rebase_is_never_a_model_tool() -> None:
    """C6.1-1: the tools a model can call are the three history tools; rebase is a command only."""
    assert set(interactive.TOOLS) == set(HISTORY_TOOL_NAMES)
    assert not [name for name in HISTORY_TOOL_NAMES if "rebase" in name]


def a_source(tmp_path: Path) -> tuple[Path, RebaseHost]:
    """A project, a sessions folder beside it with a one-message source, and its rebase host."""
    project = tmp_path / "project"
    sessions = tmp_path / "sessions"
    project.mkdir()
    sessions.mkdir()
    source = sessions / "source.jsonl"
    header = {"type": "session", "version": 3, "id": "s-clauses", "timestamp": "2026-01-01T00:00:00.000Z",
              "cwd": str(project)}
    source.write_bytes(jsonl([header, message("old", None, 1, "user", "Some work")]))
    host = RebaseHost(session_file=str(source), project_path=str(project), project_trusted=True,
                      config=default_config())
    return source, host


def test_an_exception_in_the_runtime_lineage_step_is_rebase_state_unavailable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """C6.2-4: the runtime reconciles and re-verifies the session's own lineage (§6.2 step 2);
    an exception there is ``rebase-state-unavailable``, and nothing is written."""
    source, host = a_source(tmp_path)
    before = source.read_bytes()

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise OSError("the projection could not be read")

    monkeypatch.setattr(rebase_service, "load_rebase_state", failing)
    result = RebaseService(host, index_path=str(tmp_path / "index.sqlite")).rebase(RebaseRequest()).result.to_json()
    assert (result["status"], result["warnings"]) == ("unavailable", ["rebase-state-unavailable"])
    assert source.read_bytes() == before
    assert not (source.parent / ".ds4-rebase" / "operations").exists()


def test_a_rebase_asked_while_one_runs_in_this_process_is_compaction_or_rebase_busy(tmp_path: Path) -> None:
    """C6.2-10: a rebase already running in this process refuses a second one (the protocol asks
    one rebase at a time, so only here can a second arrive while the first switches sessions)."""
    _, host = a_source(tmp_path)
    service = RebaseService(host, index_path=str(tmp_path / "index.sqlite"))
    inner: list[dict[str, Any]] = []
    host.during_switch.append(lambda: inner.append(service.rebase(RebaseRequest(dry_run=True)).result.to_json()))
    outer = service.rebase(RebaseRequest()).result.to_json()
    assert outer["status"] == "verified", outer
    assert [(r["status"], r["warnings"]) for r in inner] == [("unavailable", ["compaction-or-rebase-busy"])]


@pytest.mark.parametrize("recorded", [
    lambda digest: digest.upper(),   # hex, but not lower case
    lambda digest: digest[:63],      # 63 characters
    lambda digest: digest + "0",     # 65 characters
    lambda digest: None,             # not a string
])
def test_a_recorded_source_hash_must_be_64_lower_case_hex(tmp_path: Path, recorded: Any) -> None:
    """C6.2-33: the recorded hash must be 64 (lower-case) hex characters, or the prefix does not
    hold.  A hash of any other shape can never equal a SHA-256 hex digest, so the shape check and
    the comparison agree: what is checked here is that no such hash ever holds, even one that is
    the right digest upper-cased."""
    path = tmp_path / "source.jsonl"
    path.write_bytes(b'{"type":"session"}\n')
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert prefix_holds(str(path), path.stat().st_size, digest) is not None
    assert prefix_holds(str(path), path.stat().st_size, recorded(digest)) is None
