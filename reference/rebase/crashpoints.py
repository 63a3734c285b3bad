"""Arming and killing at the named crash points of the session rebase (decision D11; the points
themselves are :data:`reference.artifacts.phases.CRASH_POINTS`).

Crash tests need a real process death at an exact place, with no cleanup: ``reached(point)``
ends the process with ``os._exit(91)`` when that point is armed and does nothing otherwise. A
point is armed once, at start-up, from ``RECALL_REBASE_CRASH_AT`` (the entry point calls
``arm_from_environment()``; importing this module reads nothing), or through ``arm()`` by the
adapter. This is the product path's only test-only branch.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

from reference.artifacts.phases import CRASH_POINTS
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation

ENV_VAR: Final = "RECALL_REBASE_CRASH_AT"
CRASH_EXIT_CODE: Final = 91

_armed: str | None = None


def checked_point(point: object) -> str:
    """The point itself, or a refusal that lists the valid names (a typo must not arm nothing)."""
    if point not in CRASH_POINTS:
        raise ContractViolation(
            Code.INVALID_CRASH_POINT,
            f"unknown crash point {point!r}; expected one of {', '.join(CRASH_POINTS)}",
        )
    return str(point)


def arm(point: str | None) -> None:
    """Arm one crash point (``None`` disarms); an unknown name is refused and changes nothing."""
    global _armed
    _armed = None if point is None else checked_point(point)


def arm_from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """Read ``RECALL_REBASE_CRASH_AT`` once, at start-up; unset or empty arms nothing."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    arm(value or None)
    return _armed


def reached(point: str) -> None:
    """Die at once, without cleanup, when ``point`` is armed; the name is checked either way."""
    if checked_point(point) == _armed:
        os._exit(CRASH_EXIT_CODE)
