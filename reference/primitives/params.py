"""The parameter checks every adapter-facing operation shares: a wrong type is ``invalid-params``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import MAX_SAFE_INTEGER, is_safe_integer
from reference.primitives.textunits import encodes_as_utf8


def string_param(params: Mapping[str, Any], name: str) -> str:
    """``params[name]`` when it is a string; anything else (absent included) is ``invalid-params``."""
    value = params.get(name)
    if not isinstance(value, str):
        raise ContractViolation(Code.INVALID_PARAMS, f"parameter {name!r} must be a string")
    return value


def safe_integer_param(params: Mapping[str, Any], name: str, *, minimum: int = 0) -> int:
    """``params[name]`` when it is an integer from ``minimum`` to 2^53-1 (a JSON ``1.0`` counts, as in
    JavaScript); a string, a fraction, a boolean, null or a larger number is ``invalid-params``."""
    value: Any = params.get(name)
    if not is_safe_integer(value) or value < minimum:
        raise ContractViolation(Code.INVALID_PARAMS,
                                f"parameter {name!r} must be an integer from {minimum} to {MAX_SAFE_INTEGER}")
    return int(value)


def bool_param(params: Mapping[str, Any], name: str) -> bool:
    """``params[name]`` when it is ``true`` or ``false``; anything else (absent included) is ``invalid-params``."""
    value = params.get(name)
    if not isinstance(value, bool):
        raise ContractViolation(Code.INVALID_PARAMS, f"parameter {name!r} must be true or false")
    return value


def unusable_path(value: str) -> str | None:
    """Why ``value`` cannot name a file (a NUL, or a UTF-16 surrogate without its pair), else None."""
    if "\x00" in value:
        return "contains a NUL character"
    if not encodes_as_utf8(value):
        return "contains a lone UTF-16 surrogate"
    return None
