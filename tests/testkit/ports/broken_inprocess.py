"""An in-process port that breaks once: the reference adapter raising ``KeyError`` on a cue.

``--rr-adapter testkit.ports.broken_inprocess:BrokenOnce`` runs it; the third ``text.measure``
of the whole run raises (a class attribute counts across the fresh instances the supervisor
makes after the crash), every other request is the reference's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from reference.adapter.operations import ReferenceAdapter

BROKEN_OP = "text.measure"
BROKEN_AT = 3


class BrokenOnce(ReferenceAdapter):
    """The reference, except that one request raises outside the contract."""

    calls: ClassVar[list[str]] = []

    def request(self, op: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if op == BROKEN_OP:
            BrokenOnce.calls.append(op)
            if len(BrokenOnce.calls) == BROKEN_AT:
                raise KeyError("a bug of this port")
        result: dict[str, Any] = super().request(op, params)
        return result
