// Layered loading (contract §1.4): the defaults, then the global file <agentDir>/ds4-context.json,
// then the project file <cwd>/.pi/ds4-context.json when the project is trusted. Each file is merged
// key by key onto the layer below (a key of the wrong JavaScript type is skipped with a warning)
// and the candidate validated whole; a file that fails is discarded whole with one warning.

import { DEFAULT_CONFIG, isPlainObject } from "./config-defaults.mjs";
import { ConfigError, validateConfig } from "./config-validate.mjs";
import { HostFileError, exists, readText } from "./hostfiles.mjs";

/** Keys absent from the defaults that a file may add, and the maps merged entry by entry. */
const OPTIONAL_OBJECTS = new Set(["compaction.model", "compaction.summary"]);
const OPTIONAL_BOOLEANS = new Set(["modelAwareness.autoTune"]);
const SPREAD_MAPS = new Set(["privacy.remoteProviders", "modelAwareness.overrides"]);

/** JSON.parse, refusing a leading byte-order mark; a ConfigError says where and why. */
export function parseJson(text) {
  if (text.startsWith("\ufeff")) {
    throw new ConfigError("invalid JSON at line 1 column 1: Unexpected UTF-8 BOM (decode using utf-8-sig)");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const at = /at position (\d+)/.exec(error.message);
    const reason = error.message.replace(/ in JSON at position \d+.*$/, "");
    if (at === null) throw new ConfigError(`invalid JSON: ${reason}`);
    const before = text.slice(0, Number(at[1])).split("\n");
    throw new ConfigError(`invalid JSON at line ${before.length} column ${before.at(-1).length + 1}: ${reason}`);
  }
}

/** The file's keys applied onto the layer below; each bad key is skipped with a warning. */
export function mergeKnown(base, override, warnings, prefix = "") {
  const result = structuredClone(base);
  for (const [key, incoming] of Object.entries(override)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (!Object.hasOwn(base, key)) {
      if (OPTIONAL_OBJECTS.has(path) && isPlainObject(incoming)) result[key] = structuredClone(incoming);
      else if (OPTIONAL_BOOLEANS.has(path) && typeof incoming === "boolean") result[key] = incoming;
      else warnings.push(`Unknown configuration key ignored: ${path}`);
      continue;
    }
    const expected = base[key];
    if (isPlainObject(expected)) {
      if (!isPlainObject(incoming)) warnings.push(`Invalid configuration value ignored: ${path} must be an object`);
      else if (SPREAD_MAPS.has(path)) result[key] = { ...structuredClone(expected), ...structuredClone(incoming) };
      else if (Object.keys(expected).length === 0) result[key] = structuredClone(incoming);
      else result[key] = mergeKnown(expected, incoming, warnings, path);
    } else if (typeof incoming !== typeof expected || (typeof incoming === "number" && !Number.isFinite(incoming))) {
      warnings.push(`Invalid configuration value ignored: ${path} has the wrong type`);
    } else {
      result[key] = structuredClone(incoming);
    }
  }
  return result;
}

/** One layer: [the configuration after it, whether it was applied]. */
function applyFile(path, base, warnings) {
  if (!exists(path)) return [base, false];
  const fileWarnings = [];
  let candidate;
  try {
    let text;
    try {
      text = readText(path);
    } catch (error) {
      if (error instanceof HostFileError) throw new ConfigError(`cannot read the file: ${error.reason}`);
      throw error;
    }
    const parsed = parseJson(text);
    if (!isPlainObject(parsed)) throw new ConfigError("top-level JSON value must be an object");
    candidate = mergeKnown(base, parsed, fileWarnings);
    validateConfig(candidate);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    warnings.push(`${path}: configuration ignored: ${error.message}`);
    return [base, false];
  }
  warnings.push(...fileWarnings.map((warning) => `${path}: ${warning}`));
  return [candidate, true];
}

/** The configuration a host started with these facts loads: {config, warnings, files}. It is
 * read from disk at every call: a saved edit applies at the next start, which every request is. */
export function loadConfig(facts) {
  const warnings = [];
  const [globalConfig, globalLoaded] = applyFile(facts.globalConfigPath, structuredClone(DEFAULT_CONFIG), warnings);
  let config = globalConfig;
  let projectLoaded = false;
  if (facts.projectTrusted) {
    [config, projectLoaded] = applyFile(facts.projectConfigPath, config, warnings);
  } else if (exists(facts.projectConfigPath)) {
    warnings.push(`${facts.projectConfigPath}: project configuration skipped because the project is not trusted`);
  }
  return {
    config, warnings,
    files: [{ scope: "global", path: facts.globalConfigPath, loaded: globalLoaded },
      { scope: "project", path: facts.projectConfigPath, loaded: projectLoaded }],
  };
}
