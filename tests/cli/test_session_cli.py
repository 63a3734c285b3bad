"""``recall-rebase session inspect``: readable output, exact JSON, one-line refusals, no writes."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import schemas

HEADER = '{"type":"session","version":3,"id":"s-cli","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}'
USER = '{"type":"message","id":"u1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}'
REPLY = ('{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"assistant",'
         '"content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}')


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reference.cli", *args], capture_output=True, text=True, timeout=120)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text(f"{HEADER}\n{USER}\n{{oops\n{REPLY}", encoding="utf-8")  # malformed line, torn tail
    return path


def test_json_output_is_the_inspect_object_and_matches_its_schema(session: Path) -> None:
    before = sha(session)
    done = run("session", "inspect", str(session), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [schemas.describe(e) for e in schemas.errors(report, "inspect/session-inspect.schema.json")] == []
    assert report["sessionId"] == "s-cli"
    assert report["pathIds"] == ["u1", "a1"]
    assert report["toolExchange"] == {"activeIssueCount": 1, "historicalIssueCount": 0}
    assert report["diagnostics"]["malformedLines"] == {"count": 1, "lines": [3]}
    assert report["diagnostics"]["unterminatedTail"] is True
    assert report["file"]["sha256"] == before
    assert sha(session) == before


def test_readable_output_names_what_is_wrong(session: Path) -> None:
    done = run("session", "inspect", str(session))
    assert done.returncode == 0, done.stderr
    assert "s-cli" in done.stdout
    assert "1 malformed line " in done.stdout
    assert "torn tail" in done.stdout
    assert "1 active" in done.stdout


def test_leaf_option_and_null_leaf(session: Path) -> None:
    assert json.loads(run("session", "inspect", str(session), "--leaf", "u1", "--json").stdout)["pathIds"] == ["u1"]
    assert json.loads(run("session", "inspect", str(session), "--leaf", "null", "--json").stdout)["pathIds"] == []


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda p: None, "session-file-missing"),
        (lambda p: p.mkdir(), "session-not-a-file"),
        (lambda p: p.write_bytes(b""), "session-empty"),
        (lambda p: p.write_bytes(bytes(range(256)) * 8), "session-no-header"),
        (lambda p: p.write_text(USER + "\n"), "session-no-header"),
        (lambda p: p.write_text("   \n\n"), "session-no-header"),
    ],
    ids=["missing", "directory", "empty", "binary", "no-header", "whitespace"],
)
def test_bad_input_is_one_line_and_a_nonzero_exit(tmp_path: Path, make: object, code: str) -> None:
    path = tmp_path / "bad.jsonl"
    make(path)  # type: ignore[operator]
    before = path.read_bytes() if path.is_file() else None
    done = run("session", "inspect", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"recall-rebase: {code}: ")
    assert "Traceback" not in done.stderr
    if before is not None:
        assert path.read_bytes() == before


def test_unknown_leaf_is_refused(session: Path) -> None:
    done = run("session", "inspect", str(session), "--leaf", "zzz")
    assert done.returncode == 2 and "unknown-leaf" in done.stderr


def test_legacy_file_is_flagged_and_left_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    path.write_text('{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}\n'
                    '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"x"}}\n')
    before = sha(path)
    done = run("session", "inspect", str(path))
    assert done.returncode == 0 and "legacy" in done.stdout and "version 1" in done.stdout
    assert sha(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v1.jsonl"]


def test_help_lists_the_commands() -> None:
    done = run("--help")
    assert done.returncode == 0
    for command in ("session", "config", "fixtures", "host", "conformance"):
        assert command in done.stdout


def test_config_unknown_option_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reference.cli", "config", "set", "historyTools.maxResults", "9", "--force"],
        capture_output=True, text=True, timeout=60, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2
    assert done.stderr.startswith("recall-rebase: config-unknown-option: Unknown option(s): --force")
    assert not (tmp_path / ".pi").exists()
