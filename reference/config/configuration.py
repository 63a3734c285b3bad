"""Configuration exactly as the TypeScript extension loads, validates and edits it (contract §1).

Files written for ``ds4-context-engine`` must load here with the same result (decisions D1), so
the loader knows the extension's whole configuration shape and its whole validation, in the
upstream order, with the upstream messages.  The ``/context config`` catalog, by contrast, lists
only the paths this feature has or reads; other keys still load, validate and survive edits.

JavaScript semantics are kept where they show: ``typeof`` for the per-key merge, safe integers
(a Python ``bool`` is never a number), numbers parsed as doubles, property order of parsed
objects, UTF-16 lengths in ``show`` and ``JSON.stringify(obj, null, 2)`` bytes when writing.

A loaded configuration never changes: a saved edit applies when the next host starts.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, cast

from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify, js_stringify_pretty, property_order, quote_string
from reference.primitives.jsvalues import (
    JS_WHITESPACE,
    MAX_SAFE_INTEGER,
    is_integer,
    is_number,
    is_safe_integer,
    trim,
    typeof,
)
from reference.primitives.textunits import slice_utf16, utf16_length

SCHEMA_ID: Final = "ds4-context-config-v1"
CONFIG_FILE_NAME: Final = "ds4-context.json"
FALLBACK_CONFIG_DIR_NAME: Final = ".pi"

CLASSIFICATIONS: Final = ("normal", "internal", "sensitive", "local-only")
HISTORY_SCOPES: Final = ("current-branch", "current-session", "current-lineage")
COMPACTION_THINKING_LEVELS: Final = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
LOG_LEVELS: Final = ("error", "warn", "info", "debug", "trace")

# Error codes of this module (docs/configuration.md explains each one).
CODE_UNKNOWN_PATH: Final = "config-unknown-path"
CODE_INVALID_VALUE: Final = "config-invalid-value"
CODE_PROJECT_UNTRUSTED: Final = "config-project-untrusted"
CODE_FILE_MALFORMED: Final = "config-file-malformed"
CODE_INVALID: Final = "config-invalid"
CODE_NOT_SET: Final = "config-not-set"
CODE_UNKNOWN_OPTION: Final = "config-unknown-option"
CODE_USAGE: Final = "config-usage"
CODE_IO: Final = "config-io-error"
CODE_INVALID_PARAMS: Final = "invalid-params"

Kind = Literal["boolean", "integer", "enum", "string-array", "enum-array", "classification-map"]
Scope = Literal["global", "project"]

# ---------------------------------------------------------------------------------------------
# Built-in defaults: the whole upstream shape (config.ts at 13a6853f, the 0.5.0 defaults).
# ---------------------------------------------------------------------------------------------

_DEFAULT_CONFIG: Final[dict[str, Any]] = {
    "enabled": True,
    "context": {
        "mode": "managed",
        "targetFillRatio": 0.7,
        "softLimitRatio": 0.8,
        "hardLimitRatio": 0.9,
        "minimumOutputReserve": 8192,
        "preferredOutputReserve": 32768,
        "recentTailTokens": 64000,
        "rescueImmediatePredecessor": True,
        "maxPinnedTokens": 16000,
        "maxMemoryTokens": 8000,
        "maxRetrievedHistoryTokens": 16000,
        "maxProjectTokens": 20000,
        "maxSummaryTokens": 12000,
        "cacheAware": {
            "mode": "off",
            "minimumCacheSampleCount": 3,
            "minimumCacheReadShare": 0.5,
            "minimumMissHitRatio": 20,
            "minimumImprovementRatio": 0.1,
            "maxTailBudgetShare": 0.5,
            "expectedRequestsPerTurn": 4,
            "expectedTurnsPerEpoch": 4,
            "stickinessEpochs": 2,
        },
    },
    "compaction": {
        "enabled": True,
        "mode": "hierarchical",
        "validate": True,
        "segmentTargetTokens": 30000,
        "maxRequestInputTokens": 64000,
        "maxOperationInputTokens": 2000000,
        "preserveRecentVerbatim": True,
        "directUpdate": True,
        "inputBudget": "context",
        "maxConcurrentSegments": 2,
        "transport": {"maxAttempts": 4, "baseDelayMs": 2000},
    },
    "editing": {"anchored": False, "postEditReport": False},
    "reading": {"adaptive": False},
    "jobs": {"enabled": False},
    "sessionRebase": {
        "enabled": True,
        "mode": "manual",
        "suggestAfterCompactions": 6,
        "suggestAboveSessionMiB": 50,
        "checkpointTargetTokens": 8000,
        "preserveSource": True,
    },
    "historyTools": {
        "enabled": True,
        "defaultScope": "current-branch",
        "maxResults": 6,
        "maxOutputTokens": 3000,
        "allowProjectScope": False,
        "includeSummaries": False,
        "maxProjectSessions": 100,
    },
    "retrieval": {
        "exact": True,
        "fts": True,
        "semantic": False,
        "maxResults": 12,
        "embedding": {
            "mode": "local",
            "provider": "ds4-local",
            "model": "feature-hash-v1",
            "dimensions": 256,
            "remoteProfiles": [],
            "maxSources": 50000,
            "candidatePool": 80,
            "batchSize": 64,
            "queryCacheSize": 64,
            "timeoutMs": 2000,
        },
    },
    "project": {
        "enabled": True,
        "maxFiles": 10000,
        "maxFileBytes": 512000,
        "maxTotalBytes": 50000000,
        "snippetLines": 80,
        "snippetOverlapLines": 12,
        "maxResults": 8,
    },
    "memory": {
        "enabled": True,
        "crossSession": False,
        "maxProjectSessions": 250,
        "maxPinChars": 4000,
        "maxClaimChars": 2000,
        "maxResults": 12,
    },
    "artifacts": {
        "enabled": True,
        "adaptiveBudget": False,
        "maxInlineToolResultChars": 12000,
        "maxArtifactBytes": 100000000,
        "maxSearchBytes": 50000000,
        "excerptChars": 6000,
        "maxSearchMatches": 12,
        "storeLargeOutputs": True,
    },
    "privacy": {
        "enabled": False,
        "defaultClassification": "normal",
        "localProviders": ["faux", "ollama", "llama-cpp", "lmstudio"],
        "remoteDefaultAllowed": ["normal", "internal"],
        "remoteProviders": {},
        "redactSecrets": True,
    },
    "modelAwareness": {
        "enabled": True,
        "calibrationWindow": 24,
        "minimumCalibrationSamples": 3,
        "calibrationRatioLowerBound": 0.5,
        "calibrationRatioUpperBound": 2,
        "overrides": {},
    },
    "nativeContinuation": {
        "enabled": False,
        "allowProviderStorage": False,
        "profiles": ["openai/*"],
        "maxStateAgeMs": 1800000,
        "retryManagedReplay": True,
    },
    "localKvReuse": {"enabled": False},
    "quality": {"enabled": False, "maxSamples": 1000},
    "ranking": {
        "mode": "off",
        "modelPath": "ds4-context/ranking-model.json",
        "minimumTrainingSamples": 20,
        "maxTrainingSamples": 10000,
        "maxLatencyMs": 10,
    },
    "diagnostics": {"storeContextManifest": True, "storeFullRenderedContext": False, "logLevel": "info"},
    "storage": {
        "scope": "project",
        "databasePath": "ds4-context/context.db",
        "busyTimeoutMs": 5000,
        "writeRetryTimeoutMs": 30000,
        "projectIndexLeaseMs": 120000,
    },
}


def default_config() -> dict[str, Any]:
    """A fresh copy of the built-in defaults (callers may change it)."""
    return copy.deepcopy(_DEFAULT_CONFIG)


# ---------------------------------------------------------------------------------------------
# The catalog of the feature's paths (what /context config shows and edits).
# ---------------------------------------------------------------------------------------------

#: Bounded integers of the feature, ``path -> (min, max)``; shared by catalog, checks and schema.
INTEGER_BOUNDS: Final[Mapping[str, tuple[int, int]]] = {
    "sessionRebase.checkpointTargetTokens": (512, 24000),
    "sessionRebase.suggestAfterCompactions": (1, 100),
    "sessionRebase.suggestAboveSessionMiB": (1, 1024),
    "historyTools.maxResults": (1, 12),
    "historyTools.maxOutputTokens": (256, 6000),
    "historyTools.maxProjectSessions": (1, 500),
}


@dataclass(frozen=True)
class CatalogField:
    """One editable path: how ``set`` parses it and how ``show`` hints it."""

    path: str
    kind: Kind
    description: str
    values: tuple[str, ...] = ()
    optional: bool = False

    @property
    def bounds(self) -> tuple[int, int] | None:
        return INTEGER_BOUNDS.get(self.path)

    @property
    def default(self) -> Any:
        return get_path(_DEFAULT_CONFIG, self.path)


def _field(path: str, kind: Kind, description: str, values: Sequence[str] = (), optional: bool = False) -> CatalogField:
    return CatalogField(path, kind, description, tuple(values), optional)


#: In the upstream catalog's order, so ``show`` groups sections the same way.
CATALOG: Final[tuple[CatalogField, ...]] = (
    _field("enabled", "boolean", "Master switch; when false the history tools and rebase answer disabled."),
    _field("context.mode", "enum", "observer only records; managed plans the context and runs the memory manager.",
           ("observer", "managed")),
    _field("sessionRebase.enabled", "boolean", "Allow the manual /context rebase command (on by default)."),
    _field("sessionRebase.mode", "enum", "Rebase starts only when the user asks; manual is the only mode.", ("manual",)),
    _field("sessionRebase.suggestAfterCompactions", "integer",
           "Reserved suggestion threshold, 1 to 100 compactions; checked but not acted on."),
    _field("sessionRebase.suggestAboveSessionMiB", "integer",
           "Reserved session-size threshold, 1 to 1024 MiB; checked but not acted on."),
    _field("sessionRebase.checkpointTargetTokens", "integer",
           "Budget the whole handoff must fit, 512 to 24000 chars-v1 tokens."),
    _field("sessionRebase.preserveSource", "boolean", "Must stay true: the source session file is never cut or deleted."),
    _field("historyTools.enabled", "boolean", "Activate the three context_history_* tools at session start (on by default)."),
    _field("historyTools.defaultScope", "enum", "Scope of a recall that names none; project scope is always explicit.",
           HISTORY_SCOPES),
    _field("historyTools.maxResults", "integer", "Hits per recall and cap on a request's limit, 1 to 12."),
    _field("historyTools.maxOutputTokens", "integer",
           "Result budget and cap on a request's budget, 256 to 6000 chars-v1 tokens."),
    _field("historyTools.allowProjectScope", "boolean", "Permit explicit project-scope recall in a trusted project only."),
    _field("historyTools.includeSummaries", "boolean", "Default for returning summaries as derived, unconfirmed evidence."),
    _field("historyTools.maxProjectSessions", "integer", "Sibling session files one project recall examines, 1 to 500."),
    _field("retrieval.exact", "boolean", "Exact-match lexical search; explicit recall honours it."),
    _field("retrieval.fts", "boolean", "Full-text lexical search; explicit recall honours it."),
    _field("retrieval.semantic", "boolean", "Vector candidates for automatic retrieval; explicit recall ignores it."),
    _field("memory.enabled", "boolean", "Pins and durable memory; with managed mode this is rebase's memory bridge."),
    _field("privacy.enabled", "boolean", "Privacy policy for automatic context; history tools apply the lists anyway."),
    _field("privacy.defaultClassification", "enum", "Classification of content without a marker.", CLASSIFICATIONS),
    _field("privacy.localProviders", "string-array", "Providers treated as local (JSON array of names)."),
    _field("privacy.remoteDefaultAllowed", "enum-array",
           "Classifications any remote provider may receive (JSON array).", CLASSIFICATIONS),
    _field("privacy.remoteProviders", "classification-map",
           "Allowed classifications per remote provider (JSON object name -> array).", optional=True),
    _field("privacy.redactSecrets", "boolean", "Redact secret-like strings even when privacy.enabled is false."),
)


def find_field(path: str) -> CatalogField | None:
    """The catalog entry of ``path``, or None when the feature does not edit it."""
    return next((item for item in CATALOG if item.path == path), None)


# ---------------------------------------------------------------------------------------------
# JavaScript value semantics used by the loader.
# ---------------------------------------------------------------------------------------------

_JS_SPACE_RE: Final = re.compile(f"[{re.escape(JS_WHITESPACE)}]")
_JS_SPACE_OR_SLASH_RE: Final = re.compile(f"[{re.escape(JS_WHITESPACE)}/]")
_DECIMAL_INTEGER: Final = re.compile(r"^-?[0-9]+$")
js_trim = trim  # the names this module's readers know
js_typeof = typeof
_is_number = is_number


def _is_record(value: Any) -> bool:
    return isinstance(value, dict)


def _js_ordered(obj: dict[str, Any]) -> dict[str, Any]:
    """JavaScript property order: array-index keys ascending first, then insertion order."""
    return dict(property_order(obj))


def _js_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A duplicate key keeps its first position and its last value, as JSON.parse does.
    return _js_ordered(dict(pairs))


def _js_int(text: str) -> int | float:
    """A JSON integer literal as JavaScript reads it: a double once it passes 2^53."""
    if len(text.lstrip("-")) <= 15:
        return int(text)
    number = float(text)
    if abs(number) <= 2**53:
        return int(text)
    return number


def _js_float(text: str) -> int | float:
    # Integral values become ints so that 6.0 and 6 are the same number, as in JavaScript.
    number = float(text)
    if math.isfinite(number) and number.is_integer() and abs(number) <= 2**53:
        return int(number)
    return number


class ConfigError(ValueError):
    """A configuration candidate or file the extension refuses; ``str()`` is the message."""


def _reject_constant(name: str) -> Any:
    raise ConfigError(f"{name} is not valid JSON")


def parse_json(text: str) -> Any:
    """``JSON.parse`` with JavaScript numbers and property order; raises :class:`ConfigError`."""
    try:
        return json.loads(
            text,
            object_pairs_hook=_js_object,
            parse_int=_js_int,
            parse_float=_js_float,
            parse_constant=_reject_constant,
        )
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ConfigError("invalid JSON: nested too deeply") from None


def pretty_json(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``: how the extension writes a configuration file."""
    return js_stringify_pretty(value)


_MISSING: Final = object()


def get_path(config: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path, or the module's ``_MISSING`` marker (``undefined``)."""
    node: Any = config
    for segment in path.split("."):
        if not isinstance(node, Mapping) or segment not in node:
            return _MISSING
        node = node[segment]
    return node


# ---------------------------------------------------------------------------------------------
# Key-by-key merge (config-loader.ts mergeKnown).
# ---------------------------------------------------------------------------------------------

# Opt-in keys absent from the defaults that a file may still add.
_OPTIONAL_OBJECT_PATHS: Final = frozenset({"compaction.model", "compaction.summary"})
_OPTIONAL_BOOLEAN_PATHS: Final = frozenset({"modelAwareness.autoTune"})
# Maps merged entry by entry onto the layer below instead of replaced.
_SPREAD_MAP_PATHS: Final = frozenset({"privacy.remoteProviders", "modelAwareness.overrides"})


def merge_known(
    base: Mapping[str, Any], override: Mapping[str, Any], warnings: list[str], prefix: str = ""
) -> dict[str, Any]:
    """Apply a file's keys onto the layer below; bad keys are skipped with a warning."""
    result: dict[str, Any] = copy.deepcopy(dict(base))
    for key, incoming in override.items():
        path = f"{prefix}.{key}" if prefix else key
        if key not in base:
            if path in _OPTIONAL_OBJECT_PATHS and _is_record(incoming):
                result[key] = copy.deepcopy(incoming)
            elif path in _OPTIONAL_BOOLEAN_PATHS and isinstance(incoming, bool):
                result[key] = incoming
            else:
                warnings.append(f"Unknown configuration key ignored: {path}")
            continue
        expected = base[key]
        if _is_record(expected):
            if not _is_record(incoming):
                warnings.append(f"Invalid configuration value ignored: {path} must be an object")
            elif path in _SPREAD_MAP_PATHS:
                result[key] = _js_ordered({**copy.deepcopy(expected), **copy.deepcopy(incoming)})
            elif not expected:
                result[key] = copy.deepcopy(incoming)
            else:
                result[key] = merge_known(expected, incoming, warnings, path)
            continue
        if js_typeof(incoming) != js_typeof(expected) or (_is_number(incoming) and not math.isfinite(incoming)):
            warnings.append(f"Invalid configuration value ignored: {path} has the wrong type")
            continue
        result[key] = copy.deepcopy(incoming)
    return result


# ---------------------------------------------------------------------------------------------
# Whole-candidate validation (config-loader.ts validateConfig), first failure wins.
# ---------------------------------------------------------------------------------------------


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


def _int_between(value: Any, low: float, high: float, *, safe: bool = False) -> bool:
    check = is_safe_integer if safe else is_integer
    return check(value) and low <= value <= high


def _validate_feature(config: Mapping[str, Any]) -> None:
    """The rules §1.2 lists, in the upstream order (rebase first, then history tools)."""
    rebase = config["sessionRebase"]
    _require(rebase["mode"] == "manual" and rebase["preserveSource"] is True,
             "sessionRebase requires manual mode and preserveSource=true")
    for key in ("checkpointTargetTokens", "suggestAfterCompactions", "suggestAboveSessionMiB"):
        low, high = INTEGER_BOUNDS[f"sessionRebase.{key}"]
        _require(_int_between(rebase[key], low, high, safe=True),
                 f"sessionRebase.{key} must be an integer between {low} and {high}")
    tools = config["historyTools"]
    _require(tools["defaultScope"] in HISTORY_SCOPES,
             "historyTools.defaultScope must be current-branch, current-session or current-lineage")
    for key in ("maxResults", "maxOutputTokens", "maxProjectSessions"):
        low, high = INTEGER_BOUNDS[f"historyTools.{key}"]
        _require(_int_between(tools[key], low, high, safe=True),
                 f"historyTools.{key} must be an integer between {low} and {high}")


def _validate_context(config: Mapping[str, Any]) -> None:
    context = config["context"]
    _require(context["mode"] in ("observer", "managed"), "context.mode must be observer or managed")
    for key in ("targetFillRatio", "softLimitRatio", "hardLimitRatio"):
        value = context[key]
        _require(not (value <= 0 or value > 1), f"context.{key} must be greater than 0 and at most 1")
    _require(context["targetFillRatio"] <= context["softLimitRatio"] <= context["hardLimitRatio"],
             "context ratios must satisfy targetFillRatio <= softLimitRatio <= hardLimitRatio")
    non_negative = [
        f"context.{key}" for key in (
            "minimumOutputReserve", "preferredOutputReserve", "recentTailTokens", "maxPinnedTokens",
            "maxMemoryTokens", "maxRetrievedHistoryTokens", "maxProjectTokens", "maxSummaryTokens")
    ] + [
        "compaction.segmentTargetTokens", "project.maxFileBytes", "project.maxTotalBytes",
        "memory.maxPinChars", "memory.maxClaimChars", "artifacts.maxInlineToolResultChars",
        "artifacts.maxArtifactBytes", "artifacts.maxSearchBytes", "artifacts.excerptChars",
    ]
    for name in non_negative:
        value = get_path(config, name)
        _require(is_integer(value) and value >= 0, f"{name} must be a non-negative integer")
    compaction = config["compaction"]
    per_request, per_operation = compaction["maxRequestInputTokens"], compaction["maxOperationInputTokens"]
    _require(is_integer(per_request) and per_request > 0,
             "compaction.maxRequestInputTokens must be a positive integer")
    _require(is_integer(per_operation) and per_operation > 0,
             "compaction.maxOperationInputTokens must be a positive integer")
    _require(per_operation >= per_request,
             "compaction.maxOperationInputTokens must be at least compaction.maxRequestInputTokens")
    _require(context["preferredOutputReserve"] >= context["minimumOutputReserve"],
             "context.preferredOutputReserve must be at least context.minimumOutputReserve")


def _validate_retrieval(config: Mapping[str, Any]) -> None:
    retrieval = config["retrieval"]
    _require(_int_between(retrieval["maxResults"], 1, 100),
             "retrieval.maxResults must be a positive integer at most 100")
    embedding = retrieval["embedding"]
    _require(embedding["mode"] in ("local", "remote"), "retrieval.embedding.mode must be local or remote")
    provider, model = embedding["provider"], embedding["model"]
    _require(bool(js_trim(provider)) and bool(js_trim(model)) and js_trim(provider) == provider
             and js_trim(model) == model and not _JS_SPACE_OR_SLASH_RE.search(provider)
             and not _JS_SPACE_RE.search(model),
             "retrieval.embedding provider/model must be trimmed non-empty identifiers")
    for key, low, high in (("dimensions", 16, 4096), ("maxSources", 1, 100000), ("candidatePool", 1, 500),
                           ("batchSize", 1, 512), ("queryCacheSize", 1, 1000), ("timeoutMs", 1, 120000)):
        _require(_int_between(embedding[key], low, high),
                 f"retrieval.embedding.{key} must be an integer between {low} and {high}")
    profiles = embedding["remoteProfiles"]
    _require(isinstance(profiles, list), "retrieval.embedding.remoteProfiles must be an array")
    seen: set[str] = set()
    for profile in profiles:
        _require(isinstance(profile, str) and js_trim(profile) == profile and not _JS_SPACE_RE.search(profile),
                 "retrieval.embedding.remoteProfiles must contain trimmed provider/model profiles")
        separator = profile.find("/")
        _require(separator > 0 and separator != len(profile) - 1 and "*" not in profile,
                 f"retrieval embedding profile {profile} must be an exact provider/model")
        _require(profile not in seen, "retrieval.embedding.remoteProfiles must not contain duplicates")
        seen.add(profile)
    if embedding["mode"] == "remote":
        _require(f"{provider}/{model}" in seen,
                 "remote embedding requires exact provider/model consent in retrieval.embedding.remoteProfiles")
        _require(config["privacy"]["enabled"] is True, "remote embedding requires privacy.enabled for filtering")


def _validate_project_memory_artifacts(config: Mapping[str, Any]) -> None:
    project = config["project"]
    for key, high in (("maxFiles", 100000), ("snippetLines", 500), ("maxResults", 100)):
        _require(_int_between(project[key], 1, high), f"project.{key} must be a positive integer at most {high}")
    overlap = project["snippetOverlapLines"]
    _require(is_integer(overlap) and 0 <= overlap < project["snippetLines"],
             "project.snippetOverlapLines must be a non-negative integer below project.snippetLines")
    memory = config["memory"]
    _require(_int_between(memory["maxProjectSessions"], 1, 10000),
             "memory.maxProjectSessions must be an integer between 1 and 10000")
    for key in ("maxPinChars", "maxClaimChars"):
        _require(1 <= memory[key] <= 20000, f"memory.{key} must be between 1 and 20000")
    _require(_int_between(memory["maxResults"], 1, 100), "memory.maxResults must be a positive integer at most 100")
    artifacts = config["artifacts"]
    _require(artifacts["maxInlineToolResultChars"] >= 1000,
             "artifacts.maxInlineToolResultChars must be at least 1000")
    _require(artifacts["excerptChars"] <= artifacts["maxInlineToolResultChars"],
             "artifacts.excerptChars must not exceed artifacts.maxInlineToolResultChars")
    _require(_int_between(artifacts["maxSearchMatches"], 1, 100),
             "artifacts.maxSearchMatches must be a positive integer at most 100")
    _require(artifacts["maxSearchBytes"] <= artifacts["maxArtifactBytes"],
             "artifacts.maxSearchBytes must not exceed artifacts.maxArtifactBytes")


def _validate_compaction(config: Mapping[str, Any]) -> None:
    compaction = config["compaction"]
    _require(compaction["mode"] == "hierarchical", "compaction.mode must be hierarchical")
    _require(compaction["preserveRecentVerbatim"] is True,
             "compaction.preserveRecentVerbatim must remain true for non-destructive compaction")
    cache = config["context"]["cacheAware"]
    name = "context.cacheAware"
    _require(cache.get("mode") in ("off", "auto"), f"{name}.mode must be off or auto")
    _require(is_integer(cache.get("minimumCacheSampleCount")) and cache["minimumCacheSampleCount"] >= 0,
             f"{name}.minimumCacheSampleCount must be a non-negative integer")
    share = cache.get("minimumCacheReadShare")
    _require(_is_number(share) and 0 <= share <= 1, f"{name}.minimumCacheReadShare must be a number between 0 and 1")
    ratio = cache.get("minimumMissHitRatio")
    _require(_is_number(ratio) and ratio > 0, f"{name}.minimumMissHitRatio must be a positive number")
    improvement = cache.get("minimumImprovementRatio")
    _require(_is_number(improvement) and 0 <= improvement <= 1,
             f"{name}.minimumImprovementRatio must be a number between 0 and 1")
    tail = cache.get("maxTailBudgetShare")
    _require(_is_number(tail) and 0 < tail <= 1, f"{name}.maxTailBudgetShare must be a number between 0 and 1")
    for key, high in (("expectedRequestsPerTurn", 64), ("expectedTurnsPerEpoch", 64), ("stickinessEpochs", 16)):
        _require(_int_between(cache.get(key), 1, high), f"{name}.{key} must be an integer between 1 and {high}")
    _require(compaction.get("inputBudget", "context") in ("summary", "context"),
             "compaction.inputBudget must be summary or context")
    if "maxConcurrentSegments" in compaction:
        _require(_int_between(compaction["maxConcurrentSegments"], 1, 2),
                 "compaction.maxConcurrentSegments must be an integer between 1 and 2")
    model = compaction.get("model")
    if isinstance(model, dict):
        # Upstream crashes on a non-string here; the same rule's message is clearer.
        tokens = [model.get("provider"), model.get("id")]
        _require(all(isinstance(token, str) and js_trim(token) and js_trim(token) == token
                     and not _JS_SPACE_OR_SLASH_RE.search(token) for token in tokens),
                 "compaction.model.provider and compaction.model.id must be non-empty trimmed tokens "
                 "without whitespace or slashes")
    summary = compaction.get("summary")
    if isinstance(summary, dict) and "thinking" in summary:
        _require(summary["thinking"] in COMPACTION_THINKING_LEVELS,
                 f"compaction.summary.thinking must be one of {', '.join(COMPACTION_THINKING_LEVELS)}")
    transport = compaction.get("transport")
    if isinstance(transport, dict):
        if "maxAttempts" in transport:
            _require(_int_between(transport["maxAttempts"], 1, 10),
                     "compaction.transport.maxAttempts must be an integer between 1 and 10")
        if "baseDelayMs" in transport:
            _require(_int_between(transport["baseDelayMs"], 0, 60000),
                     "compaction.transport.baseDelayMs must be an integer between 0 and 60000")


def _check_classifications(name: str, values: Any) -> None:
    _require(isinstance(values, list) and all(value in CLASSIFICATIONS for value in values),
             f"{name} must contain only {', '.join(CLASSIFICATIONS)}")
    _require(len(set(values)) == len(values), f"{name} must not contain duplicates")
    _require("local-only" not in values, f"{name} cannot allow local-only content to a remote provider")


def _validate_privacy(config: Mapping[str, Any]) -> None:
    privacy = config["privacy"]
    _require(privacy["defaultClassification"] in CLASSIFICATIONS, "privacy.defaultClassification is invalid")
    local = privacy["localProviders"]
    _require(isinstance(local, list) and all(isinstance(name, str) and js_trim(name) for name in local),
             "privacy.localProviders must contain non-empty provider names")
    normalized = [js_trim(name).lower() for name in local]
    _require(len(set(normalized)) == len(normalized), "privacy.localProviders must not contain duplicates")
    _check_classifications("privacy.remoteDefaultAllowed", privacy["remoteDefaultAllowed"])
    for provider, allowed in privacy["remoteProviders"].items():
        _require(bool(js_trim(provider)), "privacy.remoteProviders keys must not be empty")
        _require(js_trim(provider).lower() not in normalized, f"privacy provider {provider} cannot be both local and remote")
        _check_classifications(f"privacy.remoteProviders.{provider}", allowed)


_OVERRIDE_FIELDS: Final = frozenset({
    "tokenEstimator", "contextWindow", "maxOutputTokens", "safetyMarginTokens", "recentTailTokens",
    "maxRetrievedHistoryTokens", "maxProjectTokens",
})


def _validate_model_awareness(config: Mapping[str, Any]) -> None:
    awareness = config["modelAwareness"]
    window = awareness["calibrationWindow"]
    _require(_int_between(window, 3, 200), "modelAwareness.calibrationWindow must be an integer between 3 and 200")
    _require(_int_between(awareness["minimumCalibrationSamples"], 1, window),
             "modelAwareness.minimumCalibrationSamples must be between 1 and calibrationWindow")
    lower, upper = awareness["calibrationRatioLowerBound"], awareness["calibrationRatioUpperBound"]
    _require(math.isfinite(lower) and math.isfinite(upper) and lower >= 0.25 and upper <= 4 and lower < upper,
             "modelAwareness calibration ratio bounds must satisfy 0.25 <= lower < upper <= 4")
    for key, override in awareness["overrides"].items():
        trimmed = js_trim(key)
        separator = trimmed.find("/")
        _require(trimmed == key and (trimmed == "*" or (separator > 0 and separator != len(trimmed) - 1
                                                         and trimmed[:separator] != "*")),
                 f"modelAwareness override {key} must be provider/model, provider/*, or *")
        _require(_is_record(override), f"modelAwareness.overrides.{key} must be an object")
        for field_name in override:
            _require(field_name in _OVERRIDE_FIELDS, f"Unknown modelAwareness override field: {key}.{field_name}")
        if "tokenEstimator" in override:
            _require(override["tokenEstimator"] in ("chars-v1", "o200k-base-v1"),
                     f"modelAwareness override {key} tokenEstimator must be chars-v1 or o200k-base-v1")
        for names, low, text in (
            (("contextWindow", "maxOutputTokens"), 1, "context/output limits must be positive integers"),
            (("safetyMarginTokens", "recentTailTokens", "maxRetrievedHistoryTokens", "maxProjectTokens"), 0,
             "token limits must be non-negative integers"),
        ):
            _require(all(_int_between(override[name], low, 10_000_000) for name in names if name in override),
                     f"modelAwareness override {key} {text} at most 10000000")
        window_value, output = override.get("contextWindow"), override.get("maxOutputTokens")
        if _is_number(window_value) and _is_number(output):
            _require(output <= window_value, f"modelAwareness override {key} maxOutputTokens must not exceed contextWindow")


def _validate_continuation_and_rest(config: Mapping[str, Any]) -> None:
    continuation = config["nativeContinuation"]
    profiles = continuation["profiles"]
    _require(isinstance(profiles, list) and len(profiles) > 0,
             "nativeContinuation.profiles must contain at least one provider/model profile")
    seen: set[str] = set()
    for profile in profiles:
        _require(isinstance(profile, str) and js_trim(profile) == profile and not _JS_SPACE_RE.search(profile),
                 "nativeContinuation.profiles must contain trimmed provider/model profiles without whitespace")
        separator = profile.find("/")
        provider = profile[:separator] if separator > 0 else ""
        model = profile[separator + 1:] if separator > 0 else ""
        _require(bool(provider) and bool(model) and "*" not in provider and ("*" not in model or model == "*"),
                 f"nativeContinuation profile {profile} must be provider/model or provider/*")
        _require(profile not in seen, "nativeContinuation.profiles must not contain duplicates")
        seen.add(profile)
    _require(not (continuation["enabled"] and not continuation["allowProviderStorage"]),
             "nativeContinuation.allowProviderStorage must be true when native continuation is enabled")
    _require(_int_between(continuation["maxStateAgeMs"], 10000, 86400000),
             "nativeContinuation.maxStateAgeMs must be an integer between 10000 and 86400000")
    _require(_int_between(config["quality"]["maxSamples"], 1, 100000),
             "quality.maxSamples must be an integer between 1 and 100000")
    ranking = config["ranking"]
    _require(ranking["mode"] in ("off", "shadow", "active"), "ranking.mode must be off, shadow, or active")
    _require(bool(js_trim(ranking["modelPath"])), "ranking.modelPath must not be empty")
    minimum = ranking["minimumTrainingSamples"]
    _require(_int_between(minimum, 2, 100000, safe=True),
             "ranking.minimumTrainingSamples must be an integer between 2 and 100000")
    _require(_int_between(ranking["maxTrainingSamples"], minimum, 1000000, safe=True),
             "ranking.maxTrainingSamples must be an integer between minimumTrainingSamples and 1000000")
    _require(math.isfinite(ranking["maxLatencyMs"]) and 0 < ranking["maxLatencyMs"] <= 1000,
             "ranking.maxLatencyMs must be greater than 0 and at most 1000")
    _require(config["diagnostics"]["logLevel"] in LOG_LEVELS, "diagnostics.logLevel is invalid")
    storage = config["storage"]
    _require(storage["scope"] in ("agent", "project"), "storage.scope must be agent or project")
    _require(bool(js_trim(storage["databasePath"])), "storage.databasePath must not be empty")
    busy = storage["busyTimeoutMs"]
    _require(_int_between(busy, 1, 60000, safe=True), "storage.busyTimeoutMs must be an integer between 1 and 60000")
    _require(_int_between(storage["writeRetryTimeoutMs"], busy, 300000, safe=True),
             "storage.writeRetryTimeoutMs must be an integer between busyTimeoutMs and 300000")
    _require(_int_between(storage["projectIndexLeaseMs"], 10000, 3600000, safe=True),
             "storage.projectIndexLeaseMs must be an integer between 10000 and 3600000")


_VALIDATORS: Final[tuple[Callable[[Mapping[str, Any]], None], ...]] = (
    _validate_feature,
    _validate_context,
    _validate_retrieval,
    _validate_project_memory_artifacts,
    _validate_compaction,
    _validate_privacy,
    _validate_model_awareness,
    _validate_continuation_and_rest,
)


def validate_config(config: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigError` with the first failing rule's message (upstream order)."""
    for validator in _VALIDATORS:
        validator(config)


def validate_config_file(content: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A file's content alone on the defaults, as ``set``/``unset`` check it before writing."""
    warnings: list[str] = []
    config = merge_known(_DEFAULT_CONFIG, content, warnings)
    validate_config(config)
    return config, tuple(warnings)


# ---------------------------------------------------------------------------------------------
# Layered loading (§1.4).
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigFile:
    """One layer's file and whether it was applied."""

    scope: Scope
    path: str
    loaded: bool

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "path": self.path, "loaded": self.loaded}


@dataclass(frozen=True)
class LoadedConfig:
    """The effective configuration of one host start; it never changes afterwards."""

    config: dict[str, Any]
    warnings: tuple[str, ...]
    files: tuple[ConfigFile, ...]

    def file(self, scope: Scope) -> ConfigFile:
        return next(item for item in self.files if item.scope == scope)


def _read_text(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def _apply_file(path: str, base: dict[str, Any], warnings: list[str]) -> tuple[dict[str, Any], bool]:
    """One layer: merged and validated as a whole, or discarded as a whole with one warning."""
    if not os.path.exists(path):
        return base, False
    file_warnings: list[str] = []
    try:
        try:
            text = _read_text(path)
        except OSError as exc:
            raise ConfigError(f"cannot read the file: {exc.strerror or exc}") from None
        parsed = parse_json(text)
        if not _is_record(parsed):
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


# ---------------------------------------------------------------------------------------------
# /context config show.
# ---------------------------------------------------------------------------------------------


def describe_value(value: Any) -> str:
    """A show cell: JSON, cut to 25 UTF-16 units plus ``…`` when longer than 26."""
    if value is _MISSING:
        return "unset"
    text = js_stringify(value)
    return slice_utf16(text, 25) + "…" if utf16_length(text) > 26 else text


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - utf16_length(text))


def render_show(loaded: LoadedConfig) -> str:
    """The text of ``/context config show`` for one loaded configuration."""
    global_file, project_file = loaded.file("global"), loaded.file("project")
    lines = [
        f"DS4 Context Configuration ({SCHEMA_ID})",
        "",
        f"{_pad('Enabled:', 27)}{'yes' if loaded.config.get('enabled') is True else 'no'}",
        f"{_pad('Global file:', 27)}{global_file.path}{' (loaded)' if global_file.loaded else ''}",
        f"{_pad('Project file:', 27)}{project_file.path or 'unavailable'}{' (loaded)' if project_file.loaded else ''}",
        f"{_pad('Configuration warnings:', 27)}{len(loaded.warnings)}",
        *(f"  - {warning}" for warning in loaded.warnings),
        "",
    ]
    section = ""
    for item in CATALOG:
        head = item.path.split(".")[0]
        if head != section:
            section = head
            lines.append(f"[{section}]")
        hints = (["|".join(item.values)] if item.values else []) + [item.kind] + (["optional"] if item.optional else [])
        active = describe_value(get_path(loaded.config, item.path))
        fallback = describe_value(get_path(_DEFAULT_CONFIG, item.path))
        lines.append(f"{_pad(item.path, 48)}  {_pad(active, 28)}  {_pad(fallback, 28)}  {' '.join(hints)}")
    lines += [
        "",
        "Set:   /context config set <path> <value> [--global]",
        "Unset: /context config unset <path> [--global]",
        "Quote JSON values, e.g. /context config set privacy.localProviders '[\"ollama\",\"lmstudio\"]'",
        "Saved changes apply when the next Pi session starts; this session keeps its configuration.",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# /context config set and unset.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigTargets:
    """Where the two files live and whether the project file may be used."""

    global_path: str
    project_path: str
    project_trusted: bool


@dataclass(frozen=True)
class ConfigChange:
    """What a saved edit did; ``message`` is the reply shown to the user."""

    file: str
    scope: Scope
    message: str
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "warnings": list(self.warnings), "file": self.file}


def _parse_json_value(raw: str, path: str) -> Any:
    try:
        return parse_json(raw)
    except ConfigError:
        raise ContractViolation(CODE_INVALID_VALUE, f"{path}: expected valid JSON") from None


def _string_array(value: Any, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(entry, str) for entry in value):
        raise ContractViolation(CODE_INVALID_VALUE, f"{path}: expected a JSON array of strings")
    return value


def parse_value(item: CatalogField, raw_value: str) -> Any:
    """The typed value of what the user typed, by the catalog kind (contract §1.5)."""
    raw, path = js_trim(raw_value), item.path

    def fail(detail: str) -> ContractViolation:
        return ContractViolation(CODE_INVALID_VALUE, f"{path}: {detail}")

    if item.kind == "boolean":
        if raw.lower() not in ("true", "false"):
            raise fail("expected true or false")
        return raw.lower() == "true"
    if item.kind == "integer":
        # Leading zeros do not count; more than 16 digits can never be a safe integer.
        if (not _DECIMAL_INTEGER.match(raw) or len(raw.lstrip("-").lstrip("0")) > 16
                or abs(int(raw)) > MAX_SAFE_INTEGER):
            raise fail("expected a safe integer")
        return int(raw)
    if item.kind == "enum":
        if raw not in item.values:
            raise fail(f"expected one of {', '.join(item.values)}")
        return raw
    if item.kind == "string-array":
        return _string_array(_parse_json_value(raw, path), path)
    if item.kind == "enum-array":
        entries = _string_array(_parse_json_value(raw, path), path)
        for entry in entries:
            if entry not in item.values:
                raise fail(f"invalid value {quote_string(entry)}; allowed: {', '.join(item.values)}")
        if len(set(entries)) != len(entries):
            raise fail("duplicate values are not allowed")
        return entries
    parsed = _parse_json_value(raw, path)
    if not _is_record(parsed):
        raise fail("expected a JSON object")
    for provider, allowed in parsed.items():
        if not js_trim(provider):
            raise fail("provider names must not be empty")
        if not isinstance(allowed, list) or not all(entry in CLASSIFICATIONS for entry in allowed):
            raise fail(f"provider {quote_string(provider)} must map to an array of {', '.join(CLASSIFICATIONS)}")
    return parsed


def _catalog_field(path: str) -> CatalogField:
    item = find_field(path)
    if item is None:
        raise ContractViolation(CODE_UNKNOWN_PATH, f"Unknown configuration key: {path}. See /context config for the full list.")
    return item


def _target(global_target: bool, targets: ConfigTargets) -> tuple[Scope, str]:
    if global_target:
        return "global", targets.global_path
    if not targets.project_trusted:
        raise ContractViolation(
            CODE_PROJECT_UNTRUSTED,
            "Project configuration requires a trusted project; use /context config set/unset --global instead",
        )
    return "project", targets.project_path


def _read_file_content(path: str) -> dict[str, Any]:
    """The saved file as an object; an absent file is empty, a broken one an error."""
    if not os.path.exists(path):
        return {}
    try:
        text = _read_text(path)
    except OSError as exc:
        raise ContractViolation(CODE_IO, f"Cannot read configuration file {path}: {exc.strerror or exc}") from None
    try:
        parsed = parse_json(text)
    except ConfigError:
        raise ContractViolation(CODE_FILE_MALFORMED, f"Configuration file is malformed JSON: {path}") from None
    if not _is_record(parsed):
        raise ContractViolation(CODE_FILE_MALFORMED, f"Configuration file must contain a JSON object: {path}")
    return cast(dict[str, Any], parsed)


def _write_file_content(path: str, content: Mapping[str, Any]) -> None:
    """``JSON.stringify(content, null, 2)`` plus a newline, installed by an atomic rename."""
    data = (pretty_json(content) + "\n").encode("utf-8", "surrogatepass")
    directory = os.path.dirname(path) or "."
    try:
        os.makedirs(directory, exist_ok=True)
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644
        handle, temporary = tempfile.mkstemp(prefix=".ds4-context.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, mode)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as exc:
        raise ContractViolation(CODE_IO, f"Cannot write configuration file {path}: {exc.strerror or exc}") from None


def _checked(content: Mapping[str, Any]) -> tuple[str, ...]:
    try:
        return validate_config_file(content)[1]
    except ConfigError as exc:
        raise ContractViolation(CODE_INVALID, str(exc)) from None


def _reply(first: str, warnings: Sequence[str]) -> str:
    lines = [first, "Saved for the next Pi session: the running session keeps the configuration it loaded at start."]
    if warnings:
        lines += ["", *(f"Warning: {warning}" for warning in warnings)]
    return "\n".join(lines)


def set_value(path: str, raw_value: str, *, global_target: bool, targets: ConfigTargets) -> ConfigChange:
    """Save one value; the file is validated whole and left untouched when it would be invalid."""
    item = _catalog_field(path)
    scope, file_path = _target(global_target, targets)
    content = _read_file_content(file_path)
    value = parse_value(item, raw_value)
    node = content
    *parents, leaf = path.split(".")
    for segment in parents:
        if not _is_record(node.get(segment)):
            node[segment] = {}
        node = node[segment]
    node[leaf] = value
    warnings = _checked(content)
    _write_file_content(file_path, content)
    message = _reply(f"Set {path} = {js_stringify(value)} in {file_path} ({scope} configuration).", warnings)
    return ConfigChange(file=file_path, scope=scope, message=message, warnings=warnings)


def _remove(content: dict[str, Any], path: str) -> bool:
    """Delete a dotted key and prune the parents it leaves empty; False when it is not set."""
    *parents, leaf = path.split(".")
    chain: list[tuple[dict[str, Any], str]] = []
    node = content
    for segment in parents:
        child = node.get(segment)
        if not isinstance(child, dict):
            return False
        chain.append((node, segment))
        node = child
    if leaf not in node:
        return False
    del node[leaf]
    for parent, segment in reversed(chain):
        if parent[segment]:
            break
        del parent[segment]
    return True


def unset_value(path: str, *, global_target: bool, targets: ConfigTargets) -> ConfigChange:
    """Remove one saved value; the rest of the file must still be valid to be written."""
    _catalog_field(path)
    scope, file_path = _target(global_target, targets)
    content = _read_file_content(file_path)
    if not _remove(content, path):
        raise ContractViolation(CODE_NOT_SET, f"{path} is not set in {file_path}")
    warnings = _checked(content)
    _write_file_content(file_path, content)
    message = _reply(f"Unset {path} in {file_path} ({scope} configuration).", warnings)
    return ConfigChange(file=file_path, scope=scope, message=message, warnings=warnings)


# ---------------------------------------------------------------------------------------------
# The typed command line: /context config [show|set|unset] ...
# ---------------------------------------------------------------------------------------------

_SET_USAGE: Final = "Usage: /context config set <path> <value> [--global]"
_UNSET_USAGE: Final = "Usage: /context config unset <path> [--global]"
_CONFIG_USAGE: Final = "Usage: /context config [show|set|unset] (show is the default)"


def split_tokens(text: str) -> list[str]:
    """Shell-like words: quotes group, a backslash takes the next character literally."""
    tokens: list[str] = []
    current, quote, escaped = "", "", False
    for char in js_trim(text):
        if escaped:
            current, escaped = current + char, False
        elif char == "\\":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
            else:
                current += char
        elif char in "\"'":
            quote = char
        elif _JS_SPACE_RE.match(char):
            if current:
                tokens.append(current)
            current = ""
        else:
            current += char
    if escaped:
        current += "\\"
    if quote:
        raise ContractViolation(CODE_USAGE, "Unterminated quote in /context arguments")
    if current:
        tokens.append(current)
    return tokens


def split_options(tokens: Iterable[str]) -> tuple[list[str], bool]:
    """Positionals and the ``--global`` flag; any other ``--option`` is refused by name."""
    positionals: list[str] = []
    names: list[str] = []
    rest = list(tokens)
    for index, token in enumerate(rest):
        if token == "--":
            positionals += rest[index + 1:]
            break
        if token.startswith("--"):
            names.append(token[2:].split("=", 1)[0].lower())
        else:
            positionals.append(token)
    unknown = [name for name in dict.fromkeys(names) if name != "global"]
    if unknown:
        raise ContractViolation(CODE_UNKNOWN_OPTION, f"Unknown option(s): {', '.join(f'--{name}' for name in unknown)}")
    return positionals, "global" in names


def run_config_command(args: str, *, loaded: LoadedConfig, targets: ConfigTargets) -> str:
    """``/context config <args>`` in a running host: ``show`` shows what that host loaded."""
    words = js_trim(args).split(None, 1) if js_trim(args) else []
    command = words[0].lower() if words else "show"
    rest = words[1] if len(words) > 1 else ""
    if command == "show":
        return render_show(loaded)
    if command not in ("set", "unset"):
        raise ContractViolation(CODE_USAGE, _CONFIG_USAGE)
    positionals, global_target = split_options(split_tokens(rest))
    if command == "set":
        if len(positionals) < 2:
            raise ContractViolation(CODE_USAGE, _SET_USAGE)
        return set_value(positionals[0], " ".join(positionals[1:]), global_target=global_target,
                         targets=targets).message
    if len(positionals) != 1:
        raise ContractViolation(CODE_USAGE, _UNSET_USAGE)
    return unset_value(positionals[0], global_target=global_target, targets=targets).message


# ---------------------------------------------------------------------------------------------
# Adapter operations: JSON in, JSON out; host facts come from reference.pi.hostfacts.
# ---------------------------------------------------------------------------------------------


class HostFactsLike(Protocol):
    """The part of ``reference.pi.hostfacts.HostFacts`` that configuration needs."""

    @property
    def agent_dir(self) -> str: ...

    @property
    def project_trusted(self) -> bool: ...

    @property
    def config_dir_name(self) -> str: ...

    @property
    def global_config_path(self) -> str: ...

    @property
    def project_config_path(self) -> str: ...


def _string_param(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str):
        raise ContractViolation(CODE_INVALID_PARAMS, f"parameter {name!r} must be a string")
    return value


def host_facts(params: Mapping[str, Any]) -> HostFactsLike:
    """Resolve the host facts a request carries (home, cwd, env, argv) with ``reference.pi.hostfacts``."""
    home, cwd = _string_param(params, "home"), _string_param(params, "cwd")
    env, argv = params.get("env", {}), params.get("argv", [])
    if not isinstance(env, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ContractViolation(CODE_INVALID_PARAMS, "parameter 'env' must map strings to strings")
    if not isinstance(argv, Sequence) or isinstance(argv, str) or not all(isinstance(a, str) for a in argv):
        raise ContractViolation(CODE_INVALID_PARAMS, "parameter 'argv' must be a list of strings")
    host = importlib.import_module("reference.pi.hostfacts")  # late: host facts belong to another module
    return cast(HostFactsLike, host.resolve_host(home=home, cwd=cwd, env=dict(env), argv=tuple(argv)))


def _targets(facts: HostFactsLike) -> ConfigTargets:
    return ConfigTargets(facts.global_config_path, facts.project_config_path, facts.project_trusted)


def _load_for(facts: HostFactsLike) -> LoadedConfig:
    return load_config(global_path=facts.global_config_path, project_path=facts.project_config_path,
                       project_trusted=facts.project_trusted)


def op_config_show(params: Mapping[str, Any]) -> dict[str, Any]:
    """``config.show``: the configuration a host started with these facts would load."""
    loaded = _load_for(host_facts(params))
    return {
        "schema": SCHEMA_ID,
        "config": loaded.config,
        "warnings": list(loaded.warnings),
        "files": [item.to_json() for item in loaded.files],
        "text": render_show(loaded),
    }


def _edit_params(params: Mapping[str, Any]) -> tuple[str, bool]:
    path = _string_param(params, "path")
    global_target = params.get("global", False)
    if not isinstance(global_target, bool):
        raise ContractViolation(CODE_INVALID_PARAMS, "parameter 'global' must be a boolean")
    options = params.get("options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) and o.startswith("--") for o in options):
        raise ContractViolation(CODE_INVALID_PARAMS, "parameter 'options' must be a list of --option words")
    _, flagged = split_options(options)
    return path, global_target or flagged


def op_config_set(params: Mapping[str, Any]) -> dict[str, Any]:
    """``config.set``: params add ``path``, ``value`` (as typed), ``global`` and optional ``options``."""
    path, global_target = _edit_params(params)
    raw_value = _string_param(params, "value")
    facts = host_facts(params)
    return set_value(path, raw_value, global_target=global_target, targets=_targets(facts)).to_json()


def op_config_unset(params: Mapping[str, Any]) -> dict[str, Any]:
    """``config.unset``: params add ``path``, ``global`` and optional ``options``."""
    path, global_target = _edit_params(params)
    facts = host_facts(params)
    return unset_value(path, global_target=global_target, targets=_targets(facts)).to_json()
