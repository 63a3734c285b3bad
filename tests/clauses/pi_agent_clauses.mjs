#!/usr/bin/env node
// pi_agent_clauses.mjs - run Pi 0.84.3's agent loop, AgentSession and AgentSessionRuntime with
// pi-ai's scripted faux provider (no network, no key), through the behaviours that
// docs/spec/pi-session-model.md §3.5, §5 and §6 report, and print what Pi did as one JSON object.
//
// Usage: node pi_agent_clauses.mjs <empty scratch dir>
//
// tests/clauses/test_toolx_clauses.py asserts the clauses against this output; the script
// judges nothing. Every experiment catches its own error into {"error": ...}.
// Env: PI_PKG = package dir (default <repo>/oracle/node_modules/@earendil-works/pi-coding-agent)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const PKG = process.env.PI_PKG
  ?? join(import.meta.dirname, "..", "..", "oracle", "node_modules", "@earendil-works", "pi-coding-agent");
const SCOPE = dirname(PKG);
const load = (pkg, file) => import(pathToFileURL(join(SCOPE, pkg, "dist", file)).href);
const pc = await load("pi-coding-agent", "index.js");
const ai = await load("pi-ai", "index.js");
const compat = await load("pi-ai", "compat.js");
const agentCore = await load("pi-agent-core", "index.js");

const out = process.argv[2];
if (!out) {
  console.error("usage: node pi_agent_clauses.mjs <scratch dir>");
  process.exit(2);
}
const agentDir = join(out, "agent");
const cwd = join(out, "project");
mkdirSync(agentDir, { recursive: true });
mkdirSync(cwd, { recursive: true });
const facts = {};
const lines = (p) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
const shape = (m) => ({ role: m.role, toolCallId: m.toolCallId, isError: m.isError, details: m.details,
  stopReason: m.stopReason, content: m.content, keys: Object.keys(JSON.parse(JSON.stringify(m))) });

async function experiment(name, body) {
  try {
    facts[name] = await body();
  } catch (error) {
    facts[name] = { error: String(error?.stack ?? error) };
  }
}

// ---------------------------------------------------------------- the agent loop (pi-agent-core)
const core = ai.createFauxCore({});
const ran = [];
const tool = (name, delay) => ({
  name, label: name, description: name, parameters: ai.Type.Object({}),
  execute: async (id) => {
    await new Promise((done) => setTimeout(done, delay));
    ran.push(id);
    return { content: [{ type: "text", text: name }], details: { by: name } };
  },
});
const calls = [ai.fauxToolCall("slow", {}, { id: "c1" }), ai.fauxToolCall("fast", {}, { id: "c2" }),
  ai.fauxToolCall("nope", {}, { id: "c3" })];

async function loop(stopReason, toolExecution) {
  ran.length = 0;
  const first = ai.fauxAssistantMessage(calls, stopReason === "toolUse" || stopReason === "length"
    ? { stopReason } : { stopReason, errorMessage: stopReason });
  core.setResponses([first, ai.fauxAssistantMessage("done")]);
  const agent = new agentCore.Agent({
    initialState: { systemPrompt: "", model: core.getModel(), thinkingLevel: "off", tools: [tool("slow", 30), tool("fast", 0)] },
    streamFn: core.streamSimple, toolExecution,
  });
  await agent.prompt("go");
  return { ran: [...ran], messages: agent.state.messages.map(shape) };
}

for (const [name, stop, mode] of [["parallel", "toolUse", "parallel"], ["sequential", "toolUse", "sequential"],
  ["length", "length", "parallel"], ["error", "error", "parallel"], ["aborted", "aborted", "parallel"]]) {
  await experiment(`loop_${name}`, () => loop(stop, mode));
}

// ---------------------------------------------------------------- AgentSession with a faux model
const faux = compat.registerFauxProvider({ provider: "faux" });
const modelRuntime = await pc.ModelRuntime.create({
  authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), credentials: new ai.InMemoryCredentialStore(),
});
modelRuntime.registerProvider("faux", {
  baseUrl: "http://127.0.0.1:9", api: faux.api, apiKey: "unused",
  models: [{ id: "faux-1", name: "faux", reasoning: false, input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 100000, maxTokens: 1000 }],
});
const model = modelRuntime.getModel("faux", "faux-1");
let api = null;
const extension = (pi) => {
  api = pi;
  pi.registerTool({
    name: "probe", label: "probe", description: "probe", parameters: ai.Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "probed" }], details: { probe: true } }),
  });
};

async function newAgentSession(sessionManager) {
  const settingsManager = pc.SettingsManager.inMemory();
  const resourceLoader = new pc.DefaultResourceLoader({
    cwd, agentDir, settingsManager, extensionFactories: [extension], noSkills: true, noPromptTemplates: true,
    noThemes: true, noContextFiles: true,
  });
  await resourceLoader.reload();
  return pc.createAgentSession({ cwd, agentDir, modelRuntime, model, sessionManager, settingsManager, resourceLoader });
}

await experiment("session", async () => {
  const sm = pc.SessionManager.create(cwd, join(out, "sessions"));
  const file = sm.getSessionFile();
  const { session } = await newAgentSession(sm);
  await session.bindExtensions({});
  const before = { types: sm.getEntries().map((e) => e.type), written: existsSync(file) };
  faux.setResponses([ai.fauxAssistantMessage([ai.fauxToolCall("probe", {}, { id: "p1" }), ai.fauxToolCall("probe", {}, { id: "p2" })],
    { stopReason: "toolUse" }), ai.fauxAssistantMessage("done")]);
  await session.prompt("hi");
  const afterPrompt = lines(file);
  const count = () => lines(file).length;
  const n0 = count();
  api.appendEntry("state", { k: 1 });
  const n1 = count();
  api.sendMessage({ customType: "note", content: "remember", display: true, details: { d: 1 } });
  const n2 = count();
  api.setSessionName("  my name  ");
  api.setLabel(afterPrompt[3].id, "start");
  const n3 = count();
  const allTools = api.getAllTools();
  api.setActiveTools(["probe", "no-such-tool"]);
  const active = api.getActiveTools();
  const n4 = count();
  let nextTurnTools = null;
  faux.setResponses([(context) => {
    nextTurnTools = (context.tools ?? []).map((t) => t.name);
    return ai.fauxAssistantMessage("next turn");
  }]);
  await session.prompt("again");
  const userEntry = afterPrompt[3];
  const toUser = await session.navigateTree(userEntry.id);
  const leafAfterUser = sm.getLeafId();
  const toAssistant = await session.navigateTree(afterPrompt.at(-1).id);
  const leafAtAssistant = sm.getLeafId();
  await session.navigateTree(afterPrompt[4].id, { label: "here" });
  const leafAfterAssistant = sm.getLeafId();
  const navigated = {
    userParent: userEntry.parentId, leafAfterUser, editorText: toUser.editorText ?? null,
    lastAssistant: afterPrompt.at(-1).id, assistant: afterPrompt[4].id, leafAtAssistant, leafAfterAssistant, assistantEditorText: toAssistant.editorText ?? null,
    labelEntry: sm.getLeafEntry() ? { type: sm.getLeafEntry().type, targetId: sm.getLeafEntry().targetId } : null,
  };
  sm.branch(afterPrompt.at(-1).id);
  const n5 = count();
  await session.executeBash("printf hi");
  await session.agent.waitForIdle?.();
  const tail = lines(file).slice(n5);
  return {
    before, written: afterPrompt.map((e) => ({ type: e.type, id: e.id, parentId: e.parentId, role: e.message?.role,
      content: e.message?.content, toolCallId: e.message?.toolCallId, keys: e.message ? Object.keys(e.message) : null,
      provider: e.provider, thinkingLevel: e.thinkingLevel })),
    appendEntry: { added: n1 - n0, entry: lines(file)[n0] },
    sendMessage: { added: n2 - n1, entry: lines(file)[n1] },
    nameAndLabel: { added: n3 - n2, entries: lines(file).slice(n2, n3) },
    tools: { active, allKeys: allTools.map((t) => Object.keys(t).sort()), addedBySetActive: n4 - n3, nextTurnTools },
    navigated, bash: tail.map((e) => ({ type: e.type, role: e.message?.role, keys: e.message ? Object.keys(e.message) : null })),
  };
});

await experiment("resume", async () => {
  const file = join(out, "resume", "written.jsonl");
  mkdirSync(dirname(file), { recursive: true });
  const body = [
    { type: "session", version: 3, id: "resume-1", timestamp: "2025-06-01T12:00:00.000Z", cwd },
    { type: "message", id: "r1", parentId: null, timestamp: "2025-06-01T12:00:01.000Z", message: { role: "user", content: "q", timestamp: 1 } },
    { type: "message", id: "r2", parentId: "r1", timestamp: "2025-06-01T12:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: "a" }], api: faux.api, provider: "faux", model: "faux-1", stopReason: "stop", timestamp: 2 } },
  ].map((v) => `${JSON.stringify(v)}\n`).join("");
  writeFileSync(file, body);
  await newAgentSession(pc.SessionManager.open(file));
  const after = lines(file);
  return { linesBefore: 3, after: after.map((e) => ({ type: e.type, parentId: e.parentId })) };
});

// ---------------------------------------------------------------- AgentSessionRuntime
await experiment("runtime", async () => {
  const createRuntime = async ({ sessionManager, sessionStartEvent }) => {
    const result = await newAgentSession(sessionManager);
    return { ...result, services: { cwd, agentDir, modelRuntime }, diagnostics: [] };
  };
  const sessions = join(out, "runtime-sessions");
  const runtime = await pc.createAgentSessionRuntime(createRuntime, {
    cwd, agentDir, sessionManager: pc.SessionManager.create(cwd, sessions),
  });
  const oldApi = api;
  let setupSaw = null;
  let replaced = null;
  const parent = join(out, "parent.jsonl");
  await runtime.newSession({
    parentSession: parent,
    setup: async (sm) => {
      setupSaw = sm.getEntries().map((e) => e.type);
      sm.appendCustomEntry("setup-state", { s: 1 });
      sm.appendMessage({ role: "user", content: [{ type: "text", text: "from setup" }], timestamp: 1 });
    },
    withSession: async (ctx) => {
      replaced = { sendMessage: typeof ctx.sendMessage, sendUserMessage: typeof ctx.sendUserMessage,
        newSession: typeof ctx.newSession, switchSession: typeof ctx.switchSession, fork: typeof ctx.fork,
        navigateTree: typeof ctx.navigateTree, waitForIdle: typeof ctx.waitForIdle, reload: typeof ctx.reload };
    },
  });
  let oldApiError = null;
  try {
    oldApi.appendEntry("stale", {});
  } catch (error) {
    oldApiError = String(error.message);
  }
  const newManager = runtime.session.sessionManager;
  const newFile = newManager.getSessionFile();
  const writtenAfterNew = existsSync(newFile);
  faux.setResponses([ai.fauxAssistantMessage("ok")]);
  await runtime.session.prompt("next");
  const order = lines(newFile).map((e) => e.type === "message" ? `message:${e.message.role}` : e.type);
  // switchSession to a v2 file whose header cwd does not exist: rewritten, then it throws.
  const v2 = join(out, "switch-v2.jsonl");
  const v2body = [
    { type: "session", version: 2, id: "switch-v2", timestamp: "2025-06-01T12:00:00.000Z", cwd: join(out, "gone") },
    { type: "message", id: "s1", parentId: null, timestamp: "2025-06-01T12:00:01.000Z", message: { role: "user", content: "q", timestamp: 1 } },
  ].map((v) => `${JSON.stringify(v)}\n`).join("");
  writeFileSync(v2, v2body);
  let switchError = null;
  try {
    await runtime.switchSession(v2);
  } catch (error) {
    switchError = String(error.message);
  }
  return {
    setupSaw, replaced, oldApiError, writtenAfterNew, order, header: lines(newFile)[0], parent,
    switchError, switchRewrote: readFileSync(v2, "utf8") !== v2body, switchVersion: lines(v2)[0].version,
    methods: ["newSession", "switchSession", "fork", "importFromJsonl", "dispose"].filter((n) => typeof runtime[n] !== "function"),
  };
});

process.stdout.write(`${JSON.stringify(facts)}\n`);
process.exit(0);
