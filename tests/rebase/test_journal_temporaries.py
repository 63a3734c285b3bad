"""Journal temporaries a killed rebase left (issue 12): the next run and recovery remove the ones
of their own source, and leave another source's and a torn one that names no source.

A real child process runs ``recall-rebase rebase`` and is killed (SIGKILL where the OS has it)
inside the durable write of its N-th journal phase, after the temporary is written and fsynced
and before it takes the journal's name: exactly the window that left ``.tmp`` files behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT
from testkit.pilines import message, sha, ts

from reference.artifacts.ids import operation_id, operations_dir
from reference.artifacts.journal import journal_source_file
from reference.primitives.jsonbytes import js_stringify

CHILD_TIMEOUT_S = 30
SOURCE_ID = "source"
#: The child: ``os.replace`` of the N-th journal (``*.json``) kills the process instead; or, with
#: ``KILL_AFTER_JOURNAL_OPEN``, the N-th journal temporary is created and the process dies before
#: its first byte is written (an empty temporary, which names no source).
KILLING_CHILD = """
import os, signal, sys
count, calls = int(os.environ.get("KILL_AT_JOURNAL_WRITE", "0")), []
real_replace = os.replace
def replace(source, destination):
    if str(destination).endswith(".json"):
        calls.append(destination)
        if len(calls) == count:
            if hasattr(signal, "SIGKILL"):
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(137)
    return real_replace(source, destination)
os.replace = replace
opened, real_open = [], os.open
def open_(path, flags, mode=0o777, **kwargs):
    fd = real_open(path, flags, mode, **kwargs)
    if str(path).endswith(".tmp") and ".json." in str(path):
        opened.append(path)
        if len(opened) == int(os.environ.get("KILL_AFTER_JOURNAL_OPEN", "0")):
            if hasattr(signal, "SIGKILL"):
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(137)
    return fd
os.open = open_
from reference.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _source(tmp_path: Path, name: str, session_id: str) -> Path:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    records = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": ts(0), "cwd": str(project)},
        message("task", None, 1, "user", "Continue the implementation"),
        message("answer", "task", 2, "assistant", "Noted."),
    ]
    source = tmp_path / "sessions" / name
    source.parent.mkdir(exist_ok=True)
    source.write_bytes("".join(js_stringify(r) + "\n" for r in records).encode("utf-8"))
    return source


def _rebase(tmp_path: Path, source: Path, *args: str, kill_at: int | None = None,
            kill_after_open: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PI_CODING_AGENT_DIR"}
    env.update(HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO_ROOT))
    command = [sys.executable, "-m", "reference.cli"]
    if kill_at is not None or kill_after_open is not None:
        env["KILL_AT_JOURNAL_WRITE"] = str(kill_at or 0)
        env["KILL_AFTER_JOURNAL_OPEN"] = str(kill_after_open or 0)
        command = [sys.executable, "-c", KILLING_CHILD]
    return subprocess.run([*command, "rebase", "--session", str(source), "--approve", "--json", *args],
                          cwd=tmp_path / "project", env=env, capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT_S, check=False)


def _temporaries(source: Path) -> list[str]:
    return sorted(path.name for path in operations_dir(source).glob("*.tmp"))


def _plant(source: Path, name: str, data: bytes) -> str:
    folder = operations_dir(source)
    folder.mkdir(parents=True, exist_ok=True)
    temporary = f"{name}.{uuid.uuid4()}.tmp"
    (folder / temporary).write_bytes(data)
    return temporary


@pytest.mark.parametrize(("kill", "recover"), [
    (("write", 1), False), (("write", 2), True), (("write", 3), True),
    (("open", 1), False), (("open", 2), True), (("open", 3), True),
])
def test_a_kill_inside_a_journal_write_leaves_nothing_after_the_next_run(
    tmp_path: Path, kill: tuple[str, int], recover: bool
) -> None:
    """Killed inside the N-th journal write: after the temporary is fsynced (``write``: it names
    its source), or before its first byte (``open``: empty, it names none, but its name is this
    source's own operation's journal, and the operation id is derived from this source, whose lock
    the run holds: issue 28, deliverable 5, where 6 of 53 kill points left one before)."""
    source = _source(tmp_path, "2025-06-01T12-00-00-000Z_source.jsonl", SOURCE_ID)
    before = sha(source)
    op = operation_id(SOURCE_ID, "answer", before)
    where, count = kill

    killed = _rebase(tmp_path, source, **{"kill_at" if where == "write" else "kill_after_open": count})
    assert killed.returncode != 0 and killed.stdout == ""
    left = _temporaries(source)
    assert len(left) == 1 and left[0].startswith(f"{op}.json."), left  # the window is real
    data = (operations_dir(source) / left[0]).read_bytes()
    assert journal_source_file(data) == (str(source) if where == "write" else None)

    again = _rebase(tmp_path, source, *(["--recover", op] if recover else []))
    assert again.returncode == 0, (again.stdout, again.stderr)
    assert json.loads(again.stdout)["status"] == "verified"
    assert _temporaries(source) == []
    assert sha(source) == before


def test_only_this_sources_temporaries_are_removed(tmp_path: Path) -> None:
    source = _source(tmp_path, "2025-06-01T12-00-00-000Z_source.jsonl", SOURCE_ID)
    other = _source(tmp_path, "2025-06-01T13-00-00-000Z_other.jsonl", "other")
    other_op = operation_id("other", "answer", sha(other))
    foreign = _plant(source, f"{other_op}.json", js_stringify({
        "schemaVersion": 1, "id": other_op, "phase": "Prepared", "projectPath": "/p", "sourceSessionId": "other",
        "sourceSessionFile": str(other)}).encode("utf-8"))
    torn = _plant(source, f"{other_op}.json", b'{"schemaVersion":1,"id":"rebase_')
    own_op = operation_id(SOURCE_ID, "answer", sha(source))
    own_torn = _plant(source, f"{own_op}.json", b'{"schemaVersion":1,"id":"x","phase":"Prepared","projectPath":"/p",'
                      b'"sourceSessionId":"source","sourceSessionFile":' + json.dumps(str(source)).encode() + b',"sourceLe')
    not_a_journal = _plant(source, "notes.txt", js_stringify({"sourceSessionFile": str(source)}).encode("utf-8"))

    done = _rebase(tmp_path, source)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert _temporaries(source) == sorted([foreign, torn, not_a_journal])
    assert own_torn not in _temporaries(source)


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"sourceSessionFile":"/a/b.jsonl","x":1}', "/a/b.jsonl"),
    (b'{"id":"r","sourceSessionFile":"C:\\\\s\\"q.jsonl","sourceLeafId":"x', 'C:\\s"q.jsonl'),
    (b'{"id":"r","sourceSessionFile":"/a/b.js', None),  # torn inside the value
    (b'{"id":"r","sourceSessionFile":5}', None),
    (b"", None),
])
def test_journal_source_file_reads_whole_and_torn_bytes(data: bytes, expected: str | None) -> None:
    assert journal_source_file(data) == expected
