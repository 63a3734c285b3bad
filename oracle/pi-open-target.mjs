#!/usr/bin/env node
// pi-open-target.mjs - open rebase targets with Pi 0.84.3's SessionManager and report what Pi sees.
//
// Usage:
//   node pi-open-target.mjs < requests.ndjson
//
//   request line: {"target": "<target file>", "source": "<source file>", "sourceLeafId": "<id>",
//                  "continue"?: true}
//
// For each request (one NDJSON answer line each, in request order):
//
// * The target itself (not a copy) is opened IN PLACE with SessionManager.open(target), as Pi does
//   when it switches to it. Its SHA-256 is taken before the open, right after it, and after every
//   read below (getHeader, getBranch, getEntries, buildContextEntries, buildSessionContext).
// * The source is opened from a private temp copy (never in place), moved to sourceLeafId with
//   sm.branch(), and gives Pi's branch ids, compaction count and canonical context text
//   (buildContextEntries() entries, each JSON.stringify'd, joined with "\n"; contract §6.6 step 3).
//   The source's SHA-256 is compared before and after.
// * With "continue": true, after all of the above, the same SessionManager (the target opened in
//   place) goes on with a user and an assistant message (appendMessage), as a person would in Pi
//   after the switch. The answer says whether the staged bytes stayed a byte prefix of the file
//   (contract §6.11 step 7). This writes the target, on purpose; sources are never written.
//
// Answer: {"target", "sha256": {"before", "afterOpen", "afterReads"}, "fileUnchanged",
//   "sessionId", "header", "leafId", "entryCount",
//   "branch": [{"id", "parentId", "type", "customType"?}],
//   "contextEntryIds", "contextMessages": [{"role", "customType"?, "display"?, "contentType"}],
//   "handoffInContext"?: <content of the ds4-rebase-handoff-v1 custom message in buildSessionContext()>,
//   "handoffEntry"?: {"id", "content", "display"}, "checkpoint"?: <data>, "link"?: <data>,
//   "checkpointHashByNode"?: sha256(JSON.stringify(checkpoint data)),
//   "source": {"file", "realpath", "sessionId", "size", "sha256", "fileUnchanged", "leafId", "branchIds",
//              "compactionsOnBranch", "contextEntryIds", "contextText"},
//   "continued"?: {"file", "appendedIds", "leafId", "branchIds", "size", "prefixIntact"},
//   "checks": {<name>: true|false, ...}}
// or {"target", "error"} when Pi throws. "checks" holds the facts the rebase contract asks of Pi
// (all must be true); the Python test asserts them and also cross-checks the raw fields.
// Exit code 3 if opening or reading changed a target, or a source changed; 2 on a usage error; 0
// otherwise. Run with TZ=UTC.
//
// Env: PI_PKG = package dir (default <this dir>/node_modules/@earendil-works/pi-coding-agent)
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

if (process.argv.length > 2) {
  console.error("usage: node pi-open-target.mjs < requests.ndjson");
  process.exit(2);
}

const PKG = process.env.PI_PKG ?? join(import.meta.dirname, "node_modules", "@earendil-works", "pi-coding-agent");
const { SessionManager } = await import(pathToFileURL(join(PKG, "dist", "index.js")).href);

const CHECKPOINT_TYPE = "ds4-rebase-checkpoint-v1";
const LINK_TYPE = "ds4-rebase-link-v1";
const HANDOFF_TYPE = "ds4-rebase-handoff-v1";

const sha256 = (data) => createHash("sha256").update(data).digest("hex");
const sha256File = (p) => sha256(readFileSync(p));
const work = mkdtempSync(join(tmpdir(), "pi-open-target-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
let seq = 0;
let changedAny = false;

const firstOf = (entries, type, customType) => entries.find((e) => e?.type === type && e?.customType === customType);

function contentType(content) {
  if (typeof content === "string") return "string";
  if (Array.isArray(content)) return "blocks";
  return content === undefined ? "undefined" : typeof content;
}

/** The source as Pi sees it at the captured leaf, from a private copy. */
function readSource(file, leafId) {
  const path = resolve(file);
  const before = sha256File(path);
  const dir = join(work, `source-${++seq}`);
  mkdirSync(dir);
  const copy = join(dir, basename(path));
  try {
    copyFileSync(path, copy);
    const sm = SessionManager.open(copy);
    sm.branch(leafId); // throws "Entry <id> not found"
    const branch = sm.getBranch();
    const contextEntries = sm.buildContextEntries();
    return {
      file: path,
      realpath: realpathSync(path),
      sessionId: sm.getHeader()?.id ?? null,
      size: statSync(path).size,
      sha256: before,
      leafId: sm.getLeafId() ?? null,
      branchIds: branch.map((e) => e?.id ?? null),
      compactionsOnBranch: branch.filter((e) => e?.type === "compaction").length,
      contextEntryIds: contextEntries.map((e) => e?.id ?? null),
      contextText: contextEntries.map((e) => JSON.stringify(e)).join("\n"),
      copyRewrittenOnOpen: sha256File(copy) !== before,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    const after = sha256File(path);
    if (after !== before) changedAny = true;
  }
}

/** Continue the opened target in Pi, in place: one user and one assistant message. */
function continueTarget(sm, target, staged) {
  const now = Date.parse(sm.getBranch().at(-1)?.timestamp ?? "2025-06-01T00:00:00.000Z") + 1000;
  const user = sm.appendMessage({ role: "user", content: "continued after the rebase: zanzibarcontinued", timestamp: now });
  const assistant = sm.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "noted zanzibarreply" }],
    api: "openai-responses",
    provider: "openai",
    model: "gpt-5",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2,
             cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: now + 1000,
  });
  const bytes = readFileSync(target);
  return {
    file: target,
    appendedIds: [user, assistant],
    leafId: sm.getLeafId() ?? null,
    branchIds: sm.getBranch().map((e) => e?.id ?? null),
    size: bytes.length,
    prefixIntact: bytes.length > staged.length && bytes.subarray(0, staged.length).equals(staged),
  };
}

function processRequest(request) {
  const target = resolve(String(request.target));
  const out = { target };
  const staged = readFileSync(target);
  const before = sha256(staged);
  let sm;
  try {
    sm = SessionManager.open(target); // in place: what Pi's switchSession does with the target
  } catch (err) {
    return { target, error: String(err?.message ?? err), sha256: { before, afterOpen: sha256File(target) } };
  }
  const afterOpen = sha256File(target);
  const header = sm.getHeader();
  const entries = sm.getEntries();
  const branch = sm.getBranch();
  const contextEntries = sm.buildContextEntries();
  const context = sm.buildSessionContext();
  const afterReads = sha256File(target);
  out.sha256 = { before, afterOpen, afterReads };
  out.fileUnchanged = afterOpen === before && afterReads === before;
  if (!out.fileUnchanged) changedAny = true;
  out.sessionId = sm.getSessionId();
  out.header = header;
  out.leafId = sm.getLeafId() ?? null;
  out.entryCount = entries.length;
  out.branch = branch.map((e) => {
    const row = { id: e?.id ?? null, parentId: e?.parentId ?? null, type: e?.type };
    if (e?.customType !== undefined) row.customType = e.customType;
    return row;
  });
  out.contextEntryIds = contextEntries.map((e) => e?.id ?? null);
  out.contextMessages = context.messages.map((m) => {
    const row = { role: m?.role, contentType: contentType(m?.content) };
    if (m?.customType !== undefined) row.customType = m.customType;
    if (m?.display !== undefined) row.display = m.display;
    return row;
  });
  const handoffMessages = context.messages.filter((m) => m?.role === "custom" && m?.customType === HANDOFF_TYPE);
  if (handoffMessages.length > 0) out.handoffInContext = handoffMessages[0].content;
  const handoffEntry = firstOf(branch, "custom_message", HANDOFF_TYPE);
  const checkpointEntry = firstOf(branch, "custom", CHECKPOINT_TYPE);
  const linkEntry = firstOf(branch, "custom", LINK_TYPE);
  if (handoffEntry) out.handoffEntry = { id: handoffEntry.id, content: handoffEntry.content, display: handoffEntry.display };
  const cp = checkpointEntry?.data;
  const link = linkEntry?.data;
  if (checkpointEntry) out.checkpoint = cp;
  if (linkEntry) out.link = link;
  if (cp !== undefined) out.checkpointHashByNode = sha256(JSON.stringify(cp));

  let source;
  try {
    source = readSource(String(request.source), String(request.sourceLeafId));
  } catch (err) {
    source = { error: String(err?.message ?? err) };
  }
  out.source = source;

  const cls = cp?.classification;
  const expectedHandoff = typeof cp?.handoff === "string" ? `[ds4:${cls}]${cp.handoff}[/ds4:${cls}]` : undefined;
  const handoffLines = typeof cp?.handoff === "string" ? cp.handoff.split("\n") : [];
  const last = branch.at(-1);
  const checks = {
    openLeavesFileByteIdentical: out.fileUnchanged,
    headerVersion3: header?.version === 3,
    headerIdIsSessionId: header?.id === out.sessionId,
    headerParentSessionIsCanonicalSource: source.realpath !== undefined && header?.parentSession === source.realpath,
    headerCwdIsLinkProjectPath: typeof header?.cwd === "string" && header.cwd === link?.projectPath,
    defaultLeafIsLastEntry: out.leafId === (entries.at(-1)?.id ?? null),
    branchIsWholeFile: branch.length === entries.length && entries.length === 3,
    branchOrderCheckpointLinkHandoff:
      branch[0]?.type === "custom" && branch[0]?.customType === CHECKPOINT_TYPE && branch[0]?.parentId === null &&
      branch[1]?.type === "custom" && branch[1]?.customType === LINK_TYPE && branch[1]?.parentId === branch[0]?.id &&
      branch[2]?.type === "custom_message" && branch[2]?.customType === HANDOFF_TYPE && branch[2]?.parentId === branch[1]?.id,
    branchEndsAtHandoff: last?.type === "custom_message" && last?.customType === HANDOFF_TYPE && last?.id === out.leafId,
    handoffHiddenFromDisplay: handoffEntry?.display === false,
    // No compaction on the target: the context entries are the whole branch, and of those only
    // the handoff custom_message becomes a model message (custom entries never do).
    contextEntriesAreBranch: JSON.stringify(out.contextEntryIds) === JSON.stringify(out.branch.map((e) => e.id)),
    contextIsOnlyHandoff: out.contextMessages.length === 1 && handoffMessages.length === 1,
    contextHandoffIsCheckpointHandoff: expectedHandoff !== undefined && handoffMessages[0]?.content === expectedHandoff,
    checkpointHashMatchesLink: out.checkpointHashByNode !== undefined && out.checkpointHashByNode === link?.checkpointHash,
    checkpointIdMatchesLink: typeof cp?.id === "string" && cp.id === link?.checkpointId,
    linkTargetIsThisSession: link?.targetSessionId === out.sessionId,
    linkSourceIsCanonicalSource: source.realpath !== undefined && link?.sourceSessionFile === source.realpath,
    sourceReadable: source.error === undefined,
    sourceUnchanged: source.error === undefined && sha256File(source.file) === source.sha256,
    checkpointSourceSessionId: cp?.sourceSessionId === source.sessionId && link?.sourceSessionId === source.sessionId,
    checkpointSourceLeaf: cp?.sourceLeafId === source.leafId && link?.sourceLeafId === source.leafId,
    checkpointSourceSizeAndHash:
      cp?.sourceSize === source.size && cp?.sourceHash === source.sha256 &&
      link?.sourceSize === source.size && link?.sourceHash === source.sha256,
    checkpointCompactionCount: cp?.sourceCompactionCount === source.compactionsOnBranch,
    handoffQuotesPiContext:
      source.contextText !== undefined && handoffLines.length >= 3 &&
      handoffLines[handoffLines.length - 2] === JSON.stringify(source.contextText),
  };
  if (request.continue === true) {
    // After every read above: Pi, switched to the target, goes on with the conversation.
    try {
      out.continued = continueTarget(sm, target, staged);
    } catch (err) {
      out.continued = { error: String(err?.message ?? err) };
    }
  }
  out.checks = checks;
  return out;
}

const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
for await (const raw of rl) {
  if (!raw.trim()) continue;
  let request;
  try {
    request = JSON.parse(raw);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ error: `bad request line: ${String(err?.message ?? err)}` })}\n`);
    continue;
  }
  let answer;
  try {
    answer = processRequest(request);
  } catch (err) {
    answer = { target: String(request?.target), error: String(err?.message ?? err) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
if (changedAny) process.exitCode = 3;
