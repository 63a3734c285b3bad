// The reader operations: session.records, session.inspect and session.node. Each reads the file
// once, read-only (the harness checks the bytes are unchanged), and answers JSON of the shapes in
// schemas/adapter/v1/operations.schema.json.

import { ContractError, stringParam } from "./errors.mjs";
import { UnbuildableContext, contextEntries, contextMessages, contextSettings, toolExchange } from "./context.mjs";
import { Sample, loadSession } from "./session.mjs";
import { SessionTree, idText } from "./tree.mjs";
import { field, isObject } from "./records.mjs";

const RECORDS_LIMIT = 100_000;

/** session.records: every physical line with its byte span, SHA-256 and kind. */
export function sessionRecords(params) {
  const session = loadSession(stringParam(params, "path"));
  if (session.records.length > RECORDS_LIMIT) {
    throw new ContractError("too-many-records", `more than ${RECORDS_LIMIT} records`);
  }
  return {
    records: session.records.map((record) => {
      const item = { line: record.line, start: record.start, end: record.end, sha256: record.sha256,
        kind: record.kind, terminated: record.terminated, crlf: record.crlf };
      const id = field(record.value, "id");
      const type = field(record.value, "type");
      if (typeof id === "string") item.id = id;
      if (typeof type === "string") item.type = type;
      return item;
    }),
  };
}

/** session.inspect: the session at a leaf (absent: Pi's active leaf; null: the empty leaf). */
export function sessionInspect(params) {
  const session = loadSession(stringParam(params, "path"));
  const tree = new SessionTree(session.entries);
  const legacy = session.legacyVersion !== null;
  const leafId = chooseLeaf(session, tree, params);
  const header = session.header;
  const result = {
    file: { path: session.path, size: session.size, sha256: session.sha256 },
    version: header.version ?? null,
    sessionId: header.id,
    cwd: header.cwd ?? null,
    parentSession: header.parentSession ?? null,
    entryCount: session.entries.length,
    defaultLeafId: legacy ? null : idText(tree.defaultLeafId),
    leafId: idText(leafId),
  };
  let walk = { missingParent: null, cycle: false };
  if (legacy) { // never read as version 3: no tree and no context are built from a legacy file
    Object.assign(result, { pathIds: [], contextEntryIds: [], context: [],
      settings: { model: null, thinkingLevel: "off" }, toolExchange: { activeIssueCount: 0, historicalIssueCount: 0 },
      contextError: null });
  } else {
    walk = describeContext(tree, leafId, result);
  }
  result.diagnostics = diagnostics(session, tree, walk);
  return result;
}

/** session.node: one entry's ancestors (root first), children and siblings in file order. */
export function sessionNode(params) {
  const session = loadSession(stringParam(params, "path"));
  const entryId = stringParam(params, "id");
  if (session.legacyVersion !== null) {
    throw new ContractError("unsupported-source-version",
      `version ${session.legacyVersion} session files have no entry ids`);
  }
  const tree = new SessionTree(session.entries);
  const entry = tree.get(entryId);
  if (entry === null) throw new ContractError("unknown-entry", `entry ${entryId} is not in the session`);
  const walk = tree.ancestry(entry);
  return {
    id: entryId,
    type: field(entry.value, "type"), // undefined drops the key, as for an entry without a type
    parentId: idText(entry.parentId),
    ancestorIds: walk.path.slice(0, -1).map((e) => idText(e.id)),
    childIds: tree.children(entryId).map((e) => idText(e.id)),
    siblingIds: tree.siblings(entry).map((e) => idText(e.id)),
    isRoot: tree.parentOf(entry) === null,
    missingParent: idText(walk.missingParent),
    cycle: walk.cycle,
  };
}

function chooseLeaf(session, tree, params) {
  const legacy = session.legacyVersion !== null;
  if (!Object.hasOwn(params, "leaf")) return legacy ? null : tree.defaultLeafId;
  const leaf = params.leaf;
  if (leaf === null) return null;
  if (typeof leaf !== "string") throw new ContractError("invalid-leaf", "the leaf must be an entry id or null");
  if (legacy) {
    throw new ContractError("unsupported-source-version",
      `version ${session.legacyVersion} session files have no entry ids; Pi would rewrite it`);
  }
  if (tree.get(leaf) === null) throw new ContractError("unknown-leaf", `entry ${leaf} is not in the session`);
  return leaf;
}

/** Branch, context, settings and tool exchange at `leafId` into `result`; the session path's walk. */
function describeContext(tree, leafId, result) {
  const branch = tree.branch(leafId);
  const sessionPath = tree.sessionPath(leafId);
  const pathValues = sessionPath.path.map((entry) => entry.value);
  const branchValues = branch.path.map((entry) => entry.value);
  const entries = contextEntries(pathValues);
  result.pathIds = branch.path.map((entry) => idText(entry.id));
  result.contextEntryIds = entries.map((value) => (isObject(value) ? idText(value.id) : null));
  try {
    const context = contextMessages(entries);
    const settings = contextSettings(pathValues);
    Object.assign(result, { context, settings }); // key order as the reference writes it
    result.toolExchange = toolExchange(context, contextMessages(branchValues));
    result.contextError = null;
  } catch (error) {
    if (!(error instanceof UnbuildableContext)) throw error;
    Object.assign(result, { context: null, settings: null, toolExchange: null, contextError: error.message });
  }
  return sessionPath;
}

function diagnostics(session, tree, walk) {
  const read = session.diagnostics;
  const broken = tree.brokenLinks();
  const ids = (entries) => {
    const sample = new Sample();
    for (const entry of entries) sample.add(idText(entry.id));
    return sample.toJSON("ids");
  };
  const duplicates = new Sample();
  for (const id of tree.duplicateIds) duplicates.add(typeof id === "string" ? id : null);
  return {
    legacyVersion: session.legacyVersion,
    unsupportedVersion: session.unsupportedVersion,
    invalidHeaderFields: session.invalidHeaderFields,
    malformedLines: read.malformed.toJSON(),
    blankLines: read.blank.toJSON(),
    skippedFalsyLines: read.falsy.toJSON(),
    nonEntryLines: read.nonEntries.toJSON(),
    extraHeaderLines: read.extraHeaders.toJSON(),
    oversizeRecords: read.oversize.toJSON(),
    crlfLines: read.crlfLines,
    unterminatedTail: read.unterminatedTail,
    duplicateIds: duplicates.toJSON("ids"),
    brokenAncestry: {
      missingParents: ids(broken.missingParents),
      cycles: ids(broken.cycles),
      leafPathTruncated: Boolean(walk.missingParent !== null || walk.cycle),
    },
  };
}
