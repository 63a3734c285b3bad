// The physical lines of a session file, located, hashed and classified as Pi 0.84.3's loader treats
// them (pi-session-model §1.2, §1.7; docs/INTERPRETING.md, session.records).
//
// A record is one physical line: [start, end) in bytes (end includes the LF, or is the file size for
// an unterminated last line), the SHA-256 of the line without its LF (a CR stays), and a kind.
// The file is opened read-only and read whole: enough for an example; a production port streams.

import { createHash } from "node:crypto";
import fs from "node:fs";

export const RECORD_LIMIT_BYTES = 4 * 1024 * 1024;

/** How Pi's loader treats a physical line. */
export const Kind = Object.freeze({
  HEADER: "header", // the first parsed value, when it is an object with type "session"
  ENTRY: "entry", // kept by Pi as a session entry (even a truthy value that is no object)
  EXTRA_HEADER: "extra-header", // a later type:"session" object, which Pi ignores
  BLANK: "blank", // empty or whitespace only (String.prototype.trim): skipped
  MALFORMED: "malformed", // JSON.parse throws: skipped silently by Pi
  FALSY: "falsy", // null, false, 0 or "": parsed, then skipped by Pi
  OVERSIZE: "oversize", // longer than the record limit: hashed, never decoded
});

const LF = 0x0a;
const CR = 0x0d;

/** The bytes of a session file, opened read-only (the only way this port opens one). */
export function readSessionBytes(filePath) {
  const fd = fs.openSync(filePath, "r");
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Every physical record of `bytes`, in file order; `value` is the parsed line for kept lines. */
export function* records(bytes) {
  let start = 0;
  let line = 0;
  let headerSeen = false;
  while (start < bytes.length) {
    const newline = bytes.indexOf(LF, start);
    const terminated = newline >= 0;
    const end = terminated ? newline + 1 : bytes.length;
    const data = bytes.subarray(start, terminated ? newline : end);
    line += 1;
    const record = {
      line, start, end, terminated,
      crlf: data.length > 0 && data[data.length - 1] === CR,
      sha256: createHash("sha256").update(data).digest("hex"),
      ...classify(data, end - start, headerSeen),
    };
    if (record.kind === Kind.HEADER || record.kind === Kind.ENTRY || record.kind === Kind.EXTRA_HEADER) {
      headerSeen = true;
    }
    yield record;
    start = end;
  }
}

/** Kind and parsed value of one line (`data` without its LF; `span` with it). */
function classify(data, span, headerSeen) {
  if (span > RECORD_LIMIT_BYTES) return { kind: Kind.OVERSIZE };
  const text = data.toString("utf8"); // invalid UTF-8 becomes U+FFFD, as Node's readFile does for Pi
  if (text.trim() === "") return { kind: Kind.BLANK };
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: Kind.MALFORMED };
  }
  if (!value) return { kind: Kind.FALSY };
  if (isObject(value) && value.type === "session") {
    return { kind: headerSeen ? Kind.EXTRA_HEADER : Kind.HEADER, value };
  }
  return { kind: Kind.ENTRY, value };
}

/** A JSON object (not an array, not null). */
export function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value[key]` as Pi reads a parsed line: undefined when the value is no object. */
export function field(value, key) {
  return isObject(value) ? value[key] : undefined;
}
