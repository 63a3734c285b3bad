"""docs/port-authors.md, run as a reader would: its marked blocks, in order, in a fresh folder.

A block is run when an HTML comment right above it says so: ``<!-- tutorial: run -->`` (each
line a command that must exit 0), ``<!-- tutorial: run, exit N -->`` (each must exit N), or
``<!-- tutorial: in FILE, replace the line: LINE -->`` (the code block replaces that one line of
FILE, which must be there exactly once). ``cd DIR`` moves the next commands; ``recall-rebase`` is
this checkout's, ``python`` this interpreter. At the end every PRIM row of the tutorial's report
passed, and the tutorial's commands are the ones the port's own README gives.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from testkit.paths import REPO_ROOT

TUTORIAL = REPO_ROOT / "docs" / "port-authors.md"
MARKED_BLOCK = re.compile(r"<!-- tutorial: (?P<what>[^\n]*?) -->\n```[a-z]*\n(?P<body>.*?)```", re.DOTALL)
REPLACE = re.compile(r"in (?P<file>\S+), replace the line: (?P<line>.+)")
RUN = re.compile(r"run(?:, exit (?P<code>\d+))?")
PROGRAMS = {"recall-rebase": [sys.executable, "-m", "reference.cli"], "python": [sys.executable]}
SECONDS = 300


@dataclass(frozen=True)
class Step:
    """One marked block: commands to run with the exit code they must have, or one line to replace."""

    what: str
    body: str


def steps(text: str) -> list[Step]:
    return [Step(match["what"], match["body"]) for match in MARKED_BLOCK.finditer(text)]


def run_step(step: Step, cwd: Path) -> Path:
    """Do one step in ``cwd``; the folder the next step runs in."""
    if (replace := REPLACE.fullmatch(step.what)) is not None:
        target = cwd / replace["file"]
        text = target.read_text(encoding="utf-8")
        line = replace["line"] + "\n"
        assert text.count(line) == 1, f"{target} has {text.count(line)} lines {replace['line']!r}"
        target.write_text(text.replace(line, step.body), encoding="utf-8")
        return cwd
    run = RUN.fullmatch(step.what)
    assert run is not None, f"docs/port-authors.md: unknown tutorial mark {step.what!r}"
    expected = int(run["code"] or 0)
    for command in filter(None, (line.strip() for line in step.body.splitlines())):
        argv = shlex.split(command)
        if argv[0] == "cd":
            cwd = cwd / argv[1]
            assert cwd.is_dir(), command
            continue
        assert argv[0] in PROGRAMS, f"the tutorial runs {argv[0]!r}, which this test does not know"
        done = subprocess.run([*PROGRAMS[argv[0]], *argv[1:]], cwd=cwd, capture_output=True, text=True,
                              timeout=SECONDS, check=False)
        assert done.returncode == expected, f"{command}: exit {done.returncode}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        assert "Traceback" not in done.stderr, done.stderr
    return cwd


def test_the_tutorial_runs_in_order_to_every_prim_row_passing(tmp_path: Path) -> None:
    marked = steps(TUTORIAL.read_text(encoding="utf-8"))
    assert sum(REPLACE.fullmatch(step.what) is not None for step in marked) == 1, "one code block to add"
    cwd = tmp_path
    for step in marked:
        cwd = run_step(step, cwd)
    report = [json.loads(line) for line in (cwd / "prim.ndjson").read_text(encoding="utf-8").splitlines()]
    rows = {line["id"]: line["status"] for line in report if line["type"] == "result"}
    listed = subprocess.run([*PROGRAMS["recall-rebase"], "conformance", "list", "--area", "PRIM", "--json"],
                            capture_output=True, text=True, timeout=SECONDS, check=True)
    assert sorted(rows) == sorted(row["id"] for row in json.loads(listed.stdout))
    assert set(rows.values()) == {"PASS"}, {row: status for row, status in rows.items() if status != "PASS"}
    suite = [json.loads(line) for line in (cwd / "suite.ndjson").read_text(encoding="utf-8").splitlines()]
    assert suite[-1]["conformant"] is True and suite[-1]["counts"]["PASS"] == len(rows)


def test_the_tutorials_commands_are_the_ports_readme_commands(tmp_path: Path) -> None:
    """The README new-port writes gives the same smoke and PRIM commands as the tutorial."""
    subprocess.run([*PROGRAMS["recall-rebase"], "conformance", "new-port", str(tmp_path / "p"), "--language",
                    "python"], capture_output=True, timeout=SECONDS, check=True)
    readme = (tmp_path / "p" / "README.md").read_text(encoding="utf-8")
    tutorial = " ".join(step.body for step in steps(TUTORIAL.read_text(encoding="utf-8")))
    for command in ("recall-rebase conformance smoke --stdio -- python port.py",
                    "recall-rebase conformance run --only 'PRIM-*' --expectations expectations.toml --stdio -- python port.py"):
        assert command in readme and command in tutorial, command


def test_a_block_that_fails_fails_the_tutorial(tmp_path: Path) -> None:
    """The runner holds a command to its exit code, and a replacement to a line that is there."""
    failing = Step("run", "recall-rebase conformance new-port here --language cobol\n")
    try:
        run_step(failing, tmp_path)
    except AssertionError as error:
        assert "exit 2" in str(error)
    else:
        raise AssertionError("a command that exits 2 passed as a run step")
    (tmp_path / "f.py").write_text("a\n", encoding="utf-8")
    try:
        run_step(Step("in f.py, replace the line: b", "c\n"), tmp_path)
    except AssertionError as error:
        assert "has 0 lines 'b'" in str(error)
    else:
        raise AssertionError("a missing line was replaced")
