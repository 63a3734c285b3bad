#!/usr/bin/env node
// pi-oracle.mjs - batch oracle: how Pi 0.84.3's SessionManager reads session files, per leaf.
//
// Usage:
//   node pi-oracle.mjs [options] < requests.ndjson
//   node pi-oracle.mjs [options] --all-leaves <file.jsonl>...
//
//   request line: {"file": "<path>", "leaves": "all" | [<leaf>, ...]}
//     <leaf> is an entry id (string), null (= resetLeaf(), empty path) or {"default": true}
//     (the leaf SessionManager.open() picks: the last entry in file order).
//     "all" = {"default": true}, null, then every distinct string entry id in file order.
//
//   options:
//     --deterministic-ids   node:crypto.randomUUID becomes a counter restarted for every file
//                           (00000001-..., 00000002-...), so ids invented by a v1 migration are
//                           reproducible
//     --no-context-object   leave out the structured "context" field (the exact JSON text stays in
//                           "contextJson"); halves the output for big batches
//
// Output: one NDJSON line per (file, leaf), in request order:
//   {"file", "leaf", "leafId", "leafIdUndefined"?, "pathIds", "contextEntryIds",
//    "context": {"messages", "thinkingLevel", "model"},
//    "contextJson": {"messages": JSON.stringify(messages), "settings": JSON.stringify({model, thinkingLevel})},
//    "defaultLeafId", "defaultLeafIdUndefined"?, "header", "sha256", "rewrittenOnOpen", "fileUnchanged"}
//   When buildSessionContext() throws, "context"/"contextJson" are replaced by "contextError".
//   A failure gives {"file", "leaf"?, "error", "fileUnchanged"?}. Exit code 3 if any original file
//   changed, 2 on a usage error, 0 otherwise (per-request errors are reported in-line).
//
// How: each file is copied into a private temp dir and opened there with SessionManager.open(), so a
// migration rewrite (Pi rewrites v1/v2 files on open) only touches the copy. The leaf is applied
// with sm.branch(id) / sm.resetLeaf(); results come from sm.getBranch(), sm.buildContextEntries()
// and sm.buildSessionContext(). The original's sha256 is compared before and after.
// One process serves the whole batch. Run with TZ=UTC.
//
// Env: PI_PKG = package dir (default <this dir>/node_modules/@earendil-works/pi-coding-agent)
import { createRequire, syncBuiltinESMExports } from "node:module";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const usage =
  "usage: node pi-oracle.mjs [--deterministic-ids] [--no-context-object] < requests.ndjson\n" +
  "       node pi-oracle.mjs [--deterministic-ids] [--no-context-object] --all-leaves <file>...";
const KNOWN = new Set(["--deterministic-ids", "--no-context-object", "--all-leaves", "--help", "-h"]);
const flags = new Set(argv.filter((a) => a.startsWith("-")));
const files = argv.filter((a) => !a.startsWith("-"));
for (const f of flags) {
  if (!KNOWN.has(f)) {
    console.error(`unknown option ${f}\n${usage}`);
    process.exit(2);
  }
}
if (flags.has("--help") || flags.has("-h") || (flags.has("--all-leaves") !== files.length > 0)) {
  console.error(usage);
  process.exit(2);
}

let idCounter = 0;
if (flags.has("--deterministic-ids")) {
  // Must happen before Pi is imported: session-manager.js binds randomUUID at import time.
  const require = createRequire(import.meta.url);
  const nodeCrypto = require("node:crypto");
  nodeCrypto.randomUUID = () => `${(++idCounter).toString(16).padStart(8, "0")}-0000-4000-8000-000000000000`;
  syncBuiltinESMExports();
}
const withContextObject = !flags.has("--no-context-object");

const PKG = process.env.PI_PKG ?? join(import.meta.dirname, "node_modules", "@earendil-works", "pi-coding-agent");
const { SessionManager } = await import(pathToFileURL(join(PKG, "dist", "index.js")).href);

const sha256 = (p) => createHash("sha256").update(readFileSync(p)).digest("hex");
const work = mkdtempSync(join(tmpdir(), "pi-oracle-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
let fileSeq = 0;
let changedAny = false;

function emit(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

/** The walk Pi's path builder would do from `start`; true if it would never end. */
function hasParentCycle(sm, start) {
  const seen = new Set();
  let current = start;
  while (current) {
    if (seen.has(current)) return true;
    seen.add(current);
    current = current.parentId ? sm.getEntry(current.parentId) : undefined;
  }
  return false;
}

function snapshot(sm, entries) {
  const leafId = sm.getLeafId();
  // getBranch() starts at the leaf; buildSessionPath() falls back to the last entry when the
  // leaf is falsy but not null ("" or undefined). Refuse to follow a parentId cycle (Pi would hang).
  const starts = [leafId ? sm.getEntry(leafId) : undefined];
  if (leafId !== null && !leafId) starts.push(entries[entries.length - 1]);
  if (starts.some((e) => hasParentCycle(sm, e))) throw new Error("parentId cycle on the path (Pi would hang)");
  const out = { leafId: leafId ?? null };
  if (leafId === undefined) out.leafIdUndefined = true;
  out.pathIds = sm.getBranch().map((e) => e?.id ?? null);
  out.contextEntryIds = sm.buildContextEntries().map((e) => e?.id ?? null);
  let context;
  try {
    context = sm.buildSessionContext();
  } catch (err) {
    // Pi throws here on some hand-edited files (e.g. a message entry without a message).
    out.contextError = String(err?.message ?? err);
    return out;
  }
  if (withContextObject) out.context = context;
  out.contextJson = {
    messages: JSON.stringify(context.messages),
    settings: JSON.stringify({ model: context.model, thinkingLevel: context.thinkingLevel }),
  };
  return out;
}

function leafRequests(spec, entries) {
  if (spec === "all" || spec === undefined) {
    const seen = new Set();
    const ids = [];
    for (const e of entries) {
      const id = e?.id;
      if (typeof id === "string" && !seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    }
    return [{ default: true }, null, ...ids];
  }
  if (!Array.isArray(spec)) throw new Error('"leaves" must be "all" or an array');
  return spec;
}

function processFile(request) {
  const file = resolve(String(request.file));
  if (!existsSync(file) || !statSync(file).isFile()) {
    emit({ file, error: "file not found" });
    return;
  }
  const before = sha256(file);
  const dir = join(work, String(++fileSeq));
  mkdirSync(dir);
  const copy = join(dir, basename(file));
  const lines = [];
  let fileError;
  const common = {};
  try {
    copyFileSync(file, copy);
    idCounter = 0;
    const sm = SessionManager.open(copy);
    common.defaultLeafId = sm.getLeafId() ?? null;
    if (sm.getLeafId() === undefined) common.defaultLeafIdUndefined = true;
    common.header = sm.getHeader();
    common.sha256 = before;
    common.rewrittenOnOpen = sha256(copy) !== before;
    const entries = sm.getEntries();
    const requests = leafRequests(request.leaves, entries);
    // The default leaf is only reachable before anything moves it, so compute it first.
    let defaultResult;
    try {
      defaultResult = snapshot(sm, entries);
    } catch (err) {
      defaultResult = { error: String(err?.message ?? err) };
    }
    for (const leaf of requests) {
      let result;
      try {
        if (leaf !== null && typeof leaf === "object" && leaf.default === true) {
          result = defaultResult;
        } else if (leaf === null) {
          sm.resetLeaf();
          result = snapshot(sm, entries);
        } else {
          sm.branch(leaf); // throws "Entry <id> not found"
          result = snapshot(sm, entries);
        }
      } catch (err) {
        result = { error: String(err?.message ?? err) };
      }
      lines.push({ file, leaf, ...result });
    }
  } catch (err) {
    fileError = String(err?.message ?? err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const after = sha256(file);
  const fileUnchanged = after === before;
  if (!fileUnchanged) changedAny = true;
  if (fileError !== undefined) {
    emit({ file, error: fileError, sha256: before, fileUnchanged });
    return;
  }
  for (const line of lines) emit({ ...line, ...common, fileUnchanged });
}

if (flags.has("--all-leaves")) {
  for (const f of files) processFile({ file: f, leaves: "all" });
} else {
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const raw of rl) {
    if (!raw.trim()) continue;
    let request;
    try {
      request = JSON.parse(raw);
    } catch (err) {
      emit({ error: `bad request line: ${String(err?.message ?? err)}` });
      continue;
    }
    processFile(request);
  }
}
if (changedAny) process.exitCode = 3;
