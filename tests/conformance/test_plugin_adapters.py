"""The runner reaches in-process implementations only through the ``recall_rebase.adapters`` entry points."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit.ports import run_plugin_in_process

from conformance.implementations import ADAPTER_ENTRY_POINTS, DEFAULT_ADAPTER, AdapterNotFound, adapter_class
from conformance.protocol import Adapter
from conformance.stdio import SubprocessAdapter


def test_the_default_adapter_is_the_entry_point_named_reference() -> None:
    assert DEFAULT_ADAPTER == "reference"
    assert ADAPTER_ENTRY_POINTS == "recall_rebase.adapters"
    implementation = adapter_class(DEFAULT_ADAPTER)()
    assert isinstance(implementation, Adapter)


def test_a_port_author_may_name_a_class_as_module_and_attribute() -> None:
    loaded: object = adapter_class("conformance.stdio:SubprocessAdapter")
    assert loaded is SubprocessAdapter


def test_an_unknown_entry_point_name_is_a_named_error() -> None:
    with pytest.raises(AdapterNotFound, match=r"no .recall_rebase\.adapters. entry point named .nope."):
        adapter_class("nope")


@pytest.mark.parametrize("name", ["no_such_module:Adapter", "conformance.stdio:NoSuchClass"])
def test_a_module_and_attribute_that_do_not_load_are_a_named_error(name: str) -> None:
    with pytest.raises(AdapterNotFound, match=r"cannot load the adapter"):
        adapter_class(name)


@pytest.mark.parametrize(("name", "said"), [
    ("nope", "no 'recall_rebase.adapters' entry point named 'nope'"),
    ("no_such_module:Adapter", "cannot load the adapter 'no_such_module:Adapter'"),
])
def test_the_plugin_says_a_name_that_designates_no_adapter_as_a_usage_error(tmp_path: Path, name: str,
                                                                          said: str) -> None:
    run = run_plugin_in_process(tmp_path, name, "--rr-only", "PRIM-001")
    assert run.code == pytest.ExitCode.USAGE_ERROR, run.stdout + run.stderr
    assert f"ERROR: {said}" in run.stderr and "Traceback" not in run.stderr + run.stdout
    assert run.lines == []  # no report: the run never started
