"""The console script run in-process over a project folder and its session, for the hostile-input
tests of tests/cli (issue 12): each call checks that no output holds a Python traceback."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from reference.cli.main import main

T = "2026-01-01T00:00:0{}.000Z"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Cli:
    """The project folder, its session and the console script, run in-process."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.cwd = root / "project"
        self.cwd.mkdir()
        self.session = root / "s.jsonl"
        self.index = root / "index.sqlite"
        self._capsys = capsys

    def header(self) -> str:
        return json.dumps({"type": "session", "version": 3, "id": "s-hostile", "timestamp": T.format(0),
                           "cwd": str(self.cwd)})

    def write(self, *extra: str, header: str | None = None) -> Path:
        lines = [
            self.header() if header is None else header,
            json.dumps({"type": "message", "id": "a1", "parentId": None, "timestamp": T.format(1),
                        "message": {"role": "user", "content": "Keep `LastExportUtc` as it is.", "timestamp": 1}}),
            *extra,
        ]
        self.session.write_bytes("".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass"))
        return self.session

    def __call__(self, *args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = self._capsys.readouterr()
        assert "Traceback" not in out + err
        return code, out, err

    def history(self, command: str, *args: str) -> tuple[int, str, str]:
        return self(*(["history", command, "LastExportUtc"] if command == "search" else ["history", command]),
                    "--session", str(self.session), "--index", str(self.index), *args)

    def rebase(self, *args: str) -> tuple[int, str, str]:
        return self("rebase", "--session", str(self.session), "--index", str(self.index), "--approve", *args)


def one_line(err: str, code: str) -> None:
    assert err.startswith(f"recall-rebase: {code}: "), err
    assert len(err.splitlines()) == 1, err


def make_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """A fresh project, home and agent folder under ``tmp_path``; the current directory is the project."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.delenv("RECALL_REBASE_CRASH_AT", raising=False)
    made = Cli(tmp_path, capsys)
    monkeypatch.chdir(made.cwd)
    return made
