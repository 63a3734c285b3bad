"""Key-by-key merge of a file onto the layer below (config-loader.ts ``mergeKnown``).

JavaScript ``typeof`` decides whether a value may replace the default; a bad key is skipped
with a warning while the rest of the file still applies.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any, Final

from reference.primitives.jsonbytes import JsonObject, property_order
from reference.primitives.jsvalues import is_number, typeof

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
