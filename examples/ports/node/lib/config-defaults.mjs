// The DS4 configuration's built-in defaults and the catalog of the paths /context config shows
// and edits (docs/spec/contract.md §1). The defaults hold the extension's whole shape (0.5.0), not
// only the feature's keys: a file written for the extension must load here with the same result.

export const SCHEMA_ID = "ds4-context-config-v1";
export const CLASSIFICATIONS = ["normal", "internal", "sensitive", "local-only"];
export const HISTORY_SCOPES = ["current-branch", "current-session", "current-lineage"];
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
export const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"];

/** Never changed in place: loading starts from structuredClone(DEFAULT_CONFIG). */
export const DEFAULT_CONFIG = deepFreeze({
  enabled: true,
  context: {
    mode: "managed", targetFillRatio: 0.7, softLimitRatio: 0.8, hardLimitRatio: 0.9,
    minimumOutputReserve: 8192, preferredOutputReserve: 32768, recentTailTokens: 64000,
    rescueImmediatePredecessor: true, maxPinnedTokens: 16000, maxMemoryTokens: 8000,
    maxRetrievedHistoryTokens: 16000, maxProjectTokens: 20000, maxSummaryTokens: 12000,
    cacheAware: {
      mode: "off", minimumCacheSampleCount: 3, minimumCacheReadShare: 0.5, minimumMissHitRatio: 20,
      minimumImprovementRatio: 0.1, maxTailBudgetShare: 0.5, expectedRequestsPerTurn: 4,
      expectedTurnsPerEpoch: 4, stickinessEpochs: 2,
    },
  },
  compaction: {
    enabled: true, mode: "hierarchical", validate: true, segmentTargetTokens: 30000,
    maxRequestInputTokens: 64000, maxOperationInputTokens: 2000000, preserveRecentVerbatim: true,
    directUpdate: true, inputBudget: "context", maxConcurrentSegments: 2,
    transport: { maxAttempts: 4, baseDelayMs: 2000 },
  },
  editing: { anchored: false, postEditReport: false },
  reading: { adaptive: false },
  jobs: { enabled: false },
  sessionRebase: {
    enabled: true, mode: "manual", suggestAfterCompactions: 6, suggestAboveSessionMiB: 50,
    checkpointTargetTokens: 8000, preserveSource: true,
  },
  historyTools: {
    enabled: true, defaultScope: "current-branch", maxResults: 6, maxOutputTokens: 3000,
    allowProjectScope: false, includeSummaries: false, maxProjectSessions: 100,
  },
  retrieval: {
    exact: true, fts: true, semantic: false, maxResults: 12,
    embedding: {
      mode: "local", provider: "ds4-local", model: "feature-hash-v1", dimensions: 256, remoteProfiles: [],
      maxSources: 50000, candidatePool: 80, batchSize: 64, queryCacheSize: 64, timeoutMs: 2000,
    },
  },
  project: {
    enabled: true, maxFiles: 10000, maxFileBytes: 512000, maxTotalBytes: 50000000, snippetLines: 80,
    snippetOverlapLines: 12, maxResults: 8,
  },
  memory: {
    enabled: true, crossSession: false, maxProjectSessions: 250, maxPinChars: 4000, maxClaimChars: 2000,
    maxResults: 12,
  },
  artifacts: {
    enabled: true, adaptiveBudget: false, maxInlineToolResultChars: 12000, maxArtifactBytes: 100000000,
    maxSearchBytes: 50000000, excerptChars: 6000, maxSearchMatches: 12, storeLargeOutputs: true,
  },
  privacy: {
    enabled: false, defaultClassification: "normal", localProviders: ["faux", "ollama", "llama-cpp", "lmstudio"],
    remoteDefaultAllowed: ["normal", "internal"], remoteProviders: {}, redactSecrets: true,
  },
  modelAwareness: {
    enabled: true, calibrationWindow: 24, minimumCalibrationSamples: 3, calibrationRatioLowerBound: 0.5,
    calibrationRatioUpperBound: 2, overrides: {},
  },
  nativeContinuation: {
    enabled: false, allowProviderStorage: false, profiles: ["openai/*"], maxStateAgeMs: 1800000,
    retryManagedReplay: true,
  },
  localKvReuse: { enabled: false },
  quality: { enabled: false, maxSamples: 1000 },
  ranking: {
    mode: "off", modelPath: "ds4-context/ranking-model.json", minimumTrainingSamples: 20,
    maxTrainingSamples: 10000, maxLatencyMs: 10,
  },
  diagnostics: { storeContextManifest: true, storeFullRenderedContext: false, logLevel: "info" },
  storage: {
    scope: "project", databasePath: "ds4-context/context.db", busyTimeoutMs: 5000, writeRetryTimeoutMs: 30000,
    projectIndexLeaseMs: 120000,
  },
});

/** The feature's bounded integers, path -> [min, max]. */
export const INTEGER_BOUNDS = Object.freeze({
  "sessionRebase.checkpointTargetTokens": [512, 24000],
  "sessionRebase.suggestAfterCompactions": [1, 100],
  "sessionRebase.suggestAboveSessionMiB": [1, 1024],
  "historyTools.maxResults": [1, 12],
  "historyTools.maxOutputTokens": [256, 6000],
  "historyTools.maxProjectSessions": [1, 500],
});

const field = (path, kind, values = [], optional = false) => Object.freeze({ path, kind, values, optional });

/** Every path show lists and set/unset edit, in the upstream catalog's order, with its kind
 * (how set parses the typed value) and allowed values. */
export const CATALOG = Object.freeze([
  field("enabled", "boolean"),
  field("context.mode", "enum", ["observer", "managed"]),
  field("sessionRebase.enabled", "boolean"),
  field("sessionRebase.mode", "enum", ["manual"]),
  field("sessionRebase.suggestAfterCompactions", "integer"),
  field("sessionRebase.suggestAboveSessionMiB", "integer"),
  field("sessionRebase.checkpointTargetTokens", "integer"),
  field("sessionRebase.preserveSource", "boolean"),
  field("historyTools.enabled", "boolean"),
  field("historyTools.defaultScope", "enum", HISTORY_SCOPES),
  field("historyTools.maxResults", "integer"),
  field("historyTools.maxOutputTokens", "integer"),
  field("historyTools.allowProjectScope", "boolean"),
  field("historyTools.includeSummaries", "boolean"),
  field("historyTools.maxProjectSessions", "integer"),
  field("retrieval.exact", "boolean"),
  field("retrieval.fts", "boolean"),
  field("retrieval.semantic", "boolean"),
  field("memory.enabled", "boolean"),
  field("privacy.enabled", "boolean"),
  field("privacy.defaultClassification", "enum", CLASSIFICATIONS),
  field("privacy.localProviders", "string-array"),
  field("privacy.remoteDefaultAllowed", "enum-array", CLASSIFICATIONS),
  field("privacy.remoteProviders", "classification-map", [], true),
  field("privacy.redactSecrets", "boolean"),
]);

export function catalogField(path) {
  return CATALOG.find((item) => item.path === path) ?? null;
}

/** The value at a dotted path, or undefined when a segment is missing. */
export function getPath(config, dotted) {
  let node = config;
  for (const segment of dotted.split(".")) {
    if (!isPlainObject(node) || !Object.hasOwn(node, segment)) return undefined;
    node = node[segment];
  }
  return node;
}

/** A JSON object: not null, not an array. */
export function isPlainObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deepFreeze(value) {
  if (typeof value === "object" && value !== null) Object.values(value).forEach(deepFreeze);
  return Object.freeze(value);
}
