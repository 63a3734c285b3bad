"""Layered loading (contract §1.4): defaults, the global file, then the project file if trusted.

Each file is merged and validated as a whole on the layer below, or discarded as a whole with
one warning.  The merge is config-loader.ts ``mergeKnown``, key by key: JavaScript ``typeof``
decides whether a value may replace the default, and a bad key is skipped with a warning while
the rest of the file still applies.  A loaded configuration never changes: a saved edit applies
when the next host starts.

A file's text is parsed by ``reference.primitives.jsonbytes.js_parse`` (JavaScript numbers and
property order); :func:`parse_json` words its refusals as the loader always has (they end up in
"configuration ignored" warnings), including a leading byte-order mark, which is refused.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from reference.config.defaults import default_config
from reference.config.errors import ConfigError
from reference.config.validation import validate_config
from reference.pi.host.facts import HostFacts
from reference.pi.host.files import read_text
from reference.primitives.jsonbytes import JsonObject, JsonParseError, js_parse, property_order
from reference.primitives.jsvalues import is_number, typeof

Scope = Literal["global", "project"]

_BOM: Final = "\ufeff"
_BOM_REFUSAL: Final = "invalid JSON at line 1 column 1: Unexpected UTF-8 BOM (decode using utf-8-sig)"
_CONSTANT_SUFFIX: Final = " is not JSON"  # js_parse's reason for NaN, Infinity and -Infinity


def parse_json(text: str) -> Any:
    """``JSON.parse`` with JavaScript numbers and property order; raises :class:`ConfigError`."""
    if text.startswith(_BOM):
        raise ConfigError(_BOM_REFUSAL)
    try:
        return js_parse(text, js_numbers=True, deep=False)
    except JsonParseError as exc:
        if exc.line == 0:  # JSON in shape, not to JavaScript: the reason names the constant
            raise ConfigError(f"{exc.reason.removesuffix(_CONSTANT_SUFFIX)} is not valid JSON") from None
        raise ConfigError(f"invalid JSON at line {exc.line} column {exc.column}: {exc.reason}") from None
    except RecursionError:
        raise ConfigError("invalid JSON: nested too deeply") from None

# Opt-in keys absent from the defaults that a file may still add.
_OPTIONAL_OBJECT_PATHS: Final = frozenset({"compaction.model", "compaction.summary"})
_OPTIONAL_BOOLEAN_PATHS: Final = frozenset({"modelAwareness.autoTune"})
# Maps merged entry by entry onto the layer below instead of replaced.
_SPREAD_MAP_PATHS: Final = frozenset({"privacy.remoteProviders", "modelAwareness.overrides"})


def merge_known(
    base: Mapping[str, Any], override: Mapping[str, Any], warnings: list[str], prefix: str = ""
) -> JsonObject:
    """Apply a file's keys onto the layer below; bad keys are skipped with a warning."""
    result: JsonObject = copy.deepcopy(dict(base))
    for key, incoming in override.items():
        path = f"{prefix}.{key}" if prefix else key
        if key not in base:
            if path in _OPTIONAL_OBJECT_PATHS and isinstance(incoming, dict):
                result[key] = copy.deepcopy(incoming)
            elif path in _OPTIONAL_BOOLEAN_PATHS and isinstance(incoming, bool):
                result[key] = incoming
            else:
                warnings.append(f"Unknown configuration key ignored: {path}")
            continue
        expected = base[key]
        if isinstance(expected, dict):
            if not isinstance(incoming, dict):
                warnings.append(f"Invalid configuration value ignored: {path} must be an object")
            elif path in _SPREAD_MAP_PATHS:
                result[key] = dict(property_order({**copy.deepcopy(expected), **copy.deepcopy(incoming)}))
            elif not expected:
                result[key] = copy.deepcopy(incoming)
            else:
                result[key] = merge_known(expected, incoming, warnings, path)
            continue
        if typeof(incoming) != typeof(expected) or (is_number(incoming) and not math.isfinite(incoming)):
            warnings.append(f"Invalid configuration value ignored: {path} has the wrong type")
            continue
        result[key] = copy.deepcopy(incoming)
    return result


@dataclass(frozen=True)
class ConfigFile:
    """One layer's file and whether it was applied."""

    scope: Scope
    path: str
    loaded: bool

    def to_json(self) -> JsonObject:
        return {"scope": self.scope, "path": self.path, "loaded": self.loaded}


@dataclass(frozen=True)
class LoadedConfig:
    """The effective configuration of one host start; it never changes afterwards."""

    config: JsonObject
    warnings: tuple[str, ...]
    files: tuple[ConfigFile, ...]

    def file(self, scope: Scope) -> ConfigFile:
        return next(item for item in self.files if item.scope == scope)


def _apply_file(path: str, base: JsonObject, warnings: list[str]) -> tuple[JsonObject, bool]:
    """One layer: merged and validated as a whole, or discarded as a whole with one warning."""
    if not os.path.exists(path):
        return base, False
    file_warnings: list[str] = []
    try:
        try:
            text = read_text(path)
        except OSError as exc:
            raise ConfigError(f"cannot read the file: {exc.strerror or exc}") from None
        parsed = parse_json(text)
        if not isinstance(parsed, dict):
            raise ConfigError("top-level JSON value must be an object")
        candidate = merge_known(base, parsed, file_warnings)
        validate_config(candidate)
    except ConfigError as exc:
        warnings.append(f"{path}: configuration ignored: {exc}")
        return base, False
    warnings.extend(f"{path}: {warning}" for warning in file_warnings)
    return candidate, True


def load_config(*, global_path: str, project_path: str, project_trusted: bool) -> LoadedConfig:
    """Defaults, then the global file, then the project file when the project is trusted."""
    warnings: list[str] = []
    config, global_loaded = _apply_file(global_path, default_config(), warnings)
    project_loaded = False
    if project_trusted:
        config, project_loaded = _apply_file(project_path, config, warnings)
    elif os.path.exists(project_path):
        warnings.append(f"{project_path}: project configuration skipped because the project is not trusted")
    files = (ConfigFile("global", global_path, global_loaded), ConfigFile("project", project_path, project_loaded))
    return LoadedConfig(config=config, warnings=tuple(warnings), files=files)


def load_host_config(facts: HostFacts) -> LoadedConfig:
    """:func:`load_config` of the two files and the trust Pi's host facts give
    (``reference.pi.host.facts.resolve_host``)."""
    return load_config(global_path=facts.global_config_path, project_path=facts.project_config_path,
                       project_trusted=facts.project_trusted)
