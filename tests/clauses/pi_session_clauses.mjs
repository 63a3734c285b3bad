#!/usr/bin/env node
// pi_session_clauses.mjs - run Pi 0.84.3's own SessionManager through the experiments that
// docs/spec/pi-session-model.md reports, and print what Pi did as one JSON object on stdout.
//
// Usage: node pi_session_clauses.mjs <empty scratch dir>
//
// Only Pi's session manager and its pure context functions are used (no agent, no model).
// tests/clauses/test_reader_clauses.py asserts each clause against this output; the
// script itself judges nothing. Every experiment catches its own error into {"error": ...}.
// Env: PI_PKG = package dir (default <repo>/oracle/node_modules/@earendil-works/pi-coding-agent)
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const PKG = process.env.PI_PKG
  ?? join(import.meta.dirname, "..", "..", "oracle", "node_modules", "@earendil-works", "pi-coding-agent");
const pi = await import(pathToFileURL(join(PKG, "dist", "index.js")).href);
const { SessionManager } = pi;

const out = process.argv[2];
if (!out) {
  console.error("usage: node pi_session_clauses.mjs <scratch dir>");
  process.exit(2);
}
const CWD = join(out, "project");
mkdirSync(CWD, { recursive: true });

const text = (p) => readFileSync(p, "utf8");
const values = (p) => text(p).split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
const sha = (p) => createHash("sha256").update(readFileSync(p)).digest("hex");
const line = (v) => `${JSON.stringify(v)}\n`;
let clock = 1748779200000;
const user = (t) => ({ role: "user", content: [{ type: "text", text: t }], timestamp: ++clock });
const assistant = (t) => ({
  role: "assistant", content: [{ type: "text", text: t }], api: "x", provider: "p", model: "m",
  usage: { input: 1, output: 1, totalTokens: 2 }, stopReason: "stop", timestamp: ++clock,
});
const toolResult = () => ({ role: "toolResult", toolCallId: "call_1", toolName: "bash", content: [], isError: false, timestamp: ++clock });
const facts = {};

function experiment(name, body) {
  try {
    facts[name] = body(join(out, name));
  } catch (error) {
    facts[name] = { error: String(error?.stack ?? error) };
  }
}

// §3.4, §1.1, §1.3, §1.4: a new session writes nothing until the first assistant message.
experiment("deferredWrite", (dir) => {
  const sm = SessionManager.create(join(CWD, "sub", ".."), dir);
  const dirExistsAtCreate = existsSync(dir);
  const file = sm.getSessionFile();
  const steps = [];
  const step = (name, append) => {
    const id = append();
    steps.push({ name, id, fileExists: existsSync(file), leafIsIt: sm.getLeafId() === id,
      lines: existsSync(file) ? values(file).length : 0 });
  };
  step("model_change", () => sm.appendModelChange("p", "m"));
  step("thinking_level_change", () => sm.appendThinkingLevelChange("low"));
  step("user", () => sm.appendMessage(user("hi")));
  step("custom", () => sm.appendCustomEntry("state", { k: 1 }));
  step("custom_message", () => sm.appendCustomMessageEntry("note", "remember", true));
  step("session_info", () => sm.appendSessionInfo("name"));
  step("assistant", () => sm.appendMessage(assistant("hello")));
  const afterFlush = readFileSync(file);
  step("toolResult", () => sm.appendMessage(toolResult()));
  step("label", () => sm.appendLabelChange(steps[2].id, "start"));
  const data = readFileSync(file);
  const all = values(file);
  return {
    steps, dirExistsAtCreate, projectCwd: CWD, fileName: basename(file), sessionId: sm.getSessionId(), header: all[0], headerKeys: Object.keys(all[0]),
    entries: all.slice(1).map((e) => ({ id: e.id, parentId: e.parentId, timestamp: e.timestamp, type: e.type })),
    endsWithLf: data.at(-1) === 0x0a, prefixKept: data.subarray(0, afterFlush.length).equals(afterFlush),
    compact: text(file).split("\n").filter(Boolean).every((l) => JSON.stringify(JSON.parse(l)) === l),
  };
});

// §3.4: a session that only ever gets a user message never reaches disk; in memory writes nothing.
experiment("neverWritten", (dir) => {
  const sm = SessionManager.create(CWD, dir);
  const first = sm.getSessionFile();
  sm.appendMessage(user("only a question"));
  const second = sm.newSession();
  const entriesAfterNew = sm.getEntries().length;
  const leafAfterNew = sm.getLeafId();
  const memory = SessionManager.inMemory(CWD);
  memory.appendMessage(user("q"));
  memory.appendMessage(assistant("a"));
  return {
    entriesAfterNew, leafAfterNew, firstExists: existsSync(first), secondDiffers: second !== first, secondExists: existsSync(second),
    dirFiles: existsSync(dir) ? readdirSync(dir) : [], inMemoryPersisted: memory.isPersisted(),
    inMemoryFile: memory.getSessionFile() ?? null, inMemoryEntries: memory.getEntries().length,
  };
});

// §1.1: session ids, supplied or generated.
experiment("sessionIds", (dir) => {
  const made = SessionManager.create(CWD, dir).getSessionId();
  const supplied = SessionManager.create(CWD, dir, { id: "My.id-1_x" }).getSessionId();
  const refused = [];
  for (const id of ["-leading", "trailing.", "sp ace", "a/b", ""]) {
    try {
      SessionManager.create(CWD, dir, { id });
      refused.push({ id, refused: false });
    } catch {
      refused.push({ id, refused: true });
    }
  }
  return { made, supplied, refused };
});

// §1.5: the field order of every entry type as SessionManager builds it; §1.5 session_info name.
experiment("fieldOrders", (dir) => {
  const sm = SessionManager.create(CWD, dir);
  const u = sm.appendMessage(user("u"));
  sm.appendMessage(assistant("a"));
  sm.appendThinkingLevelChange("high");
  sm.appendModelChange("prov", "mod");
  sm.appendCompaction("sum", u, 123, { readFiles: [], modifiedFiles: [] }, false, { input: 1 });
  sm.appendCompaction("bare", u, 5);
  sm.branchWithSummary(u, "bs", { d: 1 }, false, { input: 2 });
  sm.appendCustomEntry("ct", { x: 1 });
  sm.appendCustomEntry("ct-no-data");
  sm.appendCustomMessageEntry("cm", "content", false, { det: 1 });
  sm.appendCustomMessageEntry("cm-no-details", [{ type: "text", text: "t" }], true);
  sm.appendLabelChange(u, "lab");
  sm.appendLabelChange(u, undefined);
  sm.appendSessionInfo("  first line\r\n\r\nsecond\nthird  ");
  const lines = text(sm.getSessionFile()).split("\n").filter(Boolean);
  return { lines, keys: lines.map((l) => Object.keys(JSON.parse(l))) };
});

// §1.5, §3.2, §3.3: labels and names across branches, leaf moves, reopen.
experiment("leafAndLabels", (dir) => {
  const sm = SessionManager.create(CWD, dir);
  const u1 = sm.appendMessage(user("one"));
  const a1 = sm.appendMessage(assistant("two"));
  const file = sm.getSessionFile();
  sm.appendLabelChange(u1, "on-main");
  sm.appendSessionInfo("main name");
  const mainLeaf = sm.appendMessage(user("main"));
  const before = sha(file);
  sm.branch(a1);
  const afterBranch = sha(file);
  let unknown = null;
  try {
    sm.branch("nope");
  } catch (error) {
    unknown = String(error.message);
  }
  const side = sm.appendMessage(user("side"));
  sm.appendLabelChange(u1, "on-side");
  sm.appendSessionInfo("side name");
  const labelAfterSide = sm.getLabel(u1);
  const nameAfterSide = sm.getSessionName();
  sm.branch(mainLeaf);
  const labelFromMain = sm.getLabel(u1);
  const nameFromMain = sm.getSessionName();
  const sideLast = sm.appendMessage(user("back on main"));
  sm.branch(side);
  const lastLineId = values(file).at(-1).id;
  const reopened = SessionManager.open(file);
  const reopenedLeaf = reopened.getLeafId();
  const reopenedLabel = reopened.getLabel(u1);
  const reopenedName = reopened.getSessionName();
  reopened.appendLabelChange(u1, "");
  const clearedLabel = reopened.getLabel(u1) ?? null;
  reopened.appendSessionInfo("   ");
  const clearedName = reopened.getSessionName() ?? null;
  const lastLabel = values(file).at(-2);
  const again = SessionManager.open(file);
  const beforeReset = sha(file);
  sm.resetLeaf();
  const resetLeaf = sm.getLeafId();
  const afterReset = sha(file);
  const root = sm.appendMessage(user("new root"));
  return {
    unchangedByBranch: before === afterBranch, unknown, labelAfterSide, nameAfterSide, labelFromMain, nameFromMain,
    sideLast, side, lastLineId, reopenedLeaf, reopenedLabel, reopenedName, clearedLabel, clearedName,
    lastLabelHasLabelKey: Object.hasOwn(lastLabel, "label"), labelAfterClearAndReopen: again.getLabel(u1) ?? null,
    resetLeaf, unchangedByReset: afterReset === beforeReset, rootParent: sm.getEntry(root).parentId,
  };
});

// §3.2, §1.5: branchWithSummary records the old leaf (or "root") and appends under the target.
experiment("branchWithSummary", (dir) => {
  const sm = SessionManager.create(CWD, dir);
  const u1 = sm.appendMessage(user("one"));
  sm.appendMessage(assistant("two"));
  const oldLeaf = sm.appendMessage(user("three"));
  const file = sm.getSessionFile();
  const linesBefore = values(file).length;
  const bs = sm.branchWithSummary(u1, "went back");
  const written = values(file).at(-1);
  sm.resetLeaf();
  const bsRoot = sm.branchWithSummary(null, "from nowhere");
  const rootEntry = sm.getEntry(bsRoot);
  return {
    oldLeaf, u1, bs, leafIsSummary: sm.getLeafId() === bsRoot, linesAdded: values(file).length - linesBefore,
    written: { id: written.id, parentId: written.parentId, fromId: written.fromId },
    root: { parentId: rootEntry.parentId, fromId: rootEntry.fromId },
  };
});

// §1.7: what open does with a 0-byte, whitespace-only, junk or missing file.
experiment("openOdd", (dir) => {
  mkdirSync(dir, { recursive: true });
  const empty = join(dir, "empty.jsonl");
  writeFileSync(empty, "");
  const fromEmpty = SessionManager.open(empty);
  const emptyAfter = values(empty);
  const refused = {};
  for (const [name, body] of [["blank", "  \n\t\n\n"], ["junk", "not json\n{\"type\":\"message\"}\n"]]) {
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, body);
    try {
      SessionManager.open(path);
      refused[name] = { thrown: null };
    } catch (error) {
      refused[name] = { thrown: String(error.message), unchanged: text(path) === body };
    }
  }
  const missing = join(dir, "sub", "missing.jsonl");
  const fromMissing = SessionManager.open(missing);
  const missingFile = fromMissing.getSessionFile();
  fromMissing.appendMessage(user("q"));
  const existsAfterUser = existsSync(missing);
  fromMissing.appendMessage(assistant("a"));
  return {
    processCwd: process.cwd(), emptyHeader: emptyAfter, emptyHeaderLines: emptyAfter.length, emptySessionId: fromEmpty.getSessionId(), refused,
    missingFile, missingSame: missingFile === missing, existsAfterUser, existsAfterAssistant: existsSync(missing),
    missingLines: existsSync(missing) ? values(missing).length : 0,
  };
});

// §2: migration on open, and what does not migrate.
let legacyListing = null;
experiment("migration", (dir) => {
  mkdirSync(dir, { recursive: true });
  const v1 = [
    '{"type": "session", "id": "legacy", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "' + CWD + '", "provider": "a", "modelId": "b", "thinkingLevel": "off", "branchedFrom": "x"}',
    "",
    "not json",
    '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"q","timestamp":1},"id":"keep-me","parentId":"p"}',
    '{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"provider":"p","model":"m","stopReason":"stop","timestamp":1.0}}',
    '{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":1,"tokensBefore":3}',
    '{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"s0","firstKeptEntryIndex":0,"tokensBefore":3}',
  ].join("\n") + "\n";
  const v2 = [
    { type: "session", version: 2, id: "v2", timestamp: "2025-01-01T00:00:00.000Z", cwd: CWD },
    { type: "message", id: "aa000001", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "hookMessage", customType: "x", content: "c", display: true, timestamp: 1 } },
  ].map(line).join("");
  const v2plain = [
    { type: "session", version: 2, id: "v2plain", timestamp: "2025-01-01T00:00:00.000Z", cwd: CWD },
    { type: "message", id: "aa000001", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "c", timestamp: 1 } },
  ].map(line).join("");
  const v3junk = line({ type: "session", version: 3, id: "v3", timestamp: "2025-01-01T00:00:00.000Z", cwd: CWD }) + "junk\n\n"
    + line({ type: "message", id: "aa000001", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "c", timestamp: 1 } });
  const v4 = v3junk.replace('"version":3', '"version":4');
  const vs3 = v3junk.replace('"version":3', '"version":"3"');
  const result = {};
  for (const [name, body] of [["v1", v1], ["v2", v2], ["v2plain", v2plain], ["v3junk", v3junk], ["v4", v4], ["vs3", vs3]]) {
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, body);
    SessionManager.open(path);
    result[name] = { rewritten: text(path) !== body, after: text(path) };
  }
  // Read-only paths: list() and forkFrom() on a v1 source.
  const listDir = join(dir, "listed");
  mkdirSync(listDir);
  const listed = join(listDir, "v1.jsonl");
  writeFileSync(listed, v1);
  legacyListing = { listDir, listed };
  const v1path = join(dir, "v1.jsonl");
  const migrated = text(v1path);
  SessionManager.open(v1path);
  result.reopenUnchanged = text(v1path) === migrated;
  const copy = join(dir, "v1-copy.jsonl");
  writeFileSync(copy, v1);
  SessionManager.open(copy);
  result.freshCopyDiffers = text(copy) !== migrated;
  const opened = SessionManager.open(v1path);
  const overridden = SessionManager.open(v1path, undefined, "/somewhere/else");
  result.openDir = opened.getSessionDir() === dirname(v1path);
  result.openCwd = opened.getCwd() === CWD;
  result.overriddenCwd = overridden.getCwd();
  const recentDir = join(dir, "recent-v2");
  mkdirSync(recentDir);
  const recentV2 = join(recentDir, "v2.jsonl");
  writeFileSync(recentV2, v2plain);
  SessionManager.continueRecent(CWD, recentDir);
  result.continueRecentRewrote = text(recentV2) !== v2plain;
  const setV2 = join(dir, "set-v2.jsonl");
  writeFileSync(setV2, v2plain);
  SessionManager.create(CWD, join(dir, "set-dir")).setSessionFile(setV2);
  result.setSessionFileRewrote = text(setV2) !== v2plain;
  return result;
});

// §2: list() and forkFrom() leave a legacy source as it is (async list).
async function readOnlyPaths() {
  if (legacyListing === null) return;
  const { listDir, listed } = legacyListing;
  try {
    const listedBefore = text(listed);
    const sessions = await SessionManager.list(CWD, listDir);
    const afterList = text(listed) === listedBefore;
    const forkDir = join(out, "forked");
    const forked = SessionManager.forkFrom(listed, CWD, forkDir);
    const forkFile = forked.getSessionFile();
    facts.readOnly = {
      listed: sessions.length, afterList, sourceAfterFork: text(listed) === listedBefore,
      forkExists: existsSync(forkFile), forkLines: existsSync(forkFile) ? values(forkFile) : [],
    };
  } catch (error) {
    facts.readOnly = { error: String(error?.stack ?? error) };
  }
}
await readOnlyPaths();

// §6, §1.1: continueRecent by mtime, custom-dir cwd filter, listing skips corrupt files.
async function recentAndList() {
  try {
    const dir = join(out, "recent");
    mkdirSync(dir, { recursive: true });
    const other = join(out, "other-project");
    mkdirSync(other, { recursive: true });
    const write = (name, cwd, mtime) => {
      const path = join(dir, name);
      writeFileSync(path, line({ type: "session", version: 3, id: name, timestamp: "2025-01-01T00:00:00.000Z", cwd })
        + line({ type: "message", id: "aa000001", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "c", timestamp: 1 } }));
      utimesSync(path, mtime, mtime);
      return path;
    };
    // Names sort the other way round from mtimes, so only the mtime can pick the right one.
    const older = write("z-older.jsonl", CWD, 1000);
    const newer = write("a-newer.jsonl", CWD, 2000);
    write("m-other-cwd.jsonl", other, 3000);
    const corrupt = join(dir, "corrupt.jsonl");
    writeFileSync(corrupt, "junk\n");
    utimesSync(corrupt, 4000, 4000);
    const recent = SessionManager.continueRecent(CWD, dir);
    const listed = await SessionManager.list(CWD, dir);
    facts.recent = {
      picked: basename(recent.getSessionFile()), older: basename(older), newer: basename(newer),
      listed: listed.map((s) => basename(s.path)).sort(), listedKeys: Object.keys(listed[0] ?? {}).sort(),
    };
  } catch (error) {
    facts.recent = { error: String(error?.stack ?? error) };
  }
}
await recentAndList();

// §1.3, §1.5, §3.4: createBranchedSession and parentSession.
experiment("branched", (dir) => {
  const sm = SessionManager.create(CWD, dir);
  const u1 = sm.appendMessage(user("one"));
  const a1 = sm.appendMessage(assistant("two"));
  sm.appendLabelChange(u1, "first");
  const u2 = sm.appendMessage(user("three"));
  const source = sm.getSessionFile();
  const labelTs = values(source).find((e) => e.type === "label").timestamp;
  const withAssistant = sm.createBranchedSession(u2);
  const written = existsSync(withAssistant) ? values(withAssistant) : [];
  const sm2 = SessionManager.create(CWD, join(dir, "noassistant"));
  const only = sm2.appendMessage(user("solo"));
  const noAssistant = sm2.createBranchedSession(only);
  const child = SessionManager.create(CWD, join(dir, "child"));
  child.newSession({ parentSession: source });
  child.appendMessage(user("c"));
  child.appendMessage(assistant("d"));
  return {
    source, u1, a1, u2, labelTs, withAssistantExists: written.length > 0,
    written: written.map((e) => ({ type: e.type, id: e.id, parentId: e.parentId, timestamp: e.timestamp, targetId: e.targetId, parentSession: e.parentSession })),
    noAssistantExists: existsSync(noAssistant), childHeader: values(child.getSessionFile())[0],
  };
});

// §4: the exported context functions; a leaf that is not found falls back to the last entry.
experiment("pureContext", () => {
  const entries = [
    { type: "message", id: "x1", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "a", timestamp: 1 } },
    { type: "message", id: "x2", parentId: "x1", timestamp: "2025-01-01T00:00:02.000Z", message: { role: "user", content: "b", timestamp: 2 } },
    { type: "message", id: "y1", parentId: null, timestamp: "2025-01-01T00:00:03.000Z", message: { role: "user", content: "c", timestamp: 3 } },
  ];
  const contents = (ctx) => ctx.messages.map((m) => m.content);
  const sm = SessionManager.inMemory(CWD);
  const methods = ["appendMessage", "appendModelChange", "appendThinkingLevelChange", "appendCompaction", "appendSessionInfo",
    "appendLabelChange", "branch", "resetLeaf", "branchWithSummary", "createBranchedSession", "getLeafId", "getLeafEntry",
    "getEntry", "getEntries", "getBranch", "getTree", "getChildren", "getLabel", "getHeader", "getSessionName",
    "buildContextEntries", "buildSessionContext", "setSessionFile", "getSessionFile", "getSessionDir", "getSessionId",
    "getCwd", "isPersisted", "appendCustomEntry", "appendCustomMessageEntry", "newSession"];
  const statics = ["create", "open", "continueRecent", "inMemory", "forkFrom", "list", "listAll"];
  return {
    exported: ["buildContextEntries", "buildSessionContext", "sessionEntryToContextMessages"].filter((n) => typeof pi[n] === "function"),
    missingMethods: methods.filter((n) => typeof sm[n] !== "function"),
    missingStatics: statics.filter((n) => typeof SessionManager[n] !== "function"),
    notFound: contents(pi.buildSessionContext(entries, "nope")),
    undefinedLeaf: contents(pi.buildSessionContext(entries, undefined)),
    nullLeaf: contents(pi.buildSessionContext(entries, null)),
    acceptsSummaryMessage: (() => {
      try {
        sm.appendMessage({ role: "branchSummary", summary: "s", fromId: "root", timestamp: 1 });
        return true;
      } catch {
        return false;
      }
    })(),
  };
});

process.stdout.write(JSON.stringify(facts) + "\n");
