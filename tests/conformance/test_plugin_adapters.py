"""The runner reaches in-process implementations only through the ``recall_rebase.adapters`` entry points."""

from __future__ import annotations

import pytest

from conformance.implementations import ADAPTER_ENTRY_POINTS, DEFAULT_ADAPTER, AdapterNotFound, adapter_class
from conformance.protocol import Adapter
from conformance.stdio import SubprocessAdapter


def test_the_default_adapter_is_the_entry_point_named_reference() -> None:
    assert DEFAULT_ADAPTER == "reference"
    assert ADAPTER_ENTRY_POINTS == "recall_rebase.adapters"
    implementation = adapter_class(DEFAULT_ADAPTER)()
    assert isinstance(implementation, Adapter)


def test_a_port_author_may_name_a_class_as_module_and_attribute() -> None:
    assert adapter_class("conformance.stdio:SubprocessAdapter") is SubprocessAdapter


def test_an_unknown_entry_point_name_is_a_named_error() -> None:
    with pytest.raises(AdapterNotFound, match=r"no .recall_rebase\.adapters. entry point named .nope."):
        adapter_class("nope")


@pytest.mark.parametrize("name", ["no_such_module:Adapter", "conformance.stdio:NoSuchClass"])
def test_a_module_and_attribute_that_do_not_load_are_a_named_error(name: str) -> None:
    with pytest.raises(AdapterNotFound, match=r"cannot load the adapter"):
        adapter_class(name)
