"""In-process ports that break once: the reference adapter, misbehaving on a cue.

``--rr-adapter testkit.ports.broken_inprocess:BrokenOnce`` runs it; the third ``text.measure``
of the whole run raises (a class attribute counts across the fresh instances the supervisor
makes after the crash), every other request is the reference's. ``WrongTypeOnce`` answers the
second ``history.open`` of the run with a number for ``sessionId`` (off the schema; the steps
ignore that result, so only ``--rr-validate-messages`` sees it).
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


WRONG_TYPE_OP = "history.open"
WRONG_TYPE_AT = 2


class WrongTypeOnce(ReferenceAdapter):
    """The reference, except that one result has a field of the wrong type."""

    calls: ClassVar[list[str]] = []

    def request(self, op: str, params: Mapping[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = super().request(op, params)
        if op == WRONG_TYPE_OP:
            WrongTypeOnce.calls.append(op)
            if len(WrongTypeOnce.calls) == WRONG_TYPE_AT:
                result = {**result, "sessionId": 7}
        return result
