// Loading one session file: Pi's refusals of bad input, its header rule, the kept entries and
// bounded diagnostics (pi-session-model §1.7, §2; docs/errors.md, READER area).

import fs from "node:fs";
import { createHash } from "node:crypto";

import { ContractError } from "./errors.mjs";
import { Kind, field, isObject, readSessionBytes, records } from "./records.mjs";

export const HEADER_SCAN_LIMIT_BYTES = 1024 * 1024;
const SAMPLE = 16; // line numbers or ids kept per diagnostic; counts are exact
const SKIPPED_BEFORE_HEADER = new Set([Kind.BLANK, Kind.MALFORMED, Kind.FALSY]);

/** A count plus the first few examples, so diagnostics stay bounded on huge files. */
export class Sample {
  constructor() {
    this.count = 0;
    this.items = [];
  }

  add(item) {
    this.count += 1;
    if (this.items.length < SAMPLE) this.items.push(item);
  }

  toJSON(name = "lines") {
    return { count: this.count, [name]: this.items };
  }
}

/** The session at `filePath`: header, entries (file order), every record, diagnostics. */
export function loadSession(filePath) {
  const bytes = readChecked(filePath);
  const diagnostics = {
    blank: new Sample(), malformed: new Sample(), falsy: new Sample(), oversize: new Sample(),
    nonEntries: new Sample(), extraHeaders: new Sample(), crlfLines: 0, unterminatedTail: false,
  };
  const all = [];
  const entries = [];
  let header = null;
  let scanning = true;
  for (const record of records(bytes)) {
    if (scanning) {
      if (record.end > HEADER_SCAN_LIMIT_BYTES) {
        throw new ContractError("session-header-scan-limit",
          `no session header within the first ${HEADER_SCAN_LIMIT_BYTES} bytes of ${filePath}`);
      }
      scanning = SKIPPED_BEFORE_HEADER.has(record.kind);
    }
    all.push(record);
    if (record.crlf) diagnostics.crlfLines += 1;
    if (!record.terminated) diagnostics.unterminatedTail = true;
    header = take(record, header, entries, diagnostics, filePath);
  }
  if (header === null) {
    throw new ContractError("session-no-header",
      `no Pi session header: the file holds no JSON value (binary or whitespace only?): ${filePath}`);
  }
  const headerValue = header.value;
  const legacyVersion = legacyVersionOf(headerValue.version);
  if (legacyVersion !== null) diagnostics.nonEntries = new Sample(); // legacy entries have no ids
  return {
    path: filePath,
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    header: headerValue,
    records: all,
    entries,
    diagnostics,
    legacyVersion,
    unsupportedVersion: legacyVersion === null && headerValue.version !== 3 ? headerValue.version : null,
    invalidHeaderFields: ["cwd", "timestamp"].filter((name) => typeof headerValue[name] !== "string"),
  };
}

/** Files the one record into the diagnostics, the header or the entries; the header so far. */
function take(record, header, entries, diagnostics, filePath) {
  switch (record.kind) {
    case Kind.BLANK: diagnostics.blank.add(record.line); return header;
    case Kind.MALFORMED: diagnostics.malformed.add(record.line); return header;
    case Kind.FALSY: diagnostics.falsy.add(record.line); return header;
    case Kind.OVERSIZE: diagnostics.oversize.add(record.line); return header;
    case Kind.EXTRA_HEADER: diagnostics.extraHeaders.add(record.line); return header;
    default:
  }
  if (header === null || record.kind === Kind.HEADER) {
    if (header !== null || record.kind !== Kind.HEADER || typeof record.value.id !== "string") {
      throw new ContractError("session-no-header", `line ${record.line} is not a Pi session header `
        + `(the first JSON value must be an object with type "session" and a string id): ${filePath}`);
    }
    return record;
  }
  if (!isObject(record.value) || typeof record.value.id !== "string") diagnostics.nonEntries.add(record.line);
  entries.push({ line: record.line, value: record.value, id: field(record.value, "id"),
    parentId: field(record.value, "parentId") });
  return header;
}

/** 1 or 2 for a version Pi migrates on open (legacy), else null (pi-session-model §2). */
export function legacyVersionOf(version) {
  if (version === undefined || version === null) return 1;
  if (typeof version !== "number") return null;
  if (version < 2) return 1;
  if (version < 3) return 2;
  return null;
}

/** The file's bytes, after the refusals every reader shares: missing, a folder, empty. */
function readChecked(filePath) {
  let info;
  try {
    info = fs.statSync(filePath);
  } catch (error) {
    if (error.code === "ENOENT") throw new ContractError("session-file-missing", `no such session file: ${filePath}`);
    throw new ContractError("session-unreadable", `cannot read ${filePath}: ${error.code}`);
  }
  if (!info.isFile()) throw new ContractError("session-not-a-file", `not a regular file: ${filePath}`);
  if (info.size === 0) throw new ContractError("session-empty", `the session file is empty (0 bytes): ${filePath}`);
  try {
    return readSessionBytes(filePath);
  } catch (error) {
    throw new ContractError("session-unreadable", `cannot read ${filePath}: ${error.code}`);
  }
}
