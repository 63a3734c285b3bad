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

from conformance.protocol import Adapter, ContractError
from conformance.world import HostWorld


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


def _facts(host_world: HostWorld) -> dict[str, Any]:
    error = host_world.error
    assert error is None, f"host.facts was refused: {error.code}: {error.message}"
    assert host_world.facts is not None, "the host facts were not requested"
    return host_world.facts


# --- Given --------------------------------------------------------------------------------------


@given("a host Pi home with an empty agent dir")
def host_pi_home(workdir: Path, host_world: HostWorld) -> None:
    _agent_dir(workdir).mkdir(parents=True, exist_ok=True)
    host_world.home = str(_root(workdir) / "home")


@given(
    parsers.re(r'a host project "(?P<relative>[^"]+)" (?P<kind>with|without) trust-requiring Pi resources')
)
def host_project(workdir: Path, host_world: HostWorld, relative: str, kind: str) -> None:
    project = Path(_path(workdir, relative))
    (project / ".pi").mkdir(parents=True, exist_ok=True)
    if kind == "with":
        _write(project / ".pi" / "settings.json", "{}")
    host_world.cwd = str(project)


@given(parsers.parse('the host project has a "{relative}" file'))
def host_project_file(host_world: HostWorld, relative: str) -> None:
    _write(Path(str(host_world.cwd)) / relative, "{}")


@given("the host project settings.json contains:")
def host_project_settings(host_world: HostWorld, docstring: str) -> None:
    _write(Path(str(host_world.cwd)) / ".pi" / "settings.json", docstring)


@given(
    parsers.re(r'the host Pi trust.json marks "(?P<relative>[^"]+)" as (?P<decision>trusted|untrusted|null)')
)
def host_trust_decision(workdir: Path, host_world: HostWorld, relative: str, decision: str) -> None:
    trust = host_world.trust
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
def host_env_var(host_world: HostWorld, name: str, value: str) -> None:
    host_world.env[name] = value


@given(parsers.re(r'the host Pi command line is "(?P<line>[^"]*)"'))
def host_argv(host_world: HostWorld, line: str) -> None:
    host_world.argv = shlex.split(line)


# --- When ---------------------------------------------------------------------------------------


def _request_facts(adapter: Adapter, host_world: HostWorld, cwd: str) -> None:
    params = {
        "home": host_world.home,
        "cwd": cwd,
        "env": dict(host_world.env),
        "argv": list(host_world.argv),
    }
    host_world.facts, host_world.error = None, None
    try:
        host_world.facts = adapter.request("host.facts", params)
    except ContractError as error:
        host_world.error = error


@when("the host facts are requested")
def request_host_facts(adapter: Adapter, host_world: HostWorld) -> None:
    _request_facts(adapter, host_world, str(host_world.cwd))


@when(parsers.parse('the host facts are requested for the relative working directory "{relative}"'))
def request_host_facts_relative(adapter: Adapter, host_world: HostWorld, relative: str) -> None:
    _request_facts(adapter, host_world, relative)


# --- Then ---------------------------------------------------------------------------------------


@then(parsers.parse('the host fact "{key}" is the path "{relative}"'))
def host_fact_path(workdir: Path, host_world: HostWorld, key: str, relative: str) -> None:
    assert _facts(host_world)[key] == _path(workdir, relative)


@then(parsers.parse('the host fact "{key}" is the text "{text}"'))
def host_fact_text(host_world: HostWorld, key: str, text: str) -> None:
    assert _facts(host_world)[key] == text


@then("the host session dir is the default Pi session dir of the host project")
def host_default_session_dir(workdir: Path, host_world: HostWorld) -> None:
    cwd = str(host_world.cwd)
    encoded = "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"
    assert _facts(host_world)["sessionDir"] == str(_agent_dir(workdir) / "sessions" / encoded)


@then("the host project is trusted")
def host_trusted(host_world: HostWorld) -> None:
    assert _facts(host_world)["projectTrusted"] is True


@then("the host project is not trusted")
def host_untrusted(host_world: HostWorld) -> None:
    assert _facts(host_world)["projectTrusted"] is False


@then(parsers.parse('the host trust source is "{source}"'))
def host_trust_source(host_world: HostWorld, source: str) -> None:
    assert _facts(host_world)["trustSource"] == source


@then(parsers.parse('the host facts request is refused with code "{code}"'))
def host_refused(host_world: HostWorld, code: str) -> None:
    error = host_world.error
    assert error is not None, f"host.facts answered {host_world.facts!r}"
    assert error.code == code, f"{error.code}: {error.message}"
