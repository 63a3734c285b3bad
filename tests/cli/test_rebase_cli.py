"""``recall-rebase rebase`` and ``/context rebase`` in ``recall-rebase host`` (contract §6.1)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

from conformance import schemas

ROOT = REPO_ROOT


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    session = sessions / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s-cli", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(cwd)},
        {"type": "message", "id": "old", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "LastExportUtc old original decision", "timestamp": 1}},
        {"type": "message", "id": "answer", "parentId": "old", "timestamp": "2026-01-01T00:00:02.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "timestamp": 2}},
        {"type": "compaction", "id": "compact", "parentId": "answer", "timestamp": "2026-01-01T00:00:03.000Z",
         "summary": "The export work so far.", "firstKeptEntryId": "answer", "tokensBefore": 10},
        {"type": "message", "id": "task", "parentId": "compact", "timestamp": "2026-01-01T00:00:04.000Z",
         "message": {"role": "user", "content": "Continue the implementation", "timestamp": 4}},
    ]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    return cwd, session, env


def run(args: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reference.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**env, "PYTHONPATH": str(ROOT)}, input=stdin, timeout=120)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_dry_run_then_rebase_then_recover(project: tuple[Path, Path, dict[str, str]]) -> None:
    cwd, session, env = project
    before = sha256(session)
    dry = run(["rebase", "--session", str(session), "--dry-run"], cwd, env)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith("preview: operation rebase_") and "no journal and no target were written" in dry.stdout
    assert "the rebase lock " in dry.stdout  # the contract takes it on a dry run too (§6.7); the output says so
    assert not (session.parent / ".ds4-rebase" / "operations").exists()

    done = run(["rebase", "--session", str(session), "--json"], cwd, env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert schemas.errors(result, "rebase/rebase-result.schema.json") == []
    assert (result["status"], result["phase"], result["sessionReplaced"]) == ("verified", "Verified", True)
    assert str(session) not in done.stdout and str(session.parent) not in done.stdout
    target = session.parent / f"ds4-{result['operationId']}.jsonl"
    assert target.is_file() and sha256(session) == before

    again = run(["rebase", "--session", str(session)], cwd, env)
    assert again.returncode == 3 and "operation-exists-use-recover" in again.stdout and "--recover" in again.stdout

    recovered = run(["rebase", "--session", str(target), "--recover", result["operationId"]], cwd, env)
    assert recovered.returncode == 0, recovered.stdout
    assert f"continue in Pi with: pi --session {target}" in recovered.stdout
    assert sorted(p.name for p in session.parent.glob("*.jsonl")) == sorted([session.name, target.name])


def test_refusals_name_their_code_and_exit_3(project: tuple[Path, Path, dict[str, str]], tmp_path: Path) -> None:
    cwd, session, env = project
    foreign = run(["rebase", "--session", str(session)], tmp_path, env)
    assert foreign.returncode == 3 and "source-scope-mismatch" in foreign.stdout
    assert f"pass --cwd {cwd}" in foreign.stdout and f"recorded in {cwd}" in foreign.stdout
    untrusted = run(["rebase", "--session", str(session), "--no-approve", "--json"], cwd, env)
    assert json.loads(untrusted.stdout) == {"status": "unavailable", "warnings": ["project-untrusted"]}
    bad = run(["rebase", "--session", str(session), "--recover", "rebase_nothex"], cwd, env)
    assert bad.returncode == 2 and bad.stderr.startswith("recall-rebase: invalid-operation: ")
    both = run(["rebase", "--session", str(session), "--dry-run", "--recover", "x"], cwd, env)
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_context_rebase_in_the_host_switches_the_current_session(project: tuple[Path, Path, dict[str, str]]) -> None:
    cwd, session, env = project
    script = "\n".join([
        "/context rebase --now",
        "/context rebase --dry-run",
        "/context rebase",
        '/tool context_history_recall {"query": "LastExportUtc", "scope": "current-lineage"}',
        "/quit",
    ]) + "\n"
    done = run(["host", "--session", str(session)], cwd, env, script)
    lines = done.stdout.splitlines()[1:]
    assert lines[0] == "usage: /context rebase [--dry-run | --recover <operationId>]"
    preview = json.loads(lines[1])
    assert preview["status"] == "preview"
    assert lines[2].startswith(f"[info] rebase verified: {preview['operationId']}")
    recall = json.loads(lines[3])
    assert [(hit["entryId"], hit["relation"]) for hit in recall["hits"]] == [("old", "lineage-ancestor")]
