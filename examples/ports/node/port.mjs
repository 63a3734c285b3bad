#!/usr/bin/env node
// An example port of recall-rebase in JavaScript: it serves the adapter protocol (version 1) on
// stdin/stdout, one JSON message per line (docs/INTERPRETING.md, schemas/adapter/v1).
//
//   → {"seq":1,"cmd":"start","protocolVersion":1}
//   ← {"seq":1,"ok":{"implementation":{...},"protocolVersion":1,"operations":[...]}}
//   → {"seq":2,"cmd":"request","op":"text.measure","params":{"text":"abc"}}
//   ← {"seq":2,"ok":{"utf16Length":3,"utf8Length":3,"tokens":1}}      a result
//   ← {"seq":2,"error":{"code":"invalid-params","message":"..."}}      a contract refusal
//   ← {"seq":2,"errored":true,"context":{"message":"...","stack":"..."}} the port broke
//   → {"seq":3,"cmd":"stop"}
//
// stdout carries protocol lines only; logs go to stderr. To port another operation, write its
// handler in lib/ and add it to OPERATIONS: the handshake declares exactly the keys of that table.
// Plain Node standard library, no npm packages: run it with `node port.mjs`.

import readline from "node:readline";

import { configSet, configShow, configUnset } from "./lib/config.mjs";
import { ContractError, oneLine } from "./lib/errors.mjs";
import { hostFacts } from "./lib/host.mjs";
import { sessionInspect, sessionNode, sessionRecords } from "./lib/inspect.mjs";
import { canonicalPath, canonicalize, measure, sessionDirName, slice } from "./lib/primitives.mjs";

process.env.TZ = "UTC"; // new Date("2025-06-01T12:00:00") reads as UTC, as the suite's oracle runs Pi

const PROTOCOL_VERSION = 1;

const IMPLEMENTATION = Object.freeze({ name: "recall-rebase-node-example", version: "0.1.0", language: "javascript" });

/** Every operation this port implements: name -> handler(params) -> result object. */
const OPERATIONS = Object.freeze({
  "json.canonicalize": canonicalize,
  "text.measure": measure,
  "text.slice": slice,
  "path.canonical": canonicalPath,
  "path.sessionDirName": sessionDirName,
  "session.records": sessionRecords,
  "session.inspect": sessionInspect,
  "session.node": sessionNode,
  "host.facts": hostFacts,
  "config.show": configShow,
  "config.set": configSet,
  "config.unset": configUnset,
});

function hello() {
  return { implementation: IMPLEMENTATION, protocolVersion: PROTOCOL_VERSION, operations: Object.keys(OPERATIONS) };
}

/** The response to one request message (its `seq` is echoed by the caller). */
function answer(message) {
  switch (message.cmd) {
    case "start":
      if (message.protocolVersion !== PROTOCOL_VERSION) {
        return refusal("unsupported-protocol-version", `this port speaks protocol version ${PROTOCOL_VERSION}`);
      }
      return { ok: hello() };
    case "request": {
      const handler = Object.hasOwn(OPERATIONS, message.op) ? OPERATIONS[message.op] : undefined;
      if (handler === undefined) return refusal("unknown-operation", `operation '${message.op}' is not implemented`);
      return { ok: handler(message.params ?? {}) };
    }
    case "stop":
      return { ok: {} };
    default:
      return refusal("unknown-command", `unknown cmd '${message.cmd}'`);
  }
}

function refusal(code, message) {
  return { error: { code, message: oneLine(message) } };
}

/** One input line to one output line (a result, a contract refusal, or "the port broke"), and
 * whether it was `stop`. */
function respond(line) {
  let seq = null;
  let stop = false;
  try {
    const message = JSON.parse(line);
    seq = Number.isInteger(message?.seq) ? message.seq : null;
    stop = message?.cmd === "stop";
    return { response: { seq, ...answer(message) }, stop };
  } catch (error) {
    if (error instanceof ContractError) return { response: { seq, ...refusal(error.code, error.message) }, stop };
    const context = { message: `${error.name}: ${error.message}`, traceback: String(error.stack) };
    return { response: { seq, errored: true, context }, stop };
  }
}

function serve() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  let stopped = false;
  lines.on("line", (line) => {
    if (stopped || line.trim() === "") return;
    const { response, stop } = respond(line);
    process.stdout.write(`${JSON.stringify(response)}\n`);
    if (stop) {
      stopped = true;
      lines.close();
    }
  });
  lines.on("close", () => console.error(`${IMPLEMENTATION.name}: stopped`));
  console.error(`${IMPLEMENTATION.name} ${IMPLEMENTATION.version}: serving protocol ${PROTOCOL_VERSION} on stdio`);
}

serve();
