#!/usr/bin/env node
// js-stringify.mjs - line server: decode one tagged value per stdin line, answer JSON.stringify(value).
//
// Usage: node js-stringify.mjs   (one request per line on stdin, one answer per line on stdout)
//
// The tagged encoding (plain JSON, so it can carry what JSON text cannot: lone surrogates, -0,
// NaN, exact doubles, undefined, key order of index-like keys):
//   true | false | null        themselves
//   ["s", [u, ...]]            string given as its UTF-16 code units (0..65535), lone surrogates allowed
//   ["n", "<16 hex digits>"]   number given by its IEEE-754 binary64 bits, big-endian (e.g. "8000000000000000" = -0)
//   ["n", "NaN" | "Infinity" | "-Infinity" | "-0"]
//   ["d", "<JSON number text>"]  number as JSON.parse reads that text (e.g. "9007199254740993", "1E400")
//   ["a", [v, ...]]            array of tagged values
//   ["o", [[k, v], ...]]       object: keys (UTF-16 unit arrays) defined in this order with
//                              CreateDataProperty semantics (as JSON.parse does; "__proto__" is an own key)
//   ["u"]                      undefined
//
// Answer per request line: the text JSON.stringify(value) returns, on one line (it never contains a raw
// newline). An empty line means JSON.stringify returned undefined. A line starting with "!" reports a
// request that could not be decoded; the server keeps going.
import { createInterface } from "node:readline";

function units(list) {
  if (!Array.isArray(list)) throw new Error("string payload must be an array of UTF-16 code units");
  let s = "";
  for (let i = 0; i < list.length; i += 4096) {
    const chunk = list.slice(i, i + 4096);
    for (const u of chunk) {
      if (!Number.isInteger(u) || u < 0 || u > 0xffff) throw new Error(`bad UTF-16 code unit ${u}`);
    }
    s += String.fromCharCode(...chunk);
  }
  return s;
}

function number(payload) {
  switch (payload) {
    case "NaN": return Number.NaN;
    case "Infinity": return Number.POSITIVE_INFINITY;
    case "-Infinity": return Number.NEGATIVE_INFINITY;
    case "-0": return -0;
    default: {
      if (typeof payload !== "string" || !/^[0-9a-fA-F]{16}$/.test(payload)) throw new Error(`bad number payload ${payload}`);
      const view = new DataView(new ArrayBuffer(8));
      view.setBigUint64(0, BigInt(`0x${payload}`));
      return view.getFloat64(0);
    }
  }
}

function decode(t) {
  if (t === true || t === false || t === null) return t;
  if (!Array.isArray(t) || typeof t[0] !== "string") throw new Error(`bad tagged value ${JSON.stringify(t)}`);
  switch (t[0]) {
    case "s": return units(t[1]);
    case "n": return number(t[1]);
    case "d": {
      const v = JSON.parse(String(t[1]));
      if (typeof v !== "number") throw new Error(`not a JSON number: ${t[1]}`);
      return v;
    }
    case "a": return t[1].map(decode);
    case "o": {
      const obj = {};
      for (const [k, v] of t[1]) {
        Object.defineProperty(obj, units(k), { value: decode(v), writable: true, enumerable: true, configurable: true });
      }
      return obj;
    }
    case "u": return undefined;
    default: throw new Error(`unknown tag ${t[0]}`);
  }
}

const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of rl) {
  let answer;
  try {
    const text = JSON.stringify(decode(JSON.parse(line)));
    answer = text === undefined ? "" : text;
  } catch (err) {
    answer = `!${String(err?.message ?? err).replace(/[\r\n]+/g, " ")}`;
  }
  process.stdout.write(`${answer}\n`);
}
