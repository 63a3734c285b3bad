// Host facts (decisions D9, docs/host.md): what Pi 0.84.3 derives from its home, working
// directory, environment and command line: the agent dir, the session dir, whether the project is
// trusted and where the two DS4 config files are. A request carries those four inputs; the port
// never reads its own process.env, home or cwd, and never writes here. Read only:
// <agentDir>/trust.json, <agentDir>/settings.json and <cwd>/.pi/settings.json.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { ContractError } from "./errors.mjs";
import { exists, readText } from "./hostfiles.mjs";
import { sessionDirName } from "./primitives.mjs";

const IS_WINDOWS = process.platform === "win32";
export const CONFIG_DIR_NAME = ".pi"; // Pi's piConfig.configDir
const AGENT_DIR_ENV = "PI_CODING_AGENT_DIR";
const SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR";
const CONFIG_FILE_NAME = "ds4-context.json";
/** Entries of <cwd>/.pi that make Pi ask about trust (ds4-context.json is not one of them). */
const TRUST_REQUIRING_ENTRIES = ["settings.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md",
  "APPEND_SYSTEM.md"];
/** Pi's parseArgs: flags that take the next word as their value, even when it looks like a flag. */
const VALUE_FLAGS = new Set(["--mode", "--provider", "--model", "--api-key", "--system-prompt",
  "--append-system-prompt", "--name", "-n", "--session", "--session-id", "--fork", "--session-dir", "--models",
  "--tools", "-t", "--exclude-tools", "-xt", "--thinking", "--export", "--extension", "-e", "--skill",
  "--prompt-template", "--theme"]);
const HOST_KEYS = new Set(["home", "cwd", "env", "argv"]);

/** host.facts: {home, cwd, env, argv} -> the facts; no other parameter is taken. */
export function hostFacts(params) {
  const host = hostParams(params);
  const unknown = Object.keys(params).filter((key) => !HOST_KEYS.has(key)).sort();
  if (unknown.length > 0) throw new ContractError("invalid-params", `unknown params: ${unknown.join(", ")}`);
  const facts = resolveHost(host);
  return {
    agentDir: facts.agentDir, sessionsRoot: facts.sessionsRoot, sessionDir: facts.sessionDir,
    projectTrusted: facts.projectTrusted, trustSource: facts.trustSource, configDirName: CONFIG_DIR_NAME,
    globalConfigPath: facts.globalConfigPath, projectConfigPath: facts.projectConfigPath,
  };
}

/** The four host inputs of a request (schemas/adapter/v1 hostEnv), each a usable file name. */
export function hostParams(params) {
  return usablePaths(hostTypes(params));
}

/** The four host inputs, checked for their types only (invalid-params). */
export function hostTypes(params) {
  const { home, cwd, env, argv } = params;
  if (typeof home !== "string" || typeof cwd !== "string") {
    throw new ContractError("invalid-params", "parameters 'home' and 'cwd' must be strings");
  }
  if (!isObject(env) || !Object.values(env).every((value) => typeof value === "string")) {
    throw new ContractError("invalid-params", "parameter 'env' must be an object of strings");
  }
  if (!Array.isArray(argv) || !argv.every((word) => typeof word === "string")) {
    throw new ContractError("invalid-params", "parameter 'argv' must be an array of strings");
  }
  return { home, cwd, env, argv };
}

/** The host inputs, unless one cannot name a file: a NUL or a lone surrogate (invalid-path). */
export function usablePaths(host) {
  const named = [["home", host.home], ["cwd", host.cwd],
    ...Object.entries(host.env).map(([key, value]) => [`env.${key}`, value]),
    ...host.argv.map((word, index) => [`argv[${index}]`, word])];
  for (const [name, value] of named) {
    if (value.includes("\0")) throw new ContractError("invalid-path", `parameter '${name}' contains a NUL character`);
    if (!value.isWellFormed()) {
      throw new ContractError("invalid-path", `parameter '${name}' contains a lone UTF-16 surrogate`);
    }
  }
  return host;
}

/** Every host fact of a `pi [argv]` start in `cwd` (a relative home or cwd is refused). */
export function resolveHost({ home, cwd, env, argv }) {
  for (const [name, value] of [["home", home], ["cwd", cwd]]) {
    if (!value || !path.isAbsolute(value)) {
      throw new ContractError("invalid-params", `${name} must be an absolute path, got ${quoted(value)}`);
    }
  }
  const resolvedCwd = path.resolve(cwd);
  const args = parsePiArgs(argv);
  const agentDir = resolveAgentDir(home, resolvedCwd, env);
  const sessionDir = resolveSessionDir(home, resolvedCwd, env, agentDir, args.sessionDir);
  const [projectTrusted, trustSource] = resolveTrust(resolvedCwd, home, agentDir, args.trustOverride);
  return {
    agentDir, sessionsRoot: path.join(agentDir, "sessions"), sessionDir, projectTrusted, trustSource,
    globalConfigPath: path.join(agentDir, CONFIG_FILE_NAME),
    projectConfigPath: path.join(resolvedCwd, CONFIG_DIR_NAME, CONFIG_FILE_NAME),
  };
}

/** Pi's parseArgs, the two host flags only: the last trust flag wins, `--` ends the options. */
function parsePiArgs(argv) {
  let sessionDir = null;
  let trustOverride = null;
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i];
    if (word === "--") break;
    if (VALUE_FLAGS.has(word) && i + 1 < argv.length) {
      if (word === "--session-dir") sessionDir = argv[i + 1];
      i += 1;
    } else if (word === "--approve" || word === "-a") {
      trustOverride = true;
    } else if (word === "--no-approve" || word === "-na") {
      trustOverride = false;
    }
  }
  return { sessionDir, trustOverride };
}

/** Pi's normalizePath: Windows shell drive paths, `~`, `~/…` and file:// URLs. */
function normalizePiPath(value, home) {
  const text = IS_WINDOWS ? windowsShellPath(value) : value;
  if (text === "~") return home;
  if (text.startsWith("~/") || (IS_WINDOWS && text.startsWith("~\\"))) return path.join(home, text.slice(2));
  if (text.startsWith("file://")) {
    try {
      return fileURLToPath(text);
    } catch (error) {
      throw new ContractError("host-path-invalid", `${error.message}: ${text}`);
    }
  }
  return text;
}

/** `/c/x`, `/mnt/c/x`, `/cygdrive/c/x` -> `C:\x` (Windows only). */
function windowsShellPath(value) {
  if (!value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return value;
  let parts = value.slice(1).split("/");
  if ((parts[0] === "mnt" || parts[0] === "cygdrive") && parts.length > 1) parts = parts.slice(1);
  if (!/^[A-Za-z]$/.test(parts[0])) return value;
  return `${parts[0].toUpperCase()}:\\${parts.slice(1).join("\\")}`;
}

function envGet(env, name) {
  if (!IS_WINDOWS) return Object.hasOwn(env, name) ? env[name] : undefined;
  const matches = Object.entries(env).filter(([key]) => key.toUpperCase() === name);
  return matches.length > 0 ? matches[matches.length - 1][1] : undefined;
}

/** Pi's getAgentDir: a non-empty PI_CODING_AGENT_DIR, else ~/.pi/agent; made absolute from cwd. */
function resolveAgentDir(home, cwd, env) {
  const raw = envGet(env, AGENT_DIR_ENV);
  return path.resolve(cwd, raw ? normalizePiPath(raw, home) : path.join(home, CONFIG_DIR_NAME, "agent"));
}

/** --session-dir, else PI_CODING_AGENT_SESSION_DIR, else settings sessionDir (project beats global,
 * read even for an untrusted project), else <agentDir>/sessions/--<cwd>--. */
function resolveSessionDir(home, cwd, env, agentDir, flag) {
  const envValue = envGet(env, SESSION_DIR_ENV);
  let raw = flag || envValue || null;
  if (raw === null) {
    const global = readSettings(path.join(agentDir, "settings.json"));
    const project = readSettings(path.join(cwd, CONFIG_DIR_NAME, "settings.json"));
    const value = Object.hasOwn(project, "sessionDir") ? project.sessionDir : global.sessionDir;
    if (value) {
      if (typeof value !== "string") {
        throw new ContractError("host-settings-invalid", `settings sessionDir must be a string, got ${JSON.stringify(value)}`);
      }
      raw = value;
    }
  }
  if (raw === null) return path.join(agentDir, "sessions", sessionDirName({ cwd }).name);
  return path.resolve(cwd, normalizePiPath(raw, home));
}

/** Pi's resolveProjectTrusted without a UI: flag, no trust-requiring resources, the closest saved
 * decision, defaultProjectTrust always/never, else "ask", which without a UI is untrusted. */
function resolveTrust(cwd, home, agentDir, override) {
  if (override !== null) return [override, "flag"];
  if (!hasTrustRequiringResources(cwd, home)) return [true, "no-project-resources"];
  const store = readTrustStore(path.join(agentDir, "trust.json"));
  for (let current = realPath(cwd); ; current = path.dirname(current)) {
    const decision = Object.hasOwn(store, current) ? store[current] : null;
    if (decision === true || decision === false) return [decision, "saved"];
    if (path.dirname(current) === current) break;
  }
  const choice = readSettings(path.join(agentDir, "settings.json")).defaultProjectTrust;
  if (choice === "always" || choice === "never") return [choice === "always", "default"];
  return [false, "ask"];
}

/** An entry of TRUST_REQUIRING_ENTRIES in <cwd>/.pi, or .agents/skills in the cwd or an ancestor
 * other than the user's own <home>/.agents/skills. */
function hasTrustRequiringResources(cwd, home) {
  const userSkills = path.join(realPath(home), ".agents", "skills");
  let current = realPath(cwd);
  if (TRUST_REQUIRING_ENTRIES.some((entry) => exists(path.join(current, CONFIG_DIR_NAME, entry)))) return true;
  for (;;) {
    const skills = path.join(current, ".agents", "skills");
    if (skills !== userSkills && exists(skills)) return true;
    const parent = path.dirname(current);
    if (parent === current) return false;
    current = parent;
  }
}

/** Pi's readTrustFile: missing is empty; anything malformed refuses the start. */
function readTrustStore(file) {
  if (!exists(file)) return {};
  let store;
  try {
    store = JSON.parse(withoutBom(readText(file)));
  } catch (error) {
    throw new ContractError("host-trust-store-invalid", `Failed to read trust store ${file}: ${error.message}`);
  }
  if (!isObject(store)) throw new ContractError("host-trust-store-invalid", `Invalid trust store ${file}: expected an object`);
  for (const [key, value] of Object.entries(store)) {
    if (value !== true && value !== false && value !== null) {
      throw new ContractError("host-trust-store-invalid",
        `Invalid trust store ${file}: value for ${JSON.stringify(key)} must be true, false, or null`);
    }
  }
  return store;
}

/** Pi's settings: a missing, unreadable or malformed file, or a non-object, counts as {}. */
function readSettings(file) {
  try {
    const text = readText(file);
    const value = text ? JSON.parse(withoutBom(text)) : {};
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

function withoutBom(text) {
  return text.startsWith("\ufeff") ? text.slice(1) : text;
}

/** Absolute and real when it exists, else only resolved (Pi's canonicalizePath, case kept). */
function realPath(file) {
  const absolute = path.resolve(file);
  try {
    return fs.realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value in a message, quoted as the reference quotes it (single quotes unless it holds one). */
function quoted(text) {
  return /['\\\n\r\t]/.test(text) ? JSON.stringify(text) : `'${text}'`;
}
