"""``/context config set`` and ``unset``: one saved value changed in one file (contract §1.5).

The project file needs a trusted project; ``--global`` edits ``<agentDir>/ds4-context.json``.
The edited file is validated whole on the defaults and left untouched when it would be invalid;
the running host keeps what it loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference.config.catalog import CatalogField, find_field
from reference.config.dotted_paths import remove_path, set_path
from reference.config.errors import ConfigError
from reference.config.files import read_saved_object, write_saved_object
from reference.config.layering import ConfigTargets, Scope
from reference.config.typed_values import parse_value
from reference.config.validation import validate_config_file
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject, js_stringify


@dataclass(frozen=True)
class ConfigChange:
    """What a saved edit did; ``message`` is the reply shown to the user."""

    file: str
    scope: Scope
    message: str
    warnings: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {"message": self.message, "warnings": list(self.warnings), "file": self.file}


def _catalog_field(path: str) -> CatalogField:
    item = find_field(path)
    if item is None:
        raise ContractViolation(Code.CONFIG_UNKNOWN_PATH, f"Unknown configuration key: {path}. See /context config for the full list.")
    return item


def _target(global_target: bool, targets: ConfigTargets) -> tuple[Scope, str]:
    if global_target:
        return "global", targets.global_path
    if not targets.project_trusted:
        raise ContractViolation(
            Code.CONFIG_PROJECT_UNTRUSTED,
            "Project configuration requires a trusted project; use /context config set/unset --global instead",
        )
    return "project", targets.project_path


def _checked(content: Mapping[str, Any]) -> tuple[str, ...]:
    try:
        return validate_config_file(content)[1]
    except ConfigError as exc:
        raise ContractViolation(Code.CONFIG_INVALID, str(exc)) from None


def _reply(first: str, warnings: Sequence[str]) -> str:
    lines = [first, "Saved for the next Pi session: the running session keeps the configuration it loaded at start."]
    if warnings:
        lines += ["", *(f"Warning: {warning}" for warning in warnings)]
    return "\n".join(lines)


def set_value(path: str, raw_value: str, *, global_target: bool, targets: ConfigTargets) -> ConfigChange:
    """Save one value; the file is validated whole and left untouched when it would be invalid."""
    item = _catalog_field(path)
    scope, file_path = _target(global_target, targets)
    content = read_saved_object(file_path)
    value = parse_value(item, raw_value)
    set_path(content, path, value)
    warnings = _checked(content)
    write_saved_object(file_path, content)
    message = _reply(f"Set {path} = {js_stringify(value)} in {file_path} ({scope} configuration).", warnings)
    return ConfigChange(file=file_path, scope=scope, message=message, warnings=warnings)


def unset_value(path: str, *, global_target: bool, targets: ConfigTargets) -> ConfigChange:
    """Remove one saved value; the rest of the file must still be valid to be written."""
    _catalog_field(path)
    scope, file_path = _target(global_target, targets)
    content = read_saved_object(file_path)
    if not remove_path(content, path):
        raise ContractViolation(Code.CONFIG_NOT_SET, f"{path} is not set in {file_path}")
    warnings = _checked(content)
    write_saved_object(file_path, content)
    message = _reply(f"Unset {path} in {file_path} ({scope} configuration).", warnings)
    return ConfigChange(file=file_path, scope=scope, message=message, warnings=warnings)
