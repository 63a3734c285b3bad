"""The built-in defaults: the extension's whole configuration shape (config.ts at 13a6853f, 0.5.0).

Files written for ``ds4-context-engine`` must load here with the same result (decisions D1), so
the defaults hold every upstream key, not only the feature's.  The value sets below are the
allowed values of the enum-like keys, shared by the catalog and the validation rules.
"""

from __future__ import annotations

from typing import Final

import msgspec

from reference.primitives.jsonbytes import JsonObject

SCHEMA_ID: Final = "ds4-context-config-v1"

CLASSIFICATIONS: Final = ("normal", "internal", "sensitive", "local-only")
HISTORY_SCOPES: Final = ("current-branch", "current-session", "current-lineage")
COMPACTION_THINKING_LEVELS: Final = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
LOG_LEVELS: Final = ("error", "warn", "info", "debug", "trace")

#: The defaults themselves; never changed in place (``default_config`` hands out copies).
DEFAULT_CONFIG: Final[JsonObject] = {
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


#: The defaults as JSON once: decoding it makes a fresh copy 4x faster than ``copy.deepcopy`` (a
#: rebase or a recall asks for the defaults several times; every value is a JSON value).
_DEFAULT_CONFIG_JSON: Final = msgspec.json.encode(DEFAULT_CONFIG)


def default_config() -> JsonObject:
    """A fresh copy of the built-in defaults (callers may change it): equal to, and of the same
    types as, ``copy.deepcopy(DEFAULT_CONFIG)`` (tests/config/test_defaults_copy.py)."""
    fresh: JsonObject = msgspec.json.decode(_DEFAULT_CONFIG_JSON)
    return fresh
