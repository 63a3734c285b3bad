// The primitive operations: JSON bytes (decisions D2), lengths and chars-v1 tokens (D3), canonical
// paths (contract §0.2) and Pi's session-folder name of a cwd (pi-session-model §1.1).
//
// In JavaScript these are the language's own semantics: JSON.stringify writes the bytes Pi writes,
// String.prototype.length counts UTF-16 code units. A port in another language reimplements them.

import fs from "node:fs";
import path from "node:path";

import { ContractError, oneLine, stringParam } from "./errors.mjs";

const IS_WINDOWS = process.platform === "win32";

/** json.canonicalize: JSON.stringify(JSON.parse(text)), exactly. */
export function canonicalize(params) {
  const text = stringParam(params, "text");
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ContractError("invalid-json", oneLine(error.message));
  }
  return { text: JSON.stringify(value) };
}

/** text.measure: UTF-16 units, UTF-8 bytes, chars-v1 tokens (0 for "", else ceil(units / 4)). */
export function measure(params) {
  const text = stringParam(params, "text");
  const units = text.length;
  return { utf16Length: units, utf8Length: Buffer.byteLength(text, "utf8"), tokens: Math.ceil(units / 4) };
}

/** text.slice: the longest prefix within maxUnits UTF-16 units that splits no surrogate pair. */
export function slice(params) {
  const text = stringParam(params, "text");
  const maxUnits = params.maxUnits;
  if (!Number.isInteger(maxUnits) || maxUnits < 0) {
    throw new ContractError("invalid-params", "parameter 'maxUnits' must be a non-negative integer");
  }
  if (text.length <= maxUnits) return { text };
  const splitsPair = maxUnits > 0 && isHighSurrogate(text.charCodeAt(maxUnits - 1))
    && isLowSurrogate(text.charCodeAt(maxUnits));
  return { text: text.slice(0, splitsPair ? maxUnits - 1 : maxUnits) };
}

/** path.canonical: absolute, symbolic links resolved when the path exists, lower-cased on Windows. */
export function canonicalPath(params) {
  const absolute = path.resolve(stringParam(params, "path"));
  let resolved;
  try {
    resolved = fs.realpathSync.native(absolute);
  } catch {
    resolved = absolute;
  }
  return { path: IS_WINDOWS ? resolved.toLowerCase() : resolved };
}

/** path.sessionDirName: "--" + the cwd without its first separator, every / \ : as "-", + "--". */
export function sessionDirName(params) {
  const cwd = stringParam(params, "cwd");
  return { name: `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--` };
}

function isHighSurrogate(code) {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code) {
  return code >= 0xdc00 && code <= 0xdfff;
}
