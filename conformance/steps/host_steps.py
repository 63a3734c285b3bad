"""Steps for ``features/host/host.feature``: Pi's host facts, reached only through the adapter.

The steps lay out a sandbox (a home with ``.pi/agent``, a workspace with projects) in the
scenario's ``workdir`` and call ``host.facts`` with that home, a project cwd, an environment and
an argv. Paths in step texts are relative to the (real) workdir, so trust.json keys are real paths.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, then, when

from conformance.protocol import ContractError


def _root(workdir: Path) -> Path:
    """The scratch dir as Pi sees it: real path, since Pi keys trust decisions by real path."""
    workdir.mkdir(parents=True, exist_ok=True)
    return workdir.resolve()


def _path(workdir: Path, relative: str) -> str:
    return os.path.normpath(_root(workdir) / relative)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _agent_dir(workdir: Path) -> Path:
    return _root(workdir) / "home" / ".pi" / "agent"


def _facts(scenario_state: dict[str, Any]) -> dict[str, Any]:
    error = scenario_state.get("host_error")
    assert error is None, f"host.facts was refused: {error.code}: {error.message}"
    facts: dict[str, Any] = scenario_state["host_facts"]
    return facts


# --- Given --------------------------------------------------------------------------------------


@given("a host Pi home with an empty agent dir")
def host_pi_home(workdir: Path, scenario_state: dict[str, Any]) -> None:
    _agent_dir(workdir).mkdir(parents=True, exist_ok=True)
    scenario_state["host_home"] = str(_root(workdir) / "home")
    scenario_state.setdefault("host_env", {})
    scenario_state.setdefault("host_argv", [])
    scenario_state.setdefault("host_trust", {})


@given(
    parsers.re(r'a host project "(?P<relative>[^"]+)" (?P<kind>with|without) trust-requiring Pi resources')
)
def host_project(workdir: Path, scenario_state: dict[str, Any], relative: str, kind: str) -> None:
    project = Path(_path(workdir, relative))
    (project / ".pi").mkdir(parents=True, exist_ok=True)
    if kind == "with":
        _write(project / ".pi" / "settings.json", "{}")
    scenario_state["host_cwd"] = str(project)


@given(parsers.parse('the host project has a "{relative}" file'))
def host_project_file(scenario_state: dict[str, Any], relative: str) -> None:
    _write(Path(scenario_state["host_cwd"]) / relative, "{}")


@given("the host project settings.json contains:")
def host_project_settings(scenario_state: dict[str, Any], docstring: str) -> None:
    _write(Path(scenario_state["host_cwd"]) / ".pi" / "settings.json", docstring)


@given(
    parsers.re(r'the host Pi trust.json marks "(?P<relative>[^"]+)" as (?P<decision>trusted|untrusted|null)')
)
def host_trust_decision(workdir: Path, scenario_state: dict[str, Any], relative: str, decision: str) -> None:
    trust: dict[str, bool | None] = scenario_state["host_trust"]
    trust[_path(workdir, relative)] = {"trusted": True, "untrusted": False, "null": None}[decision]
    _write(_agent_dir(workdir) / "trust.json", json.dumps(trust))


@given("the host Pi trust.json contains:")
def host_trust_text(workdir: Path, docstring: str) -> None:
    _write(_agent_dir(workdir) / "trust.json", docstring)


@given("the host Pi global settings.json contains:")
def host_global_settings(workdir: Path, docstring: str) -> None:
    _write(_agent_dir(workdir) / "settings.json", docstring)


@given(parsers.parse('the host Pi global settings.json says sessionDir is the path "{relative}"'))
def host_global_session_dir(workdir: Path, relative: str) -> None:
    _write(_agent_dir(workdir) / "settings.json", json.dumps({"sessionDir": _path(workdir, relative)}))


@given(parsers.re(r'the host environment variable "(?P<name>[^"]+)" is "(?P<value>[^"]*)"'))
def host_env_var(scenario_state: dict[str, Any], name: str, value: str) -> None:
    scenario_state["host_env"][name] = value


@given(parsers.re(r'the host Pi command line is "(?P<line>[^"]*)"'))
def host_argv(scenario_state: dict[str, Any], line: str) -> None:
    scenario_state["host_argv"] = shlex.split(line)


# --- When ---------------------------------------------------------------------------------------


def _request_facts(adapter: Any, scenario_state: dict[str, Any], cwd: str) -> None:
    params = {
        "home": scenario_state["host_home"],
        "cwd": cwd,
        "env": dict(scenario_state["host_env"]),
        "argv": list(scenario_state["host_argv"]),
    }
    scenario_state["host_facts"], scenario_state["host_error"] = None, None
    try:
        scenario_state["host_facts"] = adapter.request("host.facts", params)
    except ContractError as error:
        scenario_state["host_error"] = error


@when("the host facts are requested")
def request_host_facts(adapter: Any, scenario_state: dict[str, Any]) -> None:
    _request_facts(adapter, scenario_state, scenario_state["host_cwd"])


@when(parsers.parse('the host facts are requested for the relative working directory "{relative}"'))
def request_host_facts_relative(adapter: Any, scenario_state: dict[str, Any], relative: str) -> None:
    _request_facts(adapter, scenario_state, relative)


# --- Then ---------------------------------------------------------------------------------------


@then(parsers.parse('the host fact "{key}" is the path "{relative}"'))
def host_fact_path(workdir: Path, scenario_state: dict[str, Any], key: str, relative: str) -> None:
    assert _facts(scenario_state)[key] == _path(workdir, relative)


@then(parsers.parse('the host fact "{key}" is the text "{text}"'))
def host_fact_text(scenario_state: dict[str, Any], key: str, text: str) -> None:
    assert _facts(scenario_state)[key] == text


@then("the host session dir is the default Pi session dir of the host project")
def host_default_session_dir(workdir: Path, scenario_state: dict[str, Any]) -> None:
    cwd = scenario_state["host_cwd"]
    encoded = "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"
    assert _facts(scenario_state)["sessionDir"] == str(_agent_dir(workdir) / "sessions" / encoded)


@then("the host project is trusted")
def host_trusted(scenario_state: dict[str, Any]) -> None:
    assert _facts(scenario_state)["projectTrusted"] is True


@then("the host project is not trusted")
def host_untrusted(scenario_state: dict[str, Any]) -> None:
    assert _facts(scenario_state)["projectTrusted"] is False


@then(parsers.parse('the host trust source is "{source}"'))
def host_trust_source(scenario_state: dict[str, Any], source: str) -> None:
    assert _facts(scenario_state)["trustSource"] == source


@then(parsers.parse('the host facts request is refused with code "{code}"'))
def host_refused(scenario_state: dict[str, Any], code: str) -> None:
    error = scenario_state.get("host_error")
    assert error is not None, f"host.facts answered {scenario_state.get('host_facts')!r}"
    assert error.code == code, f"{error.code}: {error.message}"
