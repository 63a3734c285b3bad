"""Issue 12: the interactive ``recall-rebase host`` survives bad ``/tool`` arguments.

``/tool context_history_read []`` (or any non-object or malformed JSON argument) used to end the
host, and every live reference with it. Now each gives one coded line and the host goes on: a
reference minted before still reads in the same process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

BAD_ARGUMENTS = {
    "an array": "[]",
    "a number": "5",
    "a string": '"hist_0"',
    "null": "null",
    "true": "true",
    "not JSON": "{bad",
    "trailing garbage": '{"sourceRef": "x"} y',
    "NaN": '{"limit": NaN}',
    "a 5,000-digit integer": '{"limit": ' + "9" * 5000 + "}",
    "deep nesting": "[" * 100_000 + "]" * 100_000,
}


@pytest.fixture
def host(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    session = tmp_path / "s.jsonl"
    lines = [{"type": "session", "version": 3, "id": "s-host", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(cwd)},
             {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
              "message": {"role": "user", "content": "Keep LastExportUtc as it is.", "timestamp": 1}}]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "PI_CODING_AGENT_DIR": str(tmp_path / "agent"),
           "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "reference.cli", "host", "--session", str(session)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)
    assert process.stdout is not None
    process.stdout.readline()  # the greeting
    yield process
    process.kill()
    process.wait()


def _say(host: subprocess.Popen[bytes], line: bytes) -> str:
    assert host.stdin is not None and host.stdout is not None
    host.stdin.write(line + b"\n")
    host.stdin.flush()
    return host.stdout.readline().decode("utf-8")


@pytest.mark.parametrize("tool", ["context_history_read", "context_history_recall", "context_history_status"])
@pytest.mark.parametrize("arguments", BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_bad_tool_arguments_give_one_coded_line_and_the_host_keeps_its_references(
        host: subprocess.Popen[bytes], tool: str, arguments: str) -> None:
    ref = json.loads(_say(host, b"/context history search LastExportUtc"))["hits"][0]["sourceRef"]
    answer = _say(host, f"/tool {tool} {arguments}".encode())
    assert answer.startswith("error: invalid-params: ") and answer.endswith("\n") and "Traceback" not in answer
    read = json.loads(_say(host, f'/tool context_history_read {{"sourceRef": "{ref}"}}'.encode()))
    assert read["status"] == "complete" and read["source"]["entryId"] == "a1"
    assert host.stdin is not None and host.stderr is not None
    host.stdin.write(b"/quit\n")
    host.stdin.close()
    assert host.wait(timeout=60) == 0
    assert b"Traceback" not in host.stderr.read()


def test_a_line_that_is_not_utf8_is_answered(host: subprocess.Popen[bytes]) -> None:
    assert _say(host, b"/tool context_history_status \xff\xfe").startswith("error: invalid-params: ")
    assert json.loads(_say(host, b"/tool context_history_status {}"))["schema"] == "ds4-history-result-v1"
