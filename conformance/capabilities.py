"""Capabilities: the operations a port declares in its handshake, held against what steps call.

A port that has done the reader and nothing else declares only those operations
(``ImplInfo.capabilities``, the ``operations`` list of the stdio hello). Which operations a
scenario needs is learnt as it runs: the first call of an undeclared operation raises
:class:`OperationNotDeclared` before the port sees it, and the plugin reports the scenario
UNSUPPORTED with that operation named, never FAIL (WPT's PRECONDITION_FAILED). A primitive the
port's platform lacks is UNSUPPORTED the same way (:mod:`conformance.platforms`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from conformance.protocol import OPERATIONS, Adapter, ImplInfo, JsonObject


class Unsupported(Exception):
    """The scenario needs what the implementation does not offer: UNSUPPORTED, with it named.

    ``missing`` is the report row's ``unsupported`` object (``schemas/report/v1``): the operation,
    or the platform and the primitives it lacks (:class:`conformance.platforms.PrimitiveMissing`).
    """

    @property
    def missing(self) -> dict[str, Any]:
        raise NotImplementedError


class OperationNotDeclared(Unsupported):
    """A step called an operation the port did not list in its handshake."""

    def __init__(self, operation: str) -> None:
        super().__init__(f"needs operation {operation!r}, which the implementation did not declare")
        self.operation = operation

    @property
    def missing(self) -> dict[str, Any]:
        return {"operation": self.operation}


def unknown_operations(info: ImplInfo) -> list[str]:
    """Declared operations the protocol does not have: a typo makes its scenarios UNSUPPORTED."""
    return sorted(set(info.capabilities) - set(OPERATIONS))


class DeclaredOperations:
    """An adapter that lets through only the operations its implementation declared at start."""

    def __init__(self, inner: Adapter, declared: Iterable[str] = ()) -> None:
        self.inner = inner
        self.declared: frozenset[str] = frozenset(declared)  # or learnt from the handshake by start()

    def start(self) -> ImplInfo:
        info = self.inner.start()
        self.declared = frozenset(info.capabilities)
        return info

    def stop(self) -> None:
        self.inner.stop()

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        if op not in self.declared:
            raise OperationNotDeclared(op)
        return self.inner.request(op, params)

    def __getattr__(self, name: str) -> Any:
        """Anything else (a restart, the stderr tail, …) is the wrapped adapter's."""
        if name == "inner":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)
