"""Whole-candidate validation (config-loader.ts ``validateConfig``): first failure wins.

A candidate is the defaults with the files merged on top.  The rules run in the upstream order
with the upstream messages, the feature's own rules (§1.2) first; a failing rule discards the
whole file that produced the candidate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from reference.config.catalog import INTEGER_BOUNDS
from reference.config.defaults import (
    CLASSIFICATIONS,
    COMPACTION_THINKING_LEVELS,
    HISTORY_SCOPES,
    LOG_LEVELS,
)
from reference.config.dotted_paths import get_path
from reference.config.errors import ConfigError
from reference.primitives.jsvalues import JS_WHITESPACE, is_integer, is_number, is_safe_integer, trim

_JS_SPACE_RE: Final = re.compile(f"[{re.escape(JS_WHITESPACE)}]")
_JS_SPACE_OR_SLASH_RE: Final = re.compile(f"[{re.escape(JS_WHITESPACE)}/]")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


def _int_between(value: Any, low: float, high: float, *, safe: bool = False) -> bool:
    check = is_safe_integer if safe else is_integer
    return check(value) and low <= value <= high


def _require_between(config: Mapping[str, Any], path: str, low: int, high: int, *, safe: bool = False) -> None:
    """The rule "``path`` must be an integer between ``low`` and ``high``" (upstream's words)."""
    _require(_int_between(get_path(config, path), low, high, safe=safe),
             f"{path} must be an integer between {low} and {high}")


def _require_at_most(config: Mapping[str, Any], path: str, high: int) -> None:
    """The rule "``path`` must be a positive integer at most ``high``" (upstream's words)."""
    _require(_int_between(get_path(config, path), 1, high), f"{path} must be a positive integer at most {high}")


def _validate_feature(config: Mapping[str, Any]) -> None:
    """The rules §1.2 lists, in the upstream order (rebase first, then history tools)."""
    rebase = config["sessionRebase"]
    _require(rebase["mode"] == "manual" and rebase["preserveSource"] is True,
             "sessionRebase requires manual mode and preserveSource=true")
    for key in ("checkpointTargetTokens", "suggestAfterCompactions", "suggestAboveSessionMiB"):
        _require_between(config, f"sessionRebase.{key}", *INTEGER_BOUNDS[f"sessionRebase.{key}"], safe=True)
    _require(config["historyTools"]["defaultScope"] in HISTORY_SCOPES,
             "historyTools.defaultScope must be current-branch, current-session or current-lineage")
    for key in ("maxResults", "maxOutputTokens", "maxProjectSessions"):
        _require_between(config, f"historyTools.{key}", *INTEGER_BOUNDS[f"historyTools.{key}"], safe=True)


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
    _require_at_most(config, "retrieval.maxResults", 100)
    embedding = retrieval["embedding"]
    _require(embedding["mode"] in ("local", "remote"), "retrieval.embedding.mode must be local or remote")
    provider, model = embedding["provider"], embedding["model"]
    _require(bool(trim(provider)) and bool(trim(model)) and trim(provider) == provider
             and trim(model) == model and not _JS_SPACE_OR_SLASH_RE.search(provider)
             and not _JS_SPACE_RE.search(model),
             "retrieval.embedding provider/model must be trimmed non-empty identifiers")
    for key, low, high in (("dimensions", 16, 4096), ("maxSources", 1, 100000), ("candidatePool", 1, 500),
                           ("batchSize", 1, 512), ("queryCacheSize", 1, 1000), ("timeoutMs", 1, 120000)):
        _require_between(config, f"retrieval.embedding.{key}", low, high)
    profiles = embedding["remoteProfiles"]
    _require(isinstance(profiles, list), "retrieval.embedding.remoteProfiles must be an array")
    seen: set[str] = set()
    for profile in profiles:
        _require(isinstance(profile, str) and trim(profile) == profile and not _JS_SPACE_RE.search(profile),
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
        _require_at_most(config, f"project.{key}", high)
    overlap = project["snippetOverlapLines"]
    _require(is_integer(overlap) and 0 <= overlap < project["snippetLines"],
             "project.snippetOverlapLines must be a non-negative integer below project.snippetLines")
    memory = config["memory"]
    _require_between(config, "memory.maxProjectSessions", 1, 10000)
    for key in ("maxPinChars", "maxClaimChars"):
        _require(1 <= memory[key] <= 20000, f"memory.{key} must be between 1 and 20000")
    _require_at_most(config, "memory.maxResults", 100)
    artifacts = config["artifacts"]
    _require(artifacts["maxInlineToolResultChars"] >= 1000,
             "artifacts.maxInlineToolResultChars must be at least 1000")
    _require(artifacts["excerptChars"] <= artifacts["maxInlineToolResultChars"],
             "artifacts.excerptChars must not exceed artifacts.maxInlineToolResultChars")
    _require_at_most(config, "artifacts.maxSearchMatches", 100)
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
    _require(is_number(share) and 0 <= share <= 1, f"{name}.minimumCacheReadShare must be a number between 0 and 1")
    ratio = cache.get("minimumMissHitRatio")
    _require(is_number(ratio) and ratio > 0, f"{name}.minimumMissHitRatio must be a positive number")
    improvement = cache.get("minimumImprovementRatio")
    _require(is_number(improvement) and 0 <= improvement <= 1,
             f"{name}.minimumImprovementRatio must be a number between 0 and 1")
    tail = cache.get("maxTailBudgetShare")
    _require(is_number(tail) and 0 < tail <= 1, f"{name}.maxTailBudgetShare must be a number between 0 and 1")
    for key, high in (("expectedRequestsPerTurn", 64), ("expectedTurnsPerEpoch", 64), ("stickinessEpochs", 16)):
        _require_between(config, f"{name}.{key}", 1, high)
    _require(compaction.get("inputBudget", "context") in ("summary", "context"),
             "compaction.inputBudget must be summary or context")
    if "maxConcurrentSegments" in compaction:
        _require_between(config, "compaction.maxConcurrentSegments", 1, 2)
    model = compaction.get("model")
    if isinstance(model, dict):
        # Upstream crashes on a non-string here; the same rule's message is clearer.
        tokens = [model.get("provider"), model.get("id")]
        _require(all(isinstance(token, str) and trim(token) and trim(token) == token
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
            _require_between(config, "compaction.transport.maxAttempts", 1, 10)
        if "baseDelayMs" in transport:
            _require_between(config, "compaction.transport.baseDelayMs", 0, 60000)


def _check_classifications(name: str, values: Any) -> None:
    _require(isinstance(values, list) and all(value in CLASSIFICATIONS for value in values),
             f"{name} must contain only {', '.join(CLASSIFICATIONS)}")
    _require(len(set(values)) == len(values), f"{name} must not contain duplicates")
    _require("local-only" not in values, f"{name} cannot allow local-only content to a remote provider")


def _validate_privacy(config: Mapping[str, Any]) -> None:
    privacy = config["privacy"]
    _require(privacy["defaultClassification"] in CLASSIFICATIONS, "privacy.defaultClassification is invalid")
    local = privacy["localProviders"]
    _require(isinstance(local, list) and all(isinstance(name, str) and trim(name) for name in local),
             "privacy.localProviders must contain non-empty provider names")
    normalized = [trim(name).lower() for name in local]
    _require(len(set(normalized)) == len(normalized), "privacy.localProviders must not contain duplicates")
    _check_classifications("privacy.remoteDefaultAllowed", privacy["remoteDefaultAllowed"])
    for provider, allowed in privacy["remoteProviders"].items():
        _require(bool(trim(provider)), "privacy.remoteProviders keys must not be empty")
        _require(trim(provider).lower() not in normalized, f"privacy provider {provider} cannot be both local and remote")
        _check_classifications(f"privacy.remoteProviders.{provider}", allowed)


_OVERRIDE_FIELDS: Final = frozenset({
    "tokenEstimator", "contextWindow", "maxOutputTokens", "safetyMarginTokens", "recentTailTokens",
    "maxRetrievedHistoryTokens", "maxProjectTokens",
})


def _validate_model_awareness(config: Mapping[str, Any]) -> None:
    awareness = config["modelAwareness"]
    window = awareness["calibrationWindow"]
    _require_between(config, "modelAwareness.calibrationWindow", 3, 200)
    _require(_int_between(awareness["minimumCalibrationSamples"], 1, window),
             "modelAwareness.minimumCalibrationSamples must be between 1 and calibrationWindow")
    lower, upper = awareness["calibrationRatioLowerBound"], awareness["calibrationRatioUpperBound"]
    _require(math.isfinite(lower) and math.isfinite(upper) and lower >= 0.25 and upper <= 4 and lower < upper,
             "modelAwareness calibration ratio bounds must satisfy 0.25 <= lower < upper <= 4")
    for key, override in awareness["overrides"].items():
        trimmed = trim(key)
        separator = trimmed.find("/")
        _require(trimmed == key and (trimmed == "*" or (separator > 0 and separator != len(trimmed) - 1
                                                         and trimmed[:separator] != "*")),
                 f"modelAwareness override {key} must be provider/model, provider/*, or *")
        _require(isinstance(override, dict), f"modelAwareness.overrides.{key} must be an object")
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
        if is_number(window_value) and is_number(output):
            _require(output <= window_value, f"modelAwareness override {key} maxOutputTokens must not exceed contextWindow")


def _validate_continuation_and_rest(config: Mapping[str, Any]) -> None:
    continuation = config["nativeContinuation"]
    profiles = continuation["profiles"]
    _require(isinstance(profiles, list) and len(profiles) > 0,
             "nativeContinuation.profiles must contain at least one provider/model profile")
    seen: set[str] = set()
    for profile in profiles:
        _require(isinstance(profile, str) and trim(profile) == profile and not _JS_SPACE_RE.search(profile),
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
    _require_between(config, "nativeContinuation.maxStateAgeMs", 10000, 86400000)
    _require_between(config, "quality.maxSamples", 1, 100000)
    ranking = config["ranking"]
    _require(ranking["mode"] in ("off", "shadow", "active"), "ranking.mode must be off, shadow, or active")
    _require(bool(trim(ranking["modelPath"])), "ranking.modelPath must not be empty")
    _require_between(config, "ranking.minimumTrainingSamples", 2, 100000, safe=True)
    minimum = ranking["minimumTrainingSamples"]
    _require(_int_between(ranking["maxTrainingSamples"], minimum, 1000000, safe=True),
             "ranking.maxTrainingSamples must be an integer between minimumTrainingSamples and 1000000")
    _require(math.isfinite(ranking["maxLatencyMs"]) and 0 < ranking["maxLatencyMs"] <= 1000,
             "ranking.maxLatencyMs must be greater than 0 and at most 1000")
    _require(config["diagnostics"]["logLevel"] in LOG_LEVELS, "diagnostics.logLevel is invalid")
    storage = config["storage"]
    _require(storage["scope"] in ("agent", "project"), "storage.scope must be agent or project")
    _require(bool(trim(storage["databasePath"])), "storage.databasePath must not be empty")
    _require_between(config, "storage.busyTimeoutMs", 1, 60000, safe=True)
    busy = storage["busyTimeoutMs"]
    _require(_int_between(storage["writeRetryTimeoutMs"], busy, 300000, safe=True),
             "storage.writeRetryTimeoutMs must be an integer between busyTimeoutMs and 300000")
    _require_between(config, "storage.projectIndexLeaseMs", 10000, 3600000, safe=True)


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
