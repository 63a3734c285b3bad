"""Steps for PRIM scenarios: JSON bytes, UTF-16 lengths, tokens, paths."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.session_steps import call_adapter, result

State = dict[str, Any]


@when(parsers.parse("the JSON text {text} is parsed and serialized again"))
def when_canonicalize(adapter: Adapter, scenario_state: State, text: str) -> None:
    call_adapter(adapter, scenario_state, "json.canonicalize", {"text": text})


@then(parsers.parse("the serialized text is {text}"))
def then_serialized(scenario_state: State, text: str) -> None:
    assert result(scenario_state)["text"] == text, result(scenario_state)


@when(parsers.parse('the text "{text}" is measured'))
def when_measure(adapter: Adapter, scenario_state: State, text: str) -> None:
    call_adapter(adapter, scenario_state, "text.measure", {"text": text})


@when("the empty text is measured")
def when_measure_empty(adapter: Adapter, scenario_state: State) -> None:
    call_adapter(adapter, scenario_state, "text.measure", {"text": ""})


@then(parsers.parse("it is {units:d} UTF-16 units, {size:d} UTF-8 bytes and {tokens:d} chars-v1 tokens"))
def then_measured(scenario_state: State, units: int, size: int, tokens: int) -> None:
    assert result(scenario_state) == {"utf16Length": units, "utf8Length": size, "tokens": tokens}


@when(parsers.parse('the text "{text}" is cut to {units:d} UTF-16 units'))
def when_slice(adapter: Adapter, scenario_state: State, text: str, units: int) -> None:
    call_adapter(adapter, scenario_state, "text.slice", {"text": text, "maxUnits": units})


@then(parsers.parse('the cut text is "{text}"'))
def then_sliced(scenario_state: State, text: str) -> None:
    assert result(scenario_state)["text"] == text


@when(parsers.parse("Pi's session folder name of the cwd \"{cwd}\" is computed"))
def when_dir_name(adapter: Adapter, scenario_state: State, cwd: str) -> None:
    call_adapter(adapter, scenario_state, "path.sessionDirName", {"cwd": cwd})


@then(parsers.parse('the folder name is "{name}"'))
def then_dir_name(scenario_state: State, name: str) -> None:
    assert result(scenario_state)["name"] == name


@given("a project folder reached through a symbolic link")
def given_symlink(workdir: Path, scenario_state: State) -> None:
    real = workdir / "real-project"
    (real / "sub").mkdir(parents=True)
    link = workdir / "link"
    try:
        link.symlink_to(real, target_is_directory=True)
    except OSError as exc:  # Windows without the symlink privilege
        pytest.fail(f"this platform cannot create the symbolic link this scenario needs: {exc}")
    scenario_state["real"] = real
    scenario_state["link"] = link


@when(parsers.parse('the canonical path of the link with a trailing "{suffix}" is computed'))
def when_canonical_link(adapter: Adapter, scenario_state: State, suffix: str) -> None:
    call_adapter(adapter, scenario_state, "path.canonical", {"path": str(scenario_state["link"]) + suffix})


@then("it is the real path of the project folder")
def then_real(scenario_state: State) -> None:
    expected = os.path.realpath(scenario_state["real"])
    if sys.platform == "win32":
        expected = expected.lower()
    assert result(scenario_state)["path"] == expected


@when(parsers.parse('the canonical path of "{relative}" under the scenario folder is computed'))
def when_canonical_missing(adapter: Adapter, workdir: Path, scenario_state: State, relative: str) -> None:
    call_adapter(adapter, scenario_state, "path.canonical", {"path": str(workdir / relative)})


@then(parsers.parse('it is the scenario folder joined with "{name}"'))
def then_joined(workdir: Path, scenario_state: State, name: str) -> None:
    expected = os.path.join(os.path.realpath(workdir), name)
    if sys.platform == "win32":
        expected = expected.lower()
    assert result(scenario_state)["path"] == expected
