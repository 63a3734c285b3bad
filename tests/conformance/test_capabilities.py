"""Capabilities: an operation the implementation did not declare never reaches it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from conformance.capabilities import DeclaredOperations, OperationNotDeclared, unknown_operations
from conformance.protocol import ImplInfo, JsonObject


class TwoOperations:
    """An in-process port that declares two operations and records what it is asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.stderr = "its own attribute"

    def start(self) -> ImplInfo:
        return ImplInfo("two", "1", "python", 1, capabilities=("text.measure", "json.canonicalize"))

    def stop(self) -> None:
        self.asked.append("stop")

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        self.asked.append(op)
        return {"op": op}


def test_declared_operations_pass_and_undeclared_ones_are_refused_before_the_port() -> None:
    port = TwoOperations()
    adapter = DeclaredOperations(port)
    assert adapter.start().capabilities == ("text.measure", "json.canonicalize")
    assert adapter.request("text.measure", {"text": "a"}) == {"op": "text.measure"}
    with pytest.raises(OperationNotDeclared) as refused:
        adapter.request("session.inspect", {"path": "/x"})
    assert refused.value.operation == "session.inspect"
    assert "'session.inspect'" in str(refused.value)
    adapter.stop()
    assert port.asked == ["text.measure", "stop"]


def test_nothing_is_declared_before_the_handshake() -> None:
    adapter = DeclaredOperations(TwoOperations())
    with pytest.raises(OperationNotDeclared):
        adapter.request("text.measure", {"text": "a"})


def test_the_wrapper_hands_anything_else_to_the_port() -> None:
    adapter = DeclaredOperations(TwoOperations())
    assert adapter.stderr == "its own attribute"
    with pytest.raises(AttributeError):
        adapter.no_such_thing  # noqa: B018


def test_operations_protocol_version_1_lacks_are_named() -> None:
    typo = ImplInfo("typo", "1", "python", 1, capabilities=("text.measure", "text.mesure", "a.b"))
    assert unknown_operations(typo) == ["a.b", "text.mesure"]
    assert unknown_operations(TwoOperations().start()) == []
