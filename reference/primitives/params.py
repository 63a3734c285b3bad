"""The parameter checks every adapter-facing operation shares: a wrong type is ``invalid-params``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation


def string_param(params: Mapping[str, Any], name: str) -> str:
    """``params[name]`` when it is a string; anything else (absent included) is ``invalid-params``."""
    value = params.get(name)
    if not isinstance(value, str):
        raise ContractViolation(Code.INVALID_PARAMS, f"parameter {name!r} must be a string")
    return value
