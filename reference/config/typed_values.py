"""What the user typed after ``/context config set <path>``, read by the path's kind (§1.5).

Booleans, safe integers and enum values are read as words; arrays and maps as JSON.  A value
that does not fit is refused with ``config-invalid-value`` before any file is touched.
"""

from __future__ import annotations

import re
from typing import Any, Final

from reference.config.catalog import CatalogField
from reference.config.defaults import CLASSIFICATIONS
from reference.config.errors import ConfigError
from reference.config.json_text import parse_json
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject, quote_string
from reference.primitives.jsvalues import MAX_SAFE_INTEGER, trim

_DECIMAL_INTEGER: Final = re.compile(r"^-?[0-9]+$")


def _invalid(path: str, detail: str) -> ContractViolation:
    return ContractViolation(Code.CONFIG_INVALID_VALUE, f"{path}: {detail}")


def _parse_json_value(raw: str, path: str) -> Any:
    try:
        return parse_json(raw)
    except ConfigError:
        raise _invalid(path, "expected valid JSON") from None


def _string_array(value: Any, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(entry, str) for entry in value):
        raise _invalid(path, "expected a JSON array of strings")
    return value


def _integer(raw: str, path: str) -> int:
    # Leading zeros do not count; more than 16 digits can never be a safe integer.
    if (not _DECIMAL_INTEGER.match(raw) or len(raw.lstrip("-").lstrip("0")) > 16
            or abs(int(raw)) > MAX_SAFE_INTEGER):
        raise _invalid(path, "expected a safe integer")
    return int(raw)


def _enum_array(item: CatalogField, raw: str) -> list[str]:
    entries = _string_array(_parse_json_value(raw, item.path), item.path)
    for entry in entries:
        if entry not in item.values:
            raise _invalid(item.path, f"invalid value {quote_string(entry)}; allowed: {', '.join(item.values)}")
    if len(set(entries)) != len(entries):
        raise _invalid(item.path, "duplicate values are not allowed")
    return entries


def _classification_map(raw: str, path: str) -> JsonObject:
    parsed = _parse_json_value(raw, path)
    if not isinstance(parsed, dict):
        raise _invalid(path, "expected a JSON object")
    for provider, allowed in parsed.items():
        if not trim(provider):
            raise _invalid(path, "provider names must not be empty")
        if not isinstance(allowed, list) or not all(entry in CLASSIFICATIONS for entry in allowed):
            raise _invalid(path, f"provider {quote_string(provider)} must map to an array of {', '.join(CLASSIFICATIONS)}")
    return parsed


def parse_value(item: CatalogField, raw_value: str) -> Any:
    """The typed value of what the user typed, by the catalog kind (contract §1.5)."""
    raw, path = trim(raw_value), item.path
    if item.kind == "boolean":
        if raw.lower() not in ("true", "false"):
            raise _invalid(path, "expected true or false")
        return raw.lower() == "true"
    if item.kind == "integer":
        return _integer(raw, path)
    if item.kind == "enum":
        if raw not in item.values:
            raise _invalid(path, f"expected one of {', '.join(item.values)}")
        return raw
    if item.kind == "string-array":
        return _string_array(_parse_json_value(raw, path), path)
    if item.kind == "enum-array":
        return _enum_array(item, raw)
    return _classification_map(raw, path)
