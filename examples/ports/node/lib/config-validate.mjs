// Whole-candidate validation (the extension's validateConfig): a candidate is the defaults with a
// file merged on top; the rules run in the upstream order with the upstream messages, the
// feature's own (contract §1.2) first, and the first failing rule discards the whole file.

import {
  CLASSIFICATIONS, HISTORY_SCOPES, INTEGER_BOUNDS, LOG_LEVELS, THINKING_LEVELS, getPath, isPlainObject,
} from "./config-defaults.mjs";

/** A candidate the extension refuses; the message is the rule's. */
export class ConfigError extends Error {
  constructor(message) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Throws ConfigError with the first failing rule's message. */
export function validateConfig(config) {
  for (const rules of [feature, context, retrieval, projectMemoryArtifacts, compaction, privacy, modelAwareness,
    continuationAndRest]) {
    rules(config);
  }
}

function require(condition, message) {
  if (!condition) throw new ConfigError(message);
}

const isNumber = (value) => typeof value === "number";
const between = (value, low, high, safe = false) =>
  (safe ? Number.isSafeInteger(value) : Number.isInteger(value)) && low <= value && value <= high;
const hasSpace = (text) => /\s/.test(text);

function requireBetween(config, path, low, high, safe = false) {
  require(between(getPath(config, path), low, high, safe), `${path} must be an integer between ${low} and ${high}`);
}

function requireAtMost(config, path, high) {
  require(between(getPath(config, path), 1, high), `${path} must be a positive integer at most ${high}`);
}

function feature(config) {
  const rebase = config.sessionRebase;
  require(rebase.mode === "manual" && rebase.preserveSource === true,
    "sessionRebase requires manual mode and preserveSource=true");
  for (const key of ["checkpointTargetTokens", "suggestAfterCompactions", "suggestAboveSessionMiB"]) {
    requireBetween(config, `sessionRebase.${key}`, ...INTEGER_BOUNDS[`sessionRebase.${key}`], true);
  }
  require(HISTORY_SCOPES.includes(config.historyTools.defaultScope),
    "historyTools.defaultScope must be current-branch, current-session or current-lineage");
  for (const key of ["maxResults", "maxOutputTokens", "maxProjectSessions"]) {
    requireBetween(config, `historyTools.${key}`, ...INTEGER_BOUNDS[`historyTools.${key}`], true);
  }
}

function context(config) {
  const ctx = config.context;
  require(ctx.mode === "observer" || ctx.mode === "managed", "context.mode must be observer or managed");
  for (const key of ["targetFillRatio", "softLimitRatio", "hardLimitRatio"]) {
    require(!(ctx[key] <= 0 || ctx[key] > 1), `context.${key} must be greater than 0 and at most 1`);
  }
  require(ctx.targetFillRatio <= ctx.softLimitRatio && ctx.softLimitRatio <= ctx.hardLimitRatio,
    "context ratios must satisfy targetFillRatio <= softLimitRatio <= hardLimitRatio");
  const nonNegative = ["minimumOutputReserve", "preferredOutputReserve", "recentTailTokens", "maxPinnedTokens",
    "maxMemoryTokens", "maxRetrievedHistoryTokens", "maxProjectTokens", "maxSummaryTokens"].map((key) => `context.${key}`)
    .concat(["compaction.segmentTargetTokens", "project.maxFileBytes", "project.maxTotalBytes", "memory.maxPinChars",
      "memory.maxClaimChars", "artifacts.maxInlineToolResultChars", "artifacts.maxArtifactBytes",
      "artifacts.maxSearchBytes", "artifacts.excerptChars"]);
  for (const name of nonNegative) {
    const value = getPath(config, name);
    require(Number.isInteger(value) && value >= 0, `${name} must be a non-negative integer`);
  }
  const { maxRequestInputTokens: perRequest, maxOperationInputTokens: perOperation } = config.compaction;
  require(Number.isInteger(perRequest) && perRequest > 0, "compaction.maxRequestInputTokens must be a positive integer");
  require(Number.isInteger(perOperation) && perOperation > 0,
    "compaction.maxOperationInputTokens must be a positive integer");
  require(perOperation >= perRequest,
    "compaction.maxOperationInputTokens must be at least compaction.maxRequestInputTokens");
  require(ctx.preferredOutputReserve >= ctx.minimumOutputReserve,
    "context.preferredOutputReserve must be at least context.minimumOutputReserve");
}

function retrieval(config) {
  requireAtMost(config, "retrieval.maxResults", 100);
  const embedding = config.retrieval.embedding;
  require(embedding.mode === "local" || embedding.mode === "remote", "retrieval.embedding.mode must be local or remote");
  const { provider, model } = embedding;
  require(provider.trim() !== "" && model.trim() !== "" && provider.trim() === provider && model.trim() === model
    && !/[\s/]/.test(provider) && !hasSpace(model), "retrieval.embedding provider/model must be trimmed non-empty identifiers");
  for (const [key, low, high] of [["dimensions", 16, 4096], ["maxSources", 1, 100000], ["candidatePool", 1, 500],
    ["batchSize", 1, 512], ["queryCacheSize", 1, 1000], ["timeoutMs", 1, 120000]]) {
    requireBetween(config, `retrieval.embedding.${key}`, low, high);
  }
  const profiles = embedding.remoteProfiles;
  require(Array.isArray(profiles), "retrieval.embedding.remoteProfiles must be an array");
  const seen = new Set();
  for (const profile of profiles) {
    require(typeof profile === "string" && profile.trim() === profile && !hasSpace(profile),
      "retrieval.embedding.remoteProfiles must contain trimmed provider/model profiles");
    const separator = profile.indexOf("/");
    require(separator > 0 && separator !== profile.length - 1 && !profile.includes("*"),
      `retrieval embedding profile ${profile} must be an exact provider/model`);
    require(!seen.has(profile), "retrieval.embedding.remoteProfiles must not contain duplicates");
    seen.add(profile);
  }
  if (embedding.mode === "remote") {
    require(seen.has(`${provider}/${model}`),
      "remote embedding requires exact provider/model consent in retrieval.embedding.remoteProfiles");
    require(config.privacy.enabled === true, "remote embedding requires privacy.enabled for filtering");
  }
}

function projectMemoryArtifacts(config) {
  const { project, memory, artifacts } = config;
  for (const [key, high] of [["maxFiles", 100000], ["snippetLines", 500], ["maxResults", 100]]) {
    requireAtMost(config, `project.${key}`, high);
  }
  require(Number.isInteger(project.snippetOverlapLines) && project.snippetOverlapLines >= 0
    && project.snippetOverlapLines < project.snippetLines,
  "project.snippetOverlapLines must be a non-negative integer below project.snippetLines");
  requireBetween(config, "memory.maxProjectSessions", 1, 10000);
  for (const key of ["maxPinChars", "maxClaimChars"]) {
    require(memory[key] >= 1 && memory[key] <= 20000, `memory.${key} must be between 1 and 20000`);
  }
  requireAtMost(config, "memory.maxResults", 100);
  require(artifacts.maxInlineToolResultChars >= 1000, "artifacts.maxInlineToolResultChars must be at least 1000");
  require(artifacts.excerptChars <= artifacts.maxInlineToolResultChars,
    "artifacts.excerptChars must not exceed artifacts.maxInlineToolResultChars");
  requireAtMost(config, "artifacts.maxSearchMatches", 100);
  require(artifacts.maxSearchBytes <= artifacts.maxArtifactBytes,
    "artifacts.maxSearchBytes must not exceed artifacts.maxArtifactBytes");
}

function compaction(config) {
  const { compaction: settings } = config;
  require(settings.mode === "hierarchical", "compaction.mode must be hierarchical");
  require(settings.preserveRecentVerbatim === true,
    "compaction.preserveRecentVerbatim must remain true for non-destructive compaction");
  const cache = config.context.cacheAware;
  const name = "context.cacheAware";
  require(cache.mode === "off" || cache.mode === "auto", `${name}.mode must be off or auto`);
  require(Number.isInteger(cache.minimumCacheSampleCount) && cache.minimumCacheSampleCount >= 0,
    `${name}.minimumCacheSampleCount must be a non-negative integer`);
  const share = cache.minimumCacheReadShare;
  require(isNumber(share) && share >= 0 && share <= 1, `${name}.minimumCacheReadShare must be a number between 0 and 1`);
  require(isNumber(cache.minimumMissHitRatio) && cache.minimumMissHitRatio > 0,
    `${name}.minimumMissHitRatio must be a positive number`);
  const improvement = cache.minimumImprovementRatio;
  require(isNumber(improvement) && improvement >= 0 && improvement <= 1,
    `${name}.minimumImprovementRatio must be a number between 0 and 1`);
  const tail = cache.maxTailBudgetShare;
  require(isNumber(tail) && tail > 0 && tail <= 1, `${name}.maxTailBudgetShare must be a number between 0 and 1`);
  for (const [key, high] of [["expectedRequestsPerTurn", 64], ["expectedTurnsPerEpoch", 64], ["stickinessEpochs", 16]]) {
    requireBetween(config, `${name}.${key}`, 1, high);
  }
  const budget = Object.hasOwn(settings, "inputBudget") ? settings.inputBudget : "context";
  require(budget === "summary" || budget === "context", "compaction.inputBudget must be summary or context");
  if (Object.hasOwn(settings, "maxConcurrentSegments")) requireBetween(config, "compaction.maxConcurrentSegments", 1, 2);
  if (isPlainObject(settings.model)) {
    require([settings.model.provider, settings.model.id].every((token) => typeof token === "string" && token.trim() !== ""
      && token.trim() === token && !/[\s/]/.test(token)),
    "compaction.model.provider and compaction.model.id must be non-empty trimmed tokens without whitespace or slashes");
  }
  if (isPlainObject(settings.summary) && Object.hasOwn(settings.summary, "thinking")) {
    require(THINKING_LEVELS.includes(settings.summary.thinking),
      `compaction.summary.thinking must be one of ${THINKING_LEVELS.join(", ")}`);
  }
  if (isPlainObject(settings.transport)) {
    if (Object.hasOwn(settings.transport, "maxAttempts")) requireBetween(config, "compaction.transport.maxAttempts", 1, 10);
    if (Object.hasOwn(settings.transport, "baseDelayMs")) {
      requireBetween(config, "compaction.transport.baseDelayMs", 0, 60000);
    }
  }
}

function checkClassifications(name, values) {
  require(Array.isArray(values) && values.every((value) => CLASSIFICATIONS.includes(value)),
    `${name} must contain only ${CLASSIFICATIONS.join(", ")}`);
  require(new Set(values).size === values.length, `${name} must not contain duplicates`);
  require(!values.includes("local-only"), `${name} cannot allow local-only content to a remote provider`);
}

function privacy(config) {
  const settings = config.privacy;
  require(CLASSIFICATIONS.includes(settings.defaultClassification), "privacy.defaultClassification is invalid");
  const local = settings.localProviders;
  require(Array.isArray(local) && local.every((name) => typeof name === "string" && name.trim() !== ""),
    "privacy.localProviders must contain non-empty provider names");
  const normalized = local.map((name) => name.trim().toLowerCase());
  require(new Set(normalized).size === normalized.length, "privacy.localProviders must not contain duplicates");
  checkClassifications("privacy.remoteDefaultAllowed", settings.remoteDefaultAllowed);
  for (const [provider, allowed] of Object.entries(settings.remoteProviders)) {
    require(provider.trim() !== "", "privacy.remoteProviders keys must not be empty");
    require(!normalized.includes(provider.trim().toLowerCase()), `privacy provider ${provider} cannot be both local and remote`);
    checkClassifications(`privacy.remoteProviders.${provider}`, allowed);
  }
}

const OVERRIDE_FIELDS = new Set(["tokenEstimator", "contextWindow", "maxOutputTokens", "safetyMarginTokens",
  "recentTailTokens", "maxRetrievedHistoryTokens", "maxProjectTokens"]);

function modelAwareness(config) {
  const awareness = config.modelAwareness;
  requireBetween(config, "modelAwareness.calibrationWindow", 3, 200);
  require(between(awareness.minimumCalibrationSamples, 1, awareness.calibrationWindow),
    "modelAwareness.minimumCalibrationSamples must be between 1 and calibrationWindow");
  const lower = awareness.calibrationRatioLowerBound;
  const upper = awareness.calibrationRatioUpperBound;
  require(Number.isFinite(lower) && Number.isFinite(upper) && lower >= 0.25 && upper <= 4 && lower < upper,
    "modelAwareness calibration ratio bounds must satisfy 0.25 <= lower < upper <= 4");
  for (const [key, override] of Object.entries(awareness.overrides)) {
    const trimmed = key.trim();
    const separator = trimmed.indexOf("/");
    require(trimmed === key && (trimmed === "*" || (separator > 0 && separator !== trimmed.length - 1
      && trimmed.slice(0, separator) !== "*")), `modelAwareness override ${key} must be provider/model, provider/*, or *`);
    require(isPlainObject(override), `modelAwareness.overrides.${key} must be an object`);
    for (const fieldName of Object.keys(override)) {
      require(OVERRIDE_FIELDS.has(fieldName), `Unknown modelAwareness override field: ${key}.${fieldName}`);
    }
    if (Object.hasOwn(override, "tokenEstimator")) {
      require(override.tokenEstimator === "chars-v1" || override.tokenEstimator === "o200k-base-v1",
        `modelAwareness override ${key} tokenEstimator must be chars-v1 or o200k-base-v1`);
    }
    for (const [names, low, text] of [
      [["contextWindow", "maxOutputTokens"], 1, "context/output limits must be positive integers"],
      [["safetyMarginTokens", "recentTailTokens", "maxRetrievedHistoryTokens", "maxProjectTokens"], 0,
        "token limits must be non-negative integers"]]) {
      require(names.every((name) => !Object.hasOwn(override, name) || between(override[name], low, 10_000_000)),
        `modelAwareness override ${key} ${text} at most 10000000`);
    }
    if (isNumber(override.contextWindow) && isNumber(override.maxOutputTokens)) {
      require(override.maxOutputTokens <= override.contextWindow,
        `modelAwareness override ${key} maxOutputTokens must not exceed contextWindow`);
    }
  }
}

function continuationAndRest(config) {
  const continuation = config.nativeContinuation;
  const profiles = continuation.profiles;
  require(Array.isArray(profiles) && profiles.length > 0,
    "nativeContinuation.profiles must contain at least one provider/model profile");
  const seen = new Set();
  for (const profile of profiles) {
    require(typeof profile === "string" && profile.trim() === profile && !hasSpace(profile),
      "nativeContinuation.profiles must contain trimmed provider/model profiles without whitespace");
    const separator = profile.indexOf("/");
    const provider = separator > 0 ? profile.slice(0, separator) : "";
    const model = separator > 0 ? profile.slice(separator + 1) : "";
    require(provider !== "" && model !== "" && !provider.includes("*") && (!model.includes("*") || model === "*"),
      `nativeContinuation profile ${profile} must be provider/model or provider/*`);
    require(!seen.has(profile), "nativeContinuation.profiles must not contain duplicates");
    seen.add(profile);
  }
  require(!(continuation.enabled && !continuation.allowProviderStorage),
    "nativeContinuation.allowProviderStorage must be true when native continuation is enabled");
  requireBetween(config, "nativeContinuation.maxStateAgeMs", 10000, 86400000);
  requireBetween(config, "quality.maxSamples", 1, 100000);
  const ranking = config.ranking;
  require(["off", "shadow", "active"].includes(ranking.mode), "ranking.mode must be off, shadow, or active");
  require(ranking.modelPath.trim() !== "", "ranking.modelPath must not be empty");
  requireBetween(config, "ranking.minimumTrainingSamples", 2, 100000, true);
  require(between(ranking.maxTrainingSamples, ranking.minimumTrainingSamples, 1000000, true),
    "ranking.maxTrainingSamples must be an integer between minimumTrainingSamples and 1000000");
  require(Number.isFinite(ranking.maxLatencyMs) && ranking.maxLatencyMs > 0 && ranking.maxLatencyMs <= 1000,
    "ranking.maxLatencyMs must be greater than 0 and at most 1000");
  require(LOG_LEVELS.includes(config.diagnostics.logLevel), "diagnostics.logLevel is invalid");
  const storage = config.storage;
  require(storage.scope === "agent" || storage.scope === "project", "storage.scope must be agent or project");
  require(storage.databasePath.trim() !== "", "storage.databasePath must not be empty");
  requireBetween(config, "storage.busyTimeoutMs", 1, 60000, true);
  require(between(storage.writeRetryTimeoutMs, storage.busyTimeoutMs, 300000, true),
    "storage.writeRetryTimeoutMs must be an integer between busyTimeoutMs and 300000");
  requireBetween(config, "storage.projectIndexLeaseMs", 10000, 3600000, true);
}
