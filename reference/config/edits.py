"""``/context config set`` and ``unset``: one saved value changed in one file (contract §1.5).

What the user typed after ``set <path>`` is read by the path's kind: booleans, safe integers and
enum values as words, arrays and maps as JSON; a value that does not fit is refused with
``config-invalid-value`` before any file is touched.  The project file needs a trusted project;
``--global`` edits ``<agentDir>/ds4-context.json``.  The edited file is validated whole on the
defaults and left untouched when it would be invalid; the running host keeps what it loaded.

The file is read as Node's ``readFileSync(path, "utf-8")`` reads it (invalid UTF-8 becomes
U+FFFD); as today, a path that exists is opened whatever it is: a directory fails with its
``OSError`` (reported, not raised).  It is rewritten whole as ``JSON.stringify(content, null, 2)``
plus a newline, installed by an atomic rename that keeps the file's mode.  A new file is
owner-only (0600) and every folder created for it 0700 (docs/privacy.md, owner-only files): the
file says which providers may see what.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from reference.config.catalog import CatalogField, find_field
from reference.config.defaults import CLASSIFICATIONS, DEFAULT_CONFIG
from reference.config.dotted_paths import remove_path, set_path
from reference.config.errors import ConfigError
from reference.config.layering import Scope, merge_known, parse_json
from reference.config.validation import validate_config
from reference.pi.host.facts import HostFacts
from reference.pi.host.files import read_text
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject, js_stringify, js_stringify_pretty, quote_string
from reference.primitives.jsvalues import MAX_SAFE_INTEGER, trim
from reference.primitives.platform_ops.owner_only import ensure_private_dir, replace_keeping_mode


@dataclass(frozen=True)
class ConfigChange:
    """What a saved edit did; ``message`` is the reply shown to the user."""

    file: str
    scope: Scope
    message: str
    warnings: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {"message": self.message, "warnings": list(self.warnings), "file": self.file}


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


def read_saved_object(path: str) -> JsonObject:
    """The saved file as an object for an edit; an absent file is empty, a broken one an error."""
    if not os.path.exists(path):
        return {}
    try:
        text = read_text(path)
    except OSError as exc:
        raise ContractViolation(Code.CONFIG_IO_ERROR, f"Cannot read configuration file {path}: {exc.strerror or exc}") from None
    try:
        parsed = parse_json(text)
    except ConfigError:
        raise ContractViolation(Code.CONFIG_FILE_MALFORMED, f"Configuration file is malformed JSON: {path}") from None
    if not isinstance(parsed, dict):
        raise ContractViolation(Code.CONFIG_FILE_MALFORMED, f"Configuration file must contain a JSON object: {path}")
    return cast(JsonObject, parsed)


def write_saved_object(path: str, content: Mapping[str, Any]) -> None:
    """``JSON.stringify(content, null, 2)`` plus a newline, installed by an atomic rename; a new
    file 0600 and its new folders 0700, a file that exists keeps its mode."""
    data = (js_stringify_pretty(content) + "\n").encode("utf-8", "surrogatepass")
    directory = os.path.dirname(path) or "."
    try:
        ensure_private_dir(directory)
        replace_keeping_mode(path, data, directory)
    except OSError as exc:
        raise ContractViolation(Code.CONFIG_IO_ERROR, f"Cannot write configuration file {path}: {exc.strerror or exc}") from None


def _catalog_field(path: str) -> CatalogField:
    item = find_field(path)
    if item is None:
        raise ContractViolation(Code.CONFIG_UNKNOWN_PATH, f"Unknown configuration key: {path}. See /context config for the full list.")
    return item


def _target(global_target: bool, host: HostFacts) -> tuple[Scope, str]:
    if global_target:
        return "global", host.global_config_path
    if not host.project_trusted:
        raise ContractViolation(
            Code.CONFIG_PROJECT_UNTRUSTED,
            "Project configuration requires a trusted project; use /context config set/unset --global instead",
        )
    return "project", host.project_config_path


def _checked(content: Mapping[str, Any]) -> tuple[str, ...]:
    """The file's content alone on the defaults, validated whole; its merge warnings."""
    warnings: list[str] = []
    try:
        validate_config(merge_known(DEFAULT_CONFIG, content, warnings))
    except ConfigError as exc:
        raise ContractViolation(Code.CONFIG_INVALID, str(exc)) from None
    return tuple(warnings)


def _reply(first: str, warnings: Sequence[str]) -> str:
    lines = [first, "Saved for the next Pi session: the running session keeps the configuration it loaded at start."]
    if warnings:
        lines += ["", *(f"Warning: {warning}" for warning in warnings)]
    return "\n".join(lines)


def set_value(path: str, raw_value: str, *, global_target: bool, host: HostFacts) -> ConfigChange:
    """Save one value; the file is validated whole and left untouched when it would be invalid."""
    item = _catalog_field(path)
    scope, file_path = _target(global_target, host)
    content = read_saved_object(file_path)
    value = parse_value(item, raw_value)
    set_path(content, path, value)
    warnings = _checked(content)
    write_saved_object(file_path, content)
    message = _reply(f"Set {path} = {js_stringify(value)} in {file_path} ({scope} configuration).", warnings)
    return ConfigChange(file=file_path, scope=scope, message=message, warnings=warnings)


def unset_value(path: str, *, global_target: bool, host: HostFacts) -> ConfigChange:
    """Remove one saved value; the rest of the file must still be valid to be written."""
    _catalog_field(path)
    scope, file_path = _target(global_target, host)
    content = read_saved_object(file_path)
    if not remove_path(content, path):
        raise ContractViolation(Code.CONFIG_NOT_SET, f"{path} is not set in {file_path}")
    warnings = _checked(content)
    write_saved_object(file_path, content)
    message = _reply(f"Unset {path} in {file_path} ({scope} configuration).", warnings)
    return ConfigChange(file=file_path, scope=scope, message=message, warnings=warnings)
