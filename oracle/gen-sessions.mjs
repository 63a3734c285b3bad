#!/usr/bin/env node
// gen-sessions.mjs - write many seeded Pi v3 session files with Pi 0.84.3's own SessionManager.
//
// Usage:
//   node gen-sessions.mjs <outDir> --seed N --count K [--cwd <cwd>] [--tour] [--recall]
//
//   --seed N    PRNG seed (uint32). Same seed + count + cwd => byte-identical files and names.
//   --count K   number of random sessions to write (default 40)
//   --cwd C     cwd recorded in the headers (default /home/user/projects/demo)
//   --tour      also write the fixed "tour" set: a hand-scripted main session (tree, two
//               compactions, branch summary, second root, labels, name, incomplete exchanges),
//               a child session with parentSession, and a createBranchedSession() copy.
//   --recall    write K "recall" sessions instead of K random ones (manifest key "recall"): every
//               searchable place holds a marker word found nowhere else, and every message the
//               word "pelican"; the manifest lists each (word, entryId, where) and the string user
//               messages written before the first compaction. Without --recall nothing changes.
//
// Env: PI_PKG = package dir (default <this dir>/node_modules/@earendil-works/pi-coding-agent)
//
// Output: the session files plus <outDir>/manifest.json, and the manifest on stdout.
// Determinism: before Pi is imported, node:crypto.randomUUID (entry ids), WebCrypto
// getRandomValues (uuidv7) and Date (entry and message timestamps) are replaced by seeded
// versions. Pi writes nothing until the first assistant message; every session gets one.
import { createRequire, syncBuiltinESMExports } from "node:module";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

// ---------------------------------------------------------------- arguments
const argv = process.argv.slice(2);
const usage = "usage: node gen-sessions.mjs <outDir> --seed N --count K [--cwd <cwd>] [--tour] [--recall]";
if (argv.length === 0 || argv.includes("-h") || argv.includes("--help")) {
  console.error(usage);
  process.exit(2);
}
function option(name, fallback) {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  if (i + 1 >= argv.length) {
    console.error(`${name} needs a value\n${usage}`);
    process.exit(2);
  }
  return argv[i + 1];
}
const outDir = resolve(argv[0]);
const SEED = Number.parseInt(option("--seed", "1"), 10) >>> 0;
const COUNT = Number.parseInt(option("--count", "40"), 10);
const CWD = option("--cwd", "/home/user/projects/demo");
const TOUR = argv.includes("--tour");
const RECALL = argv.includes("--recall");
if (!Number.isFinite(COUNT) || COUNT < 0) {
  console.error(usage);
  process.exit(2);
}

// ---------------------------------------------------------------- seeded randomness
function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// Three independent streams, so a change in content choices does not shift ids or the clock.
const rnd = mulberry32(SEED);
const idRnd = mulberry32(SEED ^ 0x9e3779b9);
const clockRnd = mulberry32(SEED ^ 0x85ebca6b);

const hex = (n, r = idRnd) => {
  let s = "";
  for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16);
  return s;
};

// Entry ids: SessionManager uses randomUUID().slice(0, 8) from node:crypto.
const require = createRequire(import.meta.url);
const nodeCrypto = require("node:crypto");
nodeCrypto.randomUUID = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
syncBuiltinESMExports();
// uuidv7() (session ids of createBranchedSession) draws bytes from WebCrypto.
globalThis.crypto.getRandomValues = (arr) => {
  const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(idRnd() * 256);
  return arr;
};
// Clock: each argument-less Date read advances by a seeded 1..4000 ms step.
const RealDate = Date;
let now = RealDate.parse("2025-06-01T12:00:00.000Z") + Math.floor(clockRnd() * 86_400_000);
const tick = () => {
  now += 1 + Math.floor(clockRnd() * 4000);
  return now;
};
globalThis.Date = class extends RealDate {
  constructor(...a) {
    if (a.length === 0) super(tick());
    else super(...a);
  }
  static now() {
    return tick();
  }
};

const PKG = process.env.PI_PKG ?? join(import.meta.dirname, "node_modules", "@earendil-works", "pi-coding-agent");
const PI_VERSION = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")).version;
const { SessionManager } = await import(pathToFileURL(join(PKG, "dist", "index.js")).href);

mkdirSync(outDir, { recursive: true });

// ---------------------------------------------------------------- random helpers
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const chance = (p) => rnd() < p;
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
function weighted(table) {
  let total = 0;
  for (const [, w] of table) total += w;
  let x = rnd() * total;
  for (const [v, w] of table) {
    x -= w;
    if (x < 0) return v;
  }
  return table[table.length - 1][0];
}

const WORDS = [
  "build", "script", "test", "refactor", "the", "a", "file", "function", "error", "path", "session", "rebase",
  "café", "naïve", "Straße", "日本語", "中文", "Ελληνικά", "עברית", "العربية", "हिन्दी", "한국어", "😀", "🧪", "👩‍💻",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𠜎𠜱", "é", "\u00a0", "\u2028", "\u2029", "\u007f", "\u0001", "\t", "\n", "\r\n", "\"quoted\"",
  "back\\slash", "</script>", "'single'", "{json}", "[1,2]", "a/b/c", "C:\\tmp", "~", "$HOME", "`code`", "#", "*",
];
function phrase(min = 1, max = 12) {
  const n = int(min, max);
  const out = [];
  for (let i = 0; i < n; i++) out.push(pick(WORDS));
  let s = out.join(" ");
  if (chance(0.02)) s += pick(["\ud800", "\udfff", "x\udc00y", "\ud83d"]); // a lone surrogate
  return s;
}
const NUMBERS = [0, 1, -1, 42, 3.14, 0.1 + 0.2, 1e-7, 123e-20, 1e21, 2 ** 53 + 2, -0, 5e-324, 1.7976931348623157e308, 1 / 3, -2.5e-8, 1e300 * 10 / 10, 255];
function jsonValue(depth = 0) {
  const kind = depth > 2 ? int(0, 3) : int(0, 5);
  switch (kind) {
    case 0: return pick([null, true, false]);
    case 1: return pick(NUMBERS);
    case 2: return phrase(0, 4);
    case 3: return int(-1000, 100000);
    case 4: return Array.from({ length: int(0, 3) }, () => jsonValue(depth + 1));
    default: {
      const o = {};
      for (let i = int(0, 4); i > 0; i--) o[pick(["k", "path", "0", "10", "01", "x y", "ü", "id", "4294967295", String(int(0, 9))])] = jsonValue(depth + 1);
      return o;
    }
  }
}

let callSeq = 0;
const callId = () => `${pick(["toolu_01", "call_", "fc_"])}${hex(10, rnd)}${++callSeq}`;
const usageOf = (input, output, cacheRead = 0, cacheWrite = 0) => {
  const cost = { input: input * 3e-6, output: output * 1.5e-5, cacheRead: cacheRead * 3e-7, cacheWrite: cacheWrite * 3.75e-6 };
  return {
    input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite,
    cost: { ...cost, total: cost.input + cost.output + cost.cacheRead + cost.cacheWrite },
  };
};
const MODELS = [
  { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" },
  { api: "openai-responses", provider: "openai", model: "gpt-5" },
  { api: "google-generative-ai", provider: "google", model: "gemini-2.5-pro" },
  { api: "openai-completions", provider: "openrouter", model: "z-ai/glm-4.6" },
];
const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh"];
const TOOLS = ["bash", "read", "edit", "write", "grep", "find", "ls"];

const textBlock = () => (chance(0.1) ? { type: "text", text: phrase(), textSignature: hex(12, rnd) } : { type: "text", text: phrase() });
const thinkingBlock = () =>
  chance(0.15)
    ? { type: "thinking", thinking: "", thinkingSignature: hex(24, rnd), redacted: true }
    : { type: "thinking", thinking: phrase(), thinkingSignature: `sig-${hex(16, rnd)}` };
function toolCallBlock() {
  const name = pick(TOOLS);
  const args = { path: `src/${pick(WORDS).replace(/\s/g, "_")}.ts` };
  if (chance(0.5)) args.command = phrase(1, 4);
  if (chance(0.3)) args.limit = pick(NUMBERS);
  if (chance(0.2)) args.extra = jsonValue();
  const block = { type: "toolCall", id: callId(), name, arguments: args };
  if (chance(0.1)) block.thoughtSignature = hex(20, rnd);
  return block;
}
const imageBlock = () => ({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });

function userMessage() {
  const content = chance(0.5) ? phrase() : [textBlock(), ...(chance(0.2) ? [imageBlock()] : []), ...(chance(0.2) ? [textBlock()] : [])];
  return { role: "user", content, timestamp: Date.now() };
}
function assistantMessage(content, stopReason, model) {
  const m = { role: "assistant", content, api: model.api, provider: model.provider, model: model.model };
  if (model.provider === "openai" && chance(0.5)) m.responseModel = `${model.model}-2025-08-07`;
  m.usage = usageOf(int(0, 200000), int(0, 9000), int(0, 50000), int(0, 2000));
  m.stopReason = stopReason;
  m.timestamp = Date.now();
  if (model.provider === "openai" && chance(0.7)) m.responseId = `resp_${hex(16, rnd)}`;
  if (stopReason === "error" || stopReason === "aborted") {
    m.errorMessage = stopReason === "aborted" ? "Request was aborted" : phrase(1, 5);
  }
  return m;
}
function toolResult(call, isError = false) {
  const r = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: phrase(0, 20) }] };
  if (chance(0.1)) r.content.push(imageBlock());
  if (chance(0.5)) r.details = isError ? {} : { exitCode: int(0, 2), extra: jsonValue() };
  r.isError = isError;
  r.timestamp = Date.now();
  return r;
}

// ---------------------------------------------------------------- one session
class Session {
  constructor(sm, model) {
    this.sm = sm;
    this.model = model;
    this.features = new Set();
    this.hasAssistant = false;
  }
  ids() {
    return this.sm.getEntries().map((e) => e.id);
  }
  pathIds() {
    return this.sm.getBranch().map((e) => e.id);
  }
  note(f) {
    this.features.add(f);
  }
  user() {
    this.sm.appendMessage(userMessage());
  }
  assistant(stopReason) {
    stopReason ??= weighted([["stop", 5], ["toolUse", 5], ["length", 1], ["error", 1], ["aborted", 1]]);
    const content = [];
    if (chance(0.4)) content.push(thinkingBlock());
    if (chance(0.8) || stopReason === "stop") content.push(textBlock());
    const calls = [];
    const nCalls = stopReason === "toolUse" ? int(1, 3) : stopReason === "stop" ? 0 : int(0, 2);
    for (let i = 0; i < nCalls; i++) calls.push(toolCallBlock());
    content.push(...calls);
    this.sm.appendMessage(assistantMessage(content, stopReason, this.model));
    this.hasAssistant = true;
    this.note(`stop:${stopReason}`);
    if (stopReason === "toolUse") {
      // Complete exchange (all results in call order) or an incomplete one (fewer results).
      const complete = chance(0.8);
      const n = complete ? calls.length : int(0, calls.length - 1);
      this.note(complete ? "exchange:complete" : "exchange:incomplete");
      for (let i = 0; i < n; i++) {
        const isError = chance(0.2);
        if (isError) this.note("toolResult:error");
        this.sm.appendMessage(toolResult(calls[i], isError));
        if (chance(0.05)) this.sm.appendCustomEntry("progress", { call: calls[i].id }); // between results
      }
    } else if (stopReason === "length") {
      for (const c of calls) this.sm.appendMessage(toolResult(c, true)); // every call gets an error result
    }
  }
  turn() {
    this.user();
    if (chance(0.2)) this.customMessage();
    let rounds = int(1, 3);
    while (rounds-- > 0) {
      this.assistant();
      if (chance(0.5)) break;
    }
  }
  modelChange() {
    this.model = pick(MODELS);
    this.sm.appendModelChange(this.model.provider, this.model.model);
    this.note("model_change");
  }
  thinkingChange() {
    this.sm.appendThinkingLevelChange(pick(THINKING));
    this.note("thinking_level_change");
  }
  custom() {
    this.sm.appendCustomEntry(pick(["rebase-state", "todo", "ext:ü"]), chance(0.8) ? jsonValue() : undefined);
    this.note("custom");
  }
  customMessage() {
    const content = weighted([[phrase(), 4], [[textBlock()], 3], [[textBlock(), imageBlock()], 1], [undefined, 1]]);
    const display = chance(0.5);
    const details = chance(0.5) ? jsonValue() : undefined;
    this.sm.appendCustomMessageEntry(pick(["rebase-note", "recall", "hint"]), content, display, details);
    this.note(`custom_message:display=${display}`);
    if (content === undefined) this.note("custom_message:no-content");
  }
  bash() {
    const msg = { role: "bashExecution", command: phrase(1, 3), output: phrase(0, 10) };
    msg.exitCode = chance(0.1) ? undefined : int(0, 2);
    msg.cancelled = chance(0.1);
    msg.truncated = chance(0.2);
    if (msg.truncated && chance(0.5)) msg.fullOutputPath = "/tmp/pi-bash-output.log";
    msg.timestamp = Date.now();
    if (chance(0.4)) {
      msg.excludeFromContext = true;
      this.note("bash:excludeFromContext");
    }
    this.sm.appendMessage(msg);
    this.note("bashExecution");
  }
  nullContent() {
    const kind = int(0, 4);
    if (kind === 0) this.sm.appendMessage({ role: "user", content: null, timestamp: Date.now() });
    else if (kind === 1) this.sm.appendMessage({ role: "user", timestamp: Date.now() });
    else if (kind === 2) {
      const m = assistantMessage(null, "stop", this.model);
      this.sm.appendMessage(m);
      this.hasAssistant = true;
    } else if (kind === 3) this.sm.appendMessage({ role: "toolResult", toolCallId: callId(), toolName: "read", isError: false, timestamp: Date.now() });
    else this.sm.appendMessage({ role: "custom", customType: "legacy-hook", content: null, display: true, timestamp: Date.now() });
    this.note("null-content");
  }
  compaction() {
    const path = this.pathIds();
    const all = this.ids();
    const onPath = new Set(path);
    const offPath = all.filter((id) => !onPath.has(id));
    let mode = weighted([["on-path", 6], ["off-path", 2], ["missing", 1], ["undefined", 1]]);
    if (mode === "on-path" && path.length === 0) mode = "missing";
    if (mode === "off-path" && offPath.length === 0) mode = "missing";
    const first = mode === "on-path" ? pick(path.slice(Math.floor(path.length / 3))) : mode === "off-path" ? pick(offPath) : mode === "missing" ? `${hex(8, rnd)}` : undefined;
    const summary = chance(0.05) ? "" : `## Goal\n${phrase()}\n\n## Progress\n- [x] ${phrase()}`;
    const details = chance(0.7) ? { readFiles: [`src/${hex(4, rnd)}.ts`], modifiedFiles: [] } : undefined;
    const usage = chance(0.6) ? usageOf(int(1000, 90000), int(100, 2000)) : undefined;
    const fromHook = chance(0.7) ? chance(0.2) : undefined;
    this.sm.appendCompaction(summary, first, int(1000, 200000), details, fromHook, usage);
    this.note(`compaction:${mode}`);
  }
  branch() {
    const all = this.ids();
    if (all.length === 0) return;
    this.sm.branch(pick(all));
    this.note("branch");
  }
  branchWithSummary() {
    const all = this.ids();
    const target = all.length === 0 || chance(0.2) ? null : pick(all);
    const summary = chance(0.1) ? "" : phrase();
    const details = chance(0.5) ? { readFiles: [], modifiedFiles: [] } : undefined;
    this.sm.branchWithSummary(target, summary, details, chance(0.5) ? false : undefined, chance(0.5) ? usageOf(2000, 120) : undefined);
    this.note(target === null ? "branch_summary:root" : "branch_summary");
    if (summary === "") this.note("branch_summary:empty");
  }
  resetLeaf() {
    this.sm.resetLeaf();
    this.note("resetLeaf");
  }
  label() {
    const all = this.ids();
    if (all.length === 0) return;
    this.sm.appendLabelChange(pick(all), weighted([[phrase(1, 2), 6], ["", 1], [undefined, 1]]));
    this.note("label");
  }
  sessionInfo() {
    this.sm.appendSessionInfo(pick(["", "  spaced  ", "line\nbreak", "crlf\r\nname"]) + (chance(0.7) ? phrase(1, 3) : ""));
    this.note("session_info");
  }
  oddMessage() {
    // Roles the context builder must pass through untouched.
    this.sm.appendMessage(pick([
      { role: "custom", customType: "legacy-hook", content: phrase(), display: false, details: jsonValue(), timestamp: Date.now() },
      { role: "hookMessage", customType: "v2-hook", content: [textBlock()], display: true, timestamp: Date.now() },
      { timestamp: Date.now(), content: phrase(), role: "user", extra: jsonValue() },
    ]));
    this.note("odd-message");
  }
}

const OPS = [
  ["turn", 30], ["user", 3], ["assistant", 4], ["modelChange", 3], ["thinkingChange", 3], ["custom", 3], ["customMessage", 4],
  ["bash", 4], ["nullContent", 2], ["compaction", 5], ["branch", 4], ["branchWithSummary", 3], ["resetLeaf", 1.5],
  ["label", 3], ["sessionInfo", 2], ["oddMessage", 1],
];
// Each session index forces one scripted feature so that every shape appears for any seed.
const FORCED = [
  (s) => { s.turn(); s.compaction(); s.turn(); s.compaction(); s.turn(); s.compaction(); },
  (s) => { s.turn(); s.compaction(); }, // compaction becomes the last entry -> leaf
  (s) => { s.turn(); s.branchWithSummary(); s.turn(); },
  (s) => { s.turn(); s.resetLeaf(); s.turn(); },
  (s) => { s.turn(); s.label(); s.label(); s.sessionInfo(); },
  (s) => { s.customMessage(); s.customMessage(); s.custom(); s.turn(); },
  (s) => { s.nullContent(); s.nullContent(); s.nullContent(); s.turn(); },
  (s) => { s.user(); s.assistant("toolUse"); s.user(); s.assistant("aborted"); },
  (s) => { s.bash(); s.bash(); s.turn(); },
  (s) => { s.modelChange(); s.thinkingChange(); s.turn(); s.modelChange(); },
  (s) => { s.turn(); s.branch(); s.turn(); s.branch(); s.compaction(); s.turn(); },
  (s) => { s.user(); s.assistant("length"); s.assistant("error"); s.oddMessage(); },
];
const FORCED_AT_END = new Set([1, 4, 7]);

function writeSession(index) {
  const sessionId = `0197${hex(4, rnd)}-${hex(4, rnd)}-7${hex(3, rnd)}-8${hex(3, rnd)}-${hex(12, rnd)}`;
  const options = { id: sessionId };
  if (chance(0.15)) options.parentSession = `/home/user/.pi/agent/sessions/--x--/parent-${hex(6, rnd)}.jsonl`;
  const sm = SessionManager.create(CWD, outDir, options);
  const s = new Session(sm, pick(MODELS));
  // What createAgentSession() appends first for a brand-new session (usually).
  if (chance(0.85)) {
    sm.appendModelChange(s.model.provider, s.model.model);
    sm.appendThinkingLevelChange(pick(THINKING));
  }
  const steps = int(12, 60);
  const forced = FORCED[index % FORCED.length];
  const forcedAt = FORCED_AT_END.has(index % FORCED.length) ? steps : int(0, steps);
  for (let step = 0; step <= steps; step++) {
    if (step === forcedAt) {
      if (step === steps && !s.hasAssistant) s.turn(); // the file must exist before the scripted ending
      forced(s);
      continue;
    }
    s[weighted(OPS)]();
  }
  if (!s.hasAssistant) {
    // Nothing reaches disk before the first assistant message.
    s.assistant("stop");
  }
  return {
    index,
    file: sm.getSessionFile(),
    sessionId,
    entries: sm.getEntries().length,
    leaf: sm.getLeafId(),
    leafType: sm.getLeafEntry()?.type ?? null,
    maxCompactionsOnAPath: Math.max(0, ...sm.getEntries().map((e) => sm.getBranch(e.id).filter((x) => x.type === "compaction").length)),
    features: [...s.features].sort(),
  };
}

// ---------------------------------------------------------------- the fixed tour set
function writeTour() {
  const model = MODELS[0];
  const gpt = MODELS[1];
  const sm = SessionManager.create(CWD, outDir, { id: "01977a00-0000-7000-8000-00000000000a" });
  const ids = {};
  const asst = (content, stopReason, m = model, extra = {}) => ({ ...assistantMessage(content, stopReason, m), ...extra });
  const call = (name, args) => ({ type: "toolCall", id: callId(), name, arguments: args });
  const result = (c, text, isError = false, details) => ({
    role: "toolResult", toolCallId: c.id, toolName: c.name, content: [{ type: "text", text }],
    ...(details === undefined ? {} : { details }), isError, timestamp: Date.now(),
  });
  ids.model1 = sm.appendModelChange(model.provider, model.model);
  ids.think1 = sm.appendThinkingLevelChange("medium");
  ids.u1 = sm.appendMessage({ role: "user", content: "What does the build script do? — «résumé» 🧪", timestamp: Date.now() });
  const c1 = call("bash", { command: "ls -la" });
  ids.a1 = sm.appendMessage(asst([{ type: "thinking", thinking: "List files first.", thinkingSignature: "sig-1" }, { type: "text", text: "Looking." }, c1], "toolUse"));
  ids.r1 = sm.appendMessage(result(c1, "package.json\nscripts/\nsrc/", false, { exitCode: 0 }));
  const c2 = call("read", { path: "package.json" });
  const c3 = call("read", { path: "scripts/build.mjs" });
  ids.a2 = sm.appendMessage(asst([c2, c3], "toolUse"));
  ids.r2 = sm.appendMessage(result(c2, '{ "scripts": { "build": "node scripts/build.mjs" } }'));
  ids.r3 = sm.appendMessage(result(c3, "// bundles src/ with esbuild"));
  ids.a3 = sm.appendMessage(asst([{ type: "text", text: "It bundles src/ with esbuild." }], "stop"));
  ids.custom1 = sm.appendCustomEntry("rebase-state", { version: 1, base: null });
  ids.cmsg1 = sm.appendCustomMessageEntry("rebase-note", "Keep answers short.", true, { source: "gen-sessions.mjs" });
  ids.bash1 = sm.appendMessage({ role: "bashExecution", command: "git status --short", output: " M src/index.ts", exitCode: 0, cancelled: false, truncated: false, timestamp: Date.now() });
  ids.bash2 = sm.appendMessage({ role: "bashExecution", command: "echo private", output: "private", exitCode: 0, cancelled: false, truncated: false, timestamp: Date.now(), excludeFromContext: true });
  ids.u2 = sm.appendMessage({ role: "user", content: [{ type: "text", text: "Refactor it to async/await." }], timestamp: Date.now() });
  const c4 = call("edit", { path: "scripts/build.mjs", edits: [{ oldText: "then(", newText: "await (" }] });
  ids.a4 = sm.appendMessage(asst([c4], "toolUse"));
  ids.r4 = sm.appendMessage(result(c4, "Error: oldText not found", true));
  const c5 = call("edit", { path: "scripts/build.mjs", edits: [{ oldText: ".then((r) =>", newText: "const r = await" }] });
  ids.a5 = sm.appendMessage(asst([{ type: "text", text: "Retrying." }, c5], "toolUse"));
  ids.r5 = sm.appendMessage(result(c5, "Replaced 1 block.", false, { diff: "-.then\n+await" }));
  ids.a6 = sm.appendMessage(asst([{ type: "text", text: "Done." }], "stop"));
  ids.compaction1 = sm.appendCompaction("## Goal\nRefactor.\n", ids.u2, 48231, { readFiles: ["package.json"], modifiedFiles: ["scripts/build.mjs"] }, false, usageOf(30000, 900));
  ids.u3 = sm.appendMessage({ role: "user", content: "Now add a test.", timestamp: Date.now() });
  const c6 = call("write", { path: "test/build.test.mjs", content: "import test from 'node:test';\n" });
  ids.a7 = sm.appendMessage(asst([c6], "toolUse"));
  ids.r6 = sm.appendMessage(result(c6, "Wrote 31 bytes"));
  ids.a8 = sm.appendMessage(asst([{ type: "text", text: "Added the test." }], "stop"));
  ids.model2 = sm.appendModelChange(gpt.provider, gpt.model);
  ids.think2 = sm.appendThinkingLevelChange("high");
  ids.u4 = sm.appendMessage({ role: "user", content: "Double-check it.", timestamp: Date.now() });
  ids.a9 = sm.appendMessage(asst([{ type: "text", text: "Looks fine." }], "stop", gpt, { responseId: "resp_tour_1" }));
  ids.compaction2 = sm.appendCompaction("## Goal\nRefactor + tests.", ids.u3, 52000, undefined, false);
  ids.u5 = sm.appendMessage({ role: "user", content: "Run the tests.", timestamp: Date.now() });
  const c7 = call("bash", { command: "node --test" });
  ids.a10 = sm.appendMessage(asst([c7], "toolUse", gpt));
  // branch A: plain branch() back to a3
  sm.branch(ids.a3);
  ids.A_u = sm.appendMessage({ role: "user", content: "Explain the tests directory instead.", timestamp: Date.now() });
  ids.A_a = sm.appendMessage(asst([{ type: "text", text: "There is none yet." }], "stop"));
  // branch B: branchWithSummary() to a6 with both kinds of incomplete exchange
  ids.B_summary = sm.branchWithSummary(ids.a6, "The user asked about tests.", { readFiles: [], modifiedFiles: [] }, false, usageOf(2000, 120));
  ids.B_u = sm.appendMessage({ role: "user", content: "Also lint it.", timestamp: Date.now() });
  const c8 = call("bash", { command: "npx eslint ." });
  const c9 = call("read", { path: ".eslintrc.json" });
  ids.B_a = sm.appendMessage(asst([c8, c9], "toolUse"));
  ids.B_r = sm.appendMessage(result(c8, "0 problems"));
  ids.B_u2 = sm.appendMessage({ role: "user", content: "Never mind.", timestamp: Date.now() });
  const c10 = call("bash", { command: "npx eslint --fix" });
  ids.B_a2 = sm.appendMessage(asst([{ type: "text", text: "Fixing" }, c10], "aborted"));
  // branch C: a second root via resetLeaf(), and D: another via branchWithSummary(null)
  sm.resetLeaf();
  ids.C_u = sm.appendMessage({ role: "user", content: "(new root) Hello again.", timestamp: Date.now() });
  ids.C_a = sm.appendMessage(asst([{ type: "text", text: "Hi!" }], "stop"));
  ids.D_summary = sm.branchWithSummary(null, "Started over from nothing.");
  ids.D_u = sm.appendMessage({ role: "user", content: "Third root.", timestamp: Date.now() });
  // labels and name on the main line, then finish it
  sm.branch(ids.a10);
  ids.label1 = sm.appendLabelChange(ids.u1, "start");
  ids.label2 = sm.appendLabelChange(ids.compaction1, "after-first-compaction");
  ids.info = sm.appendSessionInfo("Build script refactor\n(tour)");
  ids.r7 = sm.appendMessage(result(c7, "# pass 1", false, { exitCode: 0 }));
  ids.a11 = sm.appendMessage(asst([{ type: "text", text: "All tests pass." }], "stop", gpt));
  const mainFile = sm.getSessionFile();
  const mainLeaf = sm.getLeafId();

  const child = SessionManager.create(CWD, outDir, { id: "01977a00-0000-7000-8000-00000000000b", parentSession: mainFile });
  ids.child_custom = child.appendCustomEntry("rebase", { fromLeaf: mainLeaf });
  ids.child_cmsg = child.appendCustomMessageEntry("rebase-context", [{ type: "text", text: "Carried-over context." }], false, { parentLeaf: mainLeaf });
  ids.child_u = child.appendMessage({ role: "user", content: "Continue.", timestamp: Date.now() });
  ids.child_a = child.appendMessage(asst([{ type: "text", text: "Continuing." }], "stop"));
  const childFile = child.getSessionFile();

  const branchedFile = SessionManager.open(mainFile).createBranchedSession(ids.A_a);
  return {
    files: { main: mainFile, child: childFile, branched: branchedFile },
    leaves: { main: mainLeaf, branchA: ids.A_a, branchB: ids.B_a2, branchC: ids.C_a, branchD: ids.D_u, child: ids.child_a },
    ids,
  };
}

// ---------------------------------------------------------------- the --recall set
// Sessions for history-recall tests. Each searchable place gets its own marker word,
// "mk" + 3-digit session + tag letter + 3-digit counter: fixed width, so no marker is a substring
// of another. Every message also says COMMON_WORD. `places` lists (word, entryId, where) for every
// word written, including places a recall must never return (thinking, labels, custom entries,
// session names, context_history_* tool traffic), so a test can predict each query's hits.
const COMMON_WORD = "pelican";
const RECALL_FILLER = ["about the build", "see the notes", "Straße café 😀", "«quoted» text", "line one\nline two", "tabs\tand  spaces", "日本語 👩‍💻"];
function writeRecallSession(index) {
  const sessionId = `0197${hex(4, rnd)}-${hex(4, rnd)}-7${hex(3, rnd)}-8${hex(3, rnd)}-${hex(12, rnd)}`;
  const sm = SessionManager.create(CWD, outDir, { id: sessionId });
  const model = pick(MODELS);
  const places = [];
  const preCompaction = [];
  let seq = 0;
  let calls = 0;
  let compacted = false;
  const mark = (tag) => `mk${String(index).padStart(3, "0")}${tag}${String(seq++).padStart(3, "0")}`;
  const note = (entryId, where, words) => {
    for (const word of words) places.push({ word, entryId, where });
  };
  const filler = () => pick(RECALL_FILLER);
  const user = (where = chance(0.6) ? "user-string" : "user-blocks") => {
    const w = mark("u");
    const content = where === "user-string"
      ? `${w} ${COMMON_WORD} ${filler()}`
      : [{ type: "text", text: `${w} ${filler()}` }, ...(chance(0.3) ? [imageBlock()] : []), { type: "text", text: COMMON_WORD }];
    const id = sm.appendMessage({ role: "user", content, timestamp: Date.now() });
    note(id, where, [w, COMMON_WORD]);
    if (where === "user-string" && !compacted) preCompaction.push({ entryId: id, word: w, content });
    return id;
  };
  const assistant = () => {
    const w = mark("a");
    const content = [];
    const thinking = chance(0.4) ? mark("t") : null;
    if (thinking) content.push({ type: "thinking", thinking: `${thinking} pondering` });
    content.push({ type: "text", text: `${w} ${COMMON_WORD} ${filler()}` });
    const toolCalls = [];
    for (let i = chance(0.4) ? int(1, 2) : 0; i > 0; i--) {
      const word = mark("c");
      toolCalls.push({ word, call: { type: "toolCall", id: `call_${index}_${++calls}`, name: pick(["read", "bash"]), arguments: { command: `cat ${word}` } } });
    }
    content.push(...toolCalls.map((c) => c.call));
    const id = sm.appendMessage(assistantMessage(content, toolCalls.length ? "toolUse" : "stop", model));
    note(id, "assistant-text", [w, COMMON_WORD]);
    if (thinking) note(id, "assistant-thinking", [thinking]);
    for (const c of toolCalls) note(id, "assistant-toolcall", [c.word]);
    for (const c of toolCalls) {
      const r = mark("r");
      const rid = sm.appendMessage({
        role: "toolResult", toolCallId: c.call.id, toolName: c.call.name,
        content: [{ type: "text", text: `${r} ${COMMON_WORD} ${filler()}` }], isError: chance(0.2), timestamp: Date.now(),
      });
      note(rid, "toolResult", [r, COMMON_WORD]);
    }
    return id;
  };
  const historyExchange = () => {
    const q = mark("h");
    const call = { type: "toolCall", id: `call_${index}_${++calls}`, name: "context_history_recall", arguments: { query: q } };
    const id = sm.appendMessage(assistantMessage([call], "toolUse", model));
    note(id, "assistant-toolcall-history", [q]);
    const r = mark("r");
    const rid = sm.appendMessage({
      role: "toolResult", toolCallId: call.id, toolName: "context_history_recall",
      content: [{ type: "text", text: `${r} ${COMMON_WORD}` }], isError: false, timestamp: Date.now(),
    });
    note(rid, "toolResult-history", [r, COMMON_WORD]);
  };
  const bash = () => {
    const c = mark("b");
    const o = mark("o");
    const msg = { role: "bashExecution", command: `echo ${c}`, output: `${o} ${COMMON_WORD}`, exitCode: 0, cancelled: false, truncated: false, timestamp: Date.now() };
    if (chance(0.4)) msg.excludeFromContext = true;
    note(sm.appendMessage(msg), "bash", [c, o, COMMON_WORD]);
  };
  const customMessage = () => {
    const w = mark("m");
    const content = chance(0.5) ? `${w} ${COMMON_WORD}` : [{ type: "text", text: `${w} ${COMMON_WORD}` }];
    note(sm.appendCustomMessageEntry("rebase-note", content, chance(0.5)), "custom_message", [w, COMMON_WORD]);
  };
  const customRoleMessage = () => {
    const w = mark("x");
    note(sm.appendMessage({ role: "custom", customType: "legacy-hook", content: `${w} ${COMMON_WORD}`, display: true, timestamp: Date.now() }), "message-custom", [w, COMMON_WORD]);
  };
  const turn = () => {
    const id = user();
    if (chance(0.2)) customMessage();
    assistant();
    if (chance(0.3)) assistant();
    if (chance(0.2)) bash();
    if (chance(0.1)) customRoleMessage();
    return id;
  };
  const compaction = (firstKept) => {
    const w = mark("s");
    const id = sm.appendCompaction(`## Goal\n${w} ${COMMON_WORD}`, firstKept, int(1000, 90000), { readFiles: [], modifiedFiles: [] }, false);
    note(id, "compaction", [w, COMMON_WORD]);
    compacted = true;
    return id;
  };
  const branchSummary = (target) => {
    const w = mark("y");
    note(sm.branchWithSummary(target, `${w} ${COMMON_WORD}`), "branch_summary", [w, COMMON_WORD]);
  };

  sm.appendModelChange(model.provider, model.model);
  sm.appendThinkingLevelChange(pick(THINKING));
  // Main line: turns, a compaction keeping only the last turn, more turns, maybe a second one.
  const preTurns = [];
  for (let i = int(3, 5); i > 0; i--) preTurns.push(preTurns.length === 0 ? (() => { const id = user("user-string"); assistant(); return id; })() : turn());
  const compactions = [compaction(preTurns[preTurns.length - 1])];
  const postTurns = [];
  for (let i = int(2, 4); i > 0; i--) postTurns.push(turn());
  historyExchange();
  if (chance(0.5)) {
    compactions.push(compaction(pick(postTurns)));
    turn();
  }
  const mainLeaf = sm.getLeafId();
  const w = mark("l");
  note(sm.appendLabelChange(pick(sm.getEntries()).id, w), "label", [w]);
  const n = mark("n");
  note(sm.appendSessionInfo(`${n} name`), "session_info", [n]);
  const d = mark("d");
  note(sm.appendCustomEntry("rebase-state", { note: d, common: COMMON_WORD }), "custom", [d, COMMON_WORD]);
  // Another branch from before the first compaction, one behind a branch summary, a second root.
  sm.branch(pick(preTurns));
  for (let i = int(1, 3); i > 0; i--) turn();
  branchSummary(pick(sm.getEntries()).id);
  turn();
  sm.resetLeaf();
  turn();
  if (chance(0.5)) turn();
  if (chance(0.5)) {
    branchSummary(null);
    turn();
  }
  if (chance(0.5)) {
    sm.branch(mainLeaf);
    turn();
  }
  return {
    index,
    file: sm.getSessionFile(),
    sessionId,
    entries: sm.getEntries().length,
    leaf: sm.getLeafId(),
    mainLeaf,
    compactions,
    commonWord: COMMON_WORD,
    preCompaction,
    places,
  };
}

const sessions = [];
if (!RECALL) for (let i = 0; i < COUNT; i++) sessions.push(writeSession(i));
const manifest = { generator: "gen-sessions.mjs", piVersion: PI_VERSION, seed: SEED, count: COUNT, cwd: CWD, sessions };
if (RECALL) manifest.recall = Array.from({ length: COUNT }, (_, i) => writeRecallSession(i));
if (TOUR) manifest.tour = writeTour();
writeFileSync(join(outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(manifest)}\n`);
