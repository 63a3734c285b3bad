// The CONFIG operations: config.show, config.set and config.unset (contract §1, /context config
// sent as JSON). Each request carries the host's facts (home, cwd, env, argv) and is a fresh host
// start: the port keeps nothing in memory between requests. The state that lives across requests
// is on disk, in the two files set and unset write and every later show reads back.

import { setValue, unsetValue } from "./config-edit.mjs";
import { loadConfig } from "./config-load.mjs";
import { showResult } from "./config-show.mjs";
import { ContractError } from "./errors.mjs";
import { hostParams, hostTypes, resolveHost, usablePaths } from "./host.mjs";

/** config.show: what a host started with these facts would load, as JSON and as text. */
export function configShow(params) {
  return showResult(loadConfig(resolveHost(hostParams(params))));
}

/** config.set: params add path, value (as typed), global, and optional --option words. */
export function configSet(params) {
  if (typeof params.value !== "string") throw new ContractError("invalid-params", "parameter 'value' must be a string");
  const edit = editParams(params);
  return setValue(edit.path, params.value, { global: edit.global, facts: resolveHost(edit.host) });
}

/** config.unset: params add path, global, and optional --option words. */
export function configUnset(params) {
  const edit = editParams(params);
  return unsetValue(edit.path, { global: edit.global, facts: resolveHost(edit.host) });
}

/** The host, the dotted path and whether the global file is meant (`global`, or --global). */
function editParams(params) {
  const host = hostTypes(params); // as the reference: the schema's checks, the paths, then the options
  if (typeof params.path !== "string") throw new ContractError("invalid-params", "parameter 'path' must be a string");
  if (typeof params.global !== "boolean") throw new ContractError("invalid-params", "parameter 'global' must be a boolean");
  usablePaths(host);
  const options = Object.hasOwn(params, "options") ? params.options : [];
  if (!Array.isArray(options) || !options.every((word) => typeof word === "string" && word.startsWith("--"))) {
    throw new ContractError("invalid-params", "parameter 'options' must be a list of --option words");
  }
  const flagged = globalFlag(options); // refuses an unknown option even when `global` is true
  return { host, path: params.path, global: params.global || flagged };
}

/** Whether --global is among the words; any other --option is refused by name. */
function globalFlag(options) {
  const names = [];
  for (const word of options) {
    if (word === "--") break;
    names.push(word.slice(2).split("=", 1)[0].toLowerCase());
  }
  const unknown = [...new Set(names)].filter((name) => name !== "global");
  if (unknown.length > 0) {
    throw new ContractError("config-unknown-option", `Unknown option(s): ${unknown.map((name) => `--${name}`).join(", ")}`);
  }
  return names.includes("global");
}
