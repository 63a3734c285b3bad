"""``recall-rebase history`` and the ``/context history`` commands of ``recall-rebase host``."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

from conformance import schemas


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    session = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s-cli", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(cwd)},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "Keep `LastExportUtc` as it is.\nSecond line.", "timestamp": 1}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-01-01T00:00:02.000Z",
         "message": {"role": "user", "content": "Something else entirely.", "timestamp": 2}},
    ]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    return cwd, session, env


def run(args: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    root = REPO_ROOT
    return subprocess.run([sys.executable, "-m", "reference.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**env, "PYTHONPATH": str(root)}, input=stdin, timeout=120)


def test_search_json_is_exactly_the_envelope(project: tuple[Path, Path, dict[str, str]]) -> None:
    cwd, session, env = project
    before = hashlib.sha256(session.read_bytes()).hexdigest()
    done = run(["history", "search", "`LastExportUtc`", "--session", str(session), "--json"], cwd, env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert schemas.errors(result, "history/result.schema.json") == []
    assert [hit["entryId"] for hit in result["hits"]] == ["a1"]
    assert hashlib.sha256(session.read_bytes()).hexdigest() == before
    assert (Path(env["PI_CODING_AGENT_DIR"]) / "recall-rebase" / "index.sqlite").exists()


def test_readable_search_and_status(project: tuple[Path, Path, dict[str, str]]) -> None:
    cwd, session, env = project
    done = run(["history", "search", "`LastExportUtc`", "--session", str(session)], cwd, env)
    assert done.returncode == 0 and "1 hit(s)" in done.stdout and "a1" in done.stdout
    status = run(["history", "status", "--session", str(session), "--json"], cwd, env)
    assert json.loads(status.stdout)["indexedEntries"] == 2


def test_a_foreign_project_is_a_scope_mismatch_with_a_hint(project: tuple[Path, Path, dict[str, str]],
                                                          tmp_path: Path) -> None:
    _, session, env = project
    done = run(["history", "search", "LastExportUtc", "--session", str(session)], tmp_path, env)
    assert done.returncode == 3
    assert "source-scope-mismatch" in done.stdout and "--cwd" in done.stdout


def test_a_ref_from_another_host_process_is_refused(project: tuple[Path, Path, dict[str, str]]) -> None:
    """Refs live in one host process (D10): a restart forgets them."""
    cwd, session, env = project
    first = run(["host", "--session", str(session)], cwd, env, "/context history search `LastExportUtc`\n/quit\n")
    ref = json.loads(first.stdout.splitlines()[1])["hits"][0]["sourceRef"]
    second = run(["host", "--session", str(session)], cwd, env,
                 f"/context history read {ref}\n/tool context_history_status {{}}\n/quit\n")
    outputs = [json.loads(line) for line in second.stdout.splitlines()[1:]]
    assert outputs[0]["warnings"] == ["reference-expired"]
    assert outputs[1]["indexedEntries"] == 2


def test_read_within_one_host_and_its_line_arguments(project: tuple[Path, Path, dict[str, str]]) -> None:
    cwd, session, env = project
    script = "/context history search `LastExportUtc`\n"
    done = run(["host", "--session", str(session)], cwd, env, script + "/quit\n")
    assert json.loads(done.stdout.splitlines()[1])["hits"]
    # One process: search, then read the ref it printed.
    proc = subprocess.Popen([sys.executable, "-m", "reference.cli", "host", "--session", str(session)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=cwd,
                            env={**env, "PYTHONPATH": str(REPO_ROOT)})
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdout.readline()
    proc.stdin.write(script)
    proc.stdin.flush()
    ref = json.loads(proc.stdout.readline())["hits"][0]["sourceRef"]
    proc.stdin.write(f"/context history read {ref} 2 1\n/context history read {ref} x\n/quit\n")
    proc.stdin.flush()
    second_line = json.loads(proc.stdout.readline())
    bad_number = json.loads(proc.stdout.readline())
    proc.wait(timeout=60)
    assert second_line["text"] == "Second line." and second_line["startLine"] == 2
    assert bad_number["warnings"] == ["invalid-range"]


def test_index_reports_rebuild_then_append(project: tuple[Path, Path, dict[str, str]]) -> None:
    cwd, session, env = project
    first = run(["history", "index", "--session", str(session), "--json"], cwd, env)
    state = json.loads(first.stdout)
    assert schemas.errors(state, "history/index-state.schema.json") == []
    schema = json.loads((REPO_ROOT / "schemas" / "history" / "index-state.schema.json").read_text(encoding="utf-8"))
    assert list(state) == list(schema["properties"])  # every field, in the schema's order
    assert (state["rebuilt"], state["rebuildReason"], state["indexedEntries"]) == (True, "initial-index", 2)
    with session.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"type": "message", "id": "a3", "parentId": "a2", "timestamp": "2026-01-01T00:00:03.000Z",
                                 "message": {"role": "user", "content": "more", "timestamp": 3}}) + "\n")
    second = json.loads(run(["history", "index", "--session", str(session), "--json"], cwd, env).stdout)
    assert (second["rebuilt"], second["appended"], second["indexedEntries"]) == (False, 1, 3)
