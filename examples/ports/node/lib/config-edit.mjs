// /context config set and unset (contract §1.5): one saved value changed in one file. The typed
// value is read by the path's catalog kind and refused (config-invalid-value) before any file is
// touched; the project file needs a trusted project, --global edits <agentDir>/ds4-context.json.
// The edited file is validated whole on the defaults and written only when valid, as
// JSON.stringify(content, null, 2) + "\n", installed by an atomic rename; a new file is 0600 and
// every folder created for it 0700 (it says which providers may see what), an existing file
// keeps its mode.

import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";

import { CLASSIFICATIONS, DEFAULT_CONFIG, catalogField, isPlainObject } from "./config-defaults.mjs";
import { mergeKnown, parseJson } from "./config-load.mjs";
import { ConfigError, validateConfig } from "./config-validate.mjs";
import { ContractError } from "./errors.mjs";
import { HostFileError, exists, readText, reasonOf } from "./hostfiles.mjs";

const NEXT_SESSION = "Saved for the next Pi session: the running session keeps the configuration it loaded at start.";

/** Saves one value: {message, warnings, file}. */
export function setValue(dotted, typed, { global, facts }) {
  const item = knownField(dotted);
  const [scope, file] = target(global, facts);
  const content = readSaved(file);
  const value = parseTyped(item, typed);
  setPath(content, dotted, value);
  const warnings = checked(content);
  writeSaved(file, content);
  return reply(`Set ${dotted} = ${JSON.stringify(value)} in ${file} (${scope} configuration).`, warnings, file);
}

/** Removes one saved value (and the parents it leaves empty): {message, warnings, file}. */
export function unsetValue(dotted, { global, facts }) {
  knownField(dotted);
  const [scope, file] = target(global, facts);
  const content = readSaved(file);
  if (!removePath(content, dotted)) throw new ContractError("config-not-set", `${dotted} is not set in ${file}`);
  const warnings = checked(content);
  writeSaved(file, content);
  return reply(`Unset ${dotted} in ${file} (${scope} configuration).`, warnings, file);
}

function reply(first, warnings, file) {
  const lines = [first, NEXT_SESSION, ...(warnings.length > 0 ? ["", ...warnings.map((w) => `Warning: ${w}`)] : [])];
  return { message: lines.join("\n"), warnings, file };
}

function knownField(dotted) {
  const item = catalogField(dotted);
  if (item === null) {
    throw new ContractError("config-unknown-path",
      `Unknown configuration key: ${dotted}. See /context config for the full list.`);
  }
  return item;
}

function target(global, facts) {
  if (global) return ["global", facts.globalConfigPath];
  if (!facts.projectTrusted) {
    throw new ContractError("config-project-untrusted",
      "Project configuration requires a trusted project; use /context config set/unset --global instead");
  }
  return ["project", facts.projectConfigPath];
}

/** The file's content alone on the defaults, validated whole; its merge warnings. */
function checked(content) {
  const warnings = [];
  try {
    validateConfig(mergeKnown(DEFAULT_CONFIG, content, warnings));
  } catch (error) {
    if (error instanceof ConfigError) throw new ContractError("config-invalid", error.message);
    throw error;
  }
  return warnings;
}

const invalid = (dotted, detail) => new ContractError("config-invalid-value", `${dotted}: ${detail}`);

/** The typed words as a value of the path's kind (booleans, safe integers and enum values as
 * words; arrays and maps as JSON). */
export function parseTyped(item, typed) {
  const raw = typed.trim();
  const dotted = item.path;
  switch (item.kind) {
    case "boolean":
      if (raw.toLowerCase() !== "true" && raw.toLowerCase() !== "false") throw invalid(dotted, "expected true or false");
      return raw.toLowerCase() === "true";
    case "integer":
      // Leading zeros do not count; more than 16 digits can never be a safe integer.
      if (!/^-?[0-9]+$/.test(raw) || raw.replace(/^-/, "").replace(/^0+/, "").length > 16
        || !Number.isSafeInteger(Number(raw))) {
        throw invalid(dotted, "expected a safe integer");
      }
      return Number(raw) + 0; // -0 is 0
    case "enum":
      if (!item.values.includes(raw)) throw invalid(dotted, `expected one of ${item.values.join(", ")}`);
      return raw;
    case "string-array":
      return stringArray(jsonValue(raw, dotted), dotted);
    case "enum-array":
      return enumArray(item, raw);
    default:
      return classificationMap(raw, dotted);
  }
}

function jsonValue(raw, dotted) {
  try {
    return parseJson(raw);
  } catch (error) {
    if (error instanceof ConfigError) throw invalid(dotted, "expected valid JSON");
    throw error;
  }
}

function stringArray(value, dotted) {
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string")) {
    throw invalid(dotted, "expected a JSON array of strings");
  }
  return value;
}

function enumArray(item, raw) {
  const entries = stringArray(jsonValue(raw, item.path), item.path);
  for (const entry of entries) {
    if (!item.values.includes(entry)) {
      throw invalid(item.path, `invalid value ${JSON.stringify(entry)}; allowed: ${item.values.join(", ")}`);
    }
  }
  if (new Set(entries).size !== entries.length) throw invalid(item.path, "duplicate values are not allowed");
  return entries;
}

function classificationMap(raw, dotted) {
  const parsed = jsonValue(raw, dotted);
  if (!isPlainObject(parsed)) throw invalid(dotted, "expected a JSON object");
  for (const [provider, allowed] of Object.entries(parsed)) {
    if (provider.trim() === "") throw invalid(dotted, "provider names must not be empty");
    if (!Array.isArray(allowed) || !allowed.every((entry) => CLASSIFICATIONS.includes(entry))) {
      throw invalid(dotted, `provider ${JSON.stringify(provider)} must map to an array of ${CLASSIFICATIONS.join(", ")}`);
    }
  }
  return parsed;
}

/** Stores a value at a dotted path; a parent that is not an object is replaced by one. */
function setPath(content, dotted, value) {
  const segments = dotted.split(".");
  const leaf = segments.pop();
  let node = content;
  for (const segment of segments) {
    if (!isPlainObject(node[segment]) || !Object.hasOwn(node, segment)) node[segment] = {};
    node = node[segment];
  }
  node[leaf] = value;
}

/** Deletes a dotted key and prunes the parents it leaves empty; false when it is not set. */
function removePath(content, dotted) {
  const segments = dotted.split(".");
  const leaf = segments.pop();
  const chain = [];
  let node = content;
  for (const segment of segments) {
    const child = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (!isPlainObject(child)) return false;
    chain.push([node, segment]);
    node = child;
  }
  if (!Object.hasOwn(node, leaf)) return false;
  delete node[leaf];
  for (const [parent, segment] of chain.reverse()) {
    if (Object.keys(parent[segment]).length > 0) break;
    delete parent[segment];
  }
  return true;
}

/** The saved file as an object to edit: absent is {}, unreadable or not a JSON object is refused. */
function readSaved(file) {
  if (!exists(file)) return {};
  let text;
  try {
    text = readText(file);
  } catch (error) {
    if (!(error instanceof HostFileError)) throw error;
    throw new ContractError("config-io-error", `Cannot read configuration file ${file}: ${error.reason}`);
  }
  let parsed;
  try {
    parsed = parseJson(text);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ContractError("config-file-malformed", `Configuration file is malformed JSON: ${file}`);
  }
  if (!isPlainObject(parsed)) throw new ContractError("config-file-malformed", `Configuration file must contain a JSON object: ${file}`);
  return parsed;
}

/** Writes a private temporary beside the file and renames it over the file. */
function writeSaved(file, content) {
  const data = `${JSON.stringify(content, null, 2)}\n`;
  const folder = path.dirname(file);
  const temporary = path.join(folder, `.ds4-context.${randomBytes(6).toString("hex")}.tmp`);
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const mode = exists(file) ? fs.statSync(file).mode & 0o777 : 0o600;
    fs.writeFileSync(temporary, data, { flag: "wx", mode: 0o600 });
    fs.chmodSync(temporary, mode);
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw new ContractError("config-io-error", `Cannot write configuration file ${file}: ${reasonOf(error)}`);
  }
}
