// The compaction-aware context as Pi 0.84.3 builds it over a root-to-leaf path of parsed entries:
// buildContextEntries, sessionEntryToContextMessages and getSessionContextSettings, and the tool
// exchange counts of contract §6.4. Stored messages pass through untouched; the keys Pi adds come
// in Pi's order. `retainedTail` is ignored, as 0.84.3 ignores it.

import { field } from "./records.mjs";

const CONTENT_ROLES = new Set(["user", "assistant", "toolResult"]);

/** Pi would throw while building this context (a message entry without a message). */
export class UnbuildableContext extends Error {}

/** The latest compaction, the kept entries from its firstKeptEntryId up to it, then every later entry. */
export function contextEntries(path) {
  let compaction = -1;
  for (let i = path.length - 1; i >= 0 && compaction < 0; i -= 1) {
    if (field(path[i], "type") === "compaction") compaction = i;
  }
  if (compaction < 0) return [...path];
  const locate = (id, stop) => path.slice(0, stop).findIndex((value) => field(value, "id") === id);
  const index = locate(field(path[compaction], "id"), path.length);
  if (index < 0) return [...path];
  const start = locate(field(path[compaction], "firstKeptEntryId"), index);
  return [path[compaction], ...path.slice(start < 0 ? index : start, index), ...path.slice(index + 1)];
}

/** The context messages one entry contributes (none for custom, label, settings, ...). */
function entryMessages(entry) {
  const type = field(entry, "type");
  const timestamp = () => new Date(field(entry, "timestamp")).getTime();
  if (type === "message") {
    const message = field(entry, "message");
    if (message === null || message === undefined) throw new UnbuildableContext("a message entry has no message");
    const role = field(message, "role");
    const content = field(message, "content");
    if (CONTENT_ROLES.has(role) && (content === null || content === undefined)) return [{ ...message, content: [] }];
    return [message];
  }
  if (type === "custom_message") {
    const content = field(entry, "content");
    return [{
      role: "custom", customType: field(entry, "customType"), content: content ?? [],
      display: field(entry, "display"), details: field(entry, "details"), timestamp: timestamp(),
    }];
  }
  if (type === "branch_summary" && field(entry, "summary")) {
    return [{ role: "branchSummary", summary: field(entry, "summary"), fromId: field(entry, "fromId"),
      timestamp: timestamp() }];
  }
  if (type === "compaction") {
    return [{ role: "compactionSummary", summary: field(entry, "summary"),
      tokensBefore: field(entry, "tokensBefore"), timestamp: timestamp() }];
  }
  return [];
}

export function contextMessages(entries) {
  return entries.flatMap(entryMessages);
}

/** Model and thinking level over the whole path: the last change (or assistant message) wins. */
export function contextSettings(path) {
  let thinkingLevel = "off";
  let model = null;
  for (const entry of path) {
    const type = field(entry, "type");
    if (type === "thinking_level_change") thinkingLevel = field(entry, "thinkingLevel");
    else if (type === "model_change") model = { provider: field(entry, "provider"), modelId: field(entry, "modelId") };
    else if (type === "message") {
      const message = field(entry, "message");
      if (message === null || message === undefined) throw new UnbuildableContext("a message entry has no message");
      if (field(message, "role") === "assistant") {
        model = { provider: field(message, "provider"), modelId: field(message, "model") };
      }
    }
  }
  return { model, thinkingLevel };
}

/** Tool calls without a result and results without a call, de-duplicated by kind and id. */
function exchangeIssues(messages) {
  const key = (id) => (typeof id === "string" ? id : `json:${JSON.stringify(id)}`);
  const calls = new Set();
  const results = new Set();
  for (const message of messages) {
    const role = field(message, "role");
    if (role === "assistant") {
      const content = field(message, "content");
      if (Array.isArray(content)) {
        for (const block of content) if (field(block, "type") === "toolCall") calls.add(key(field(block, "id")));
      }
    } else if (role === "toolResult") results.add(key(field(message, "toolCallId")));
  }
  const issues = new Set();
  for (const call of calls) if (!results.has(call)) issues.add(`missing-result:${call}`);
  for (const result of results) if (!calls.has(result)) issues.add(`orphan-result:${result}`);
  return issues;
}

/** Active issues from the compaction-aware context; historical ones from the whole branch. */
export function toolExchange(context, branchMessages) {
  const active = exchangeIssues(context);
  const historical = [...exchangeIssues(branchMessages)].filter((issue) => !active.has(issue));
  return { activeIssueCount: active.size, historicalIssueCount: historical.length };
}
