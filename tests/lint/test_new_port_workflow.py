"""The CI workflow ``conformance new-port`` writes lints clean, as the project's own does
(tests/lint/test_workflow.py), and runs smoke, then the suite with the manifest, against the port."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from testkit.workflow_lint import schema_check, zizmor

from conformance import __version__ as toolkit_version
from conformance.port_scaffold import WORKFLOW, Language, new_port

PROJECT_WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "ci.yml"


def written(tmp_path: Path, language: Language) -> Path:
    return new_port(str(tmp_path / "my-port"), language).folder / WORKFLOW


def steps(path: Path) -> list[dict[str, Any]]:
    loaded: dict[str, Any] = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    job_steps: list[dict[str, Any]] = loaded["jobs"]["conformance"]["steps"]
    return job_steps


@pytest.mark.parametrize("language", list(Language), ids=lambda language: language.value)
def test_the_new_ports_workflow_lints_clean(tmp_path: Path, language: Language) -> None:
    workflow = written(tmp_path, language)
    done = zizmor(workflow)
    assert done.returncode == 0 and "No findings" in done.stdout + done.stderr, done.stdout + done.stderr
    checked = schema_check(workflow)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("language", list(Language), ids=lambda language: language.value)
def test_the_workflow_installs_the_toolkit_then_runs_smoke_then_the_suite(tmp_path: Path, language: Language) -> None:
    workflow = written(tmp_path, language)
    runs = [step["run"].strip() for step in steps(workflow) if "run" in step]
    command = language.relative_command
    assert runs == ['python -m pip install "recall-rebase==$RECALL_REBASE_VERSION"',
                    f"recall-rebase conformance smoke --stdio -- {command}",
                    "recall-rebase conformance run --expectations expectations.toml --report conformance.ndjson "
                    f"--stdio -- {command}"]
    assert f'RECALL_REBASE_VERSION: "{toolkit_version}"' in workflow.read_text(encoding="utf-8")


def test_its_actions_are_pinned_as_the_projects_own(tmp_path: Path) -> None:
    pinned = [step["uses"] for step in steps(written(tmp_path, Language.PYTHON)) if "uses" in step]
    project = PROJECT_WORKFLOW.read_text(encoding="utf-8")
    assert len(pinned) == 2 and all(f"uses: {uses}  #" in project for uses in pinned), pinned


def test_the_linter_finds_an_unpinned_action_in_it(tmp_path: Path) -> None:
    workflow = written(tmp_path, Language.PYTHON)
    text = workflow.read_text(encoding="utf-8")
    pinned = next(step["uses"] for step in steps(workflow) if "uses" in step)
    workflow.write_text(text.replace(pinned, pinned.split("@")[0] + "@v7"), encoding="utf-8")
    done = zizmor(workflow)
    assert done.returncode != 0 and "unpinned-uses" in done.stdout + done.stderr
