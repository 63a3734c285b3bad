#!/usr/bin/env node
// pi_open.mjs - Pi 0.84.3's own open of a session, for bench/privacy.py (the baseline of the 4 MiB read).
//
// Usage:
//   node pi_open.mjs <session.jsonl> [repeat]
//
// What Pi does when a user resumes a session: SessionManager.open(file), then buildSessionContext().
// The session is never opened in place: every open is of a fresh private copy (Pi may rewrite a file on
// open), made before its timer starts, in a 0700 temp folder removed at exit.
//
// repeat = 0 (the default): one open, timed; the cold figure is the wall time of this whole process,
//   measured by the caller (Node start, Pi's import, the open and the context).
// repeat = N > 0: the warm figure: after one untimed open, N timed opens in this process.
//
// Output: one JSON line {"pi", "importMs", "openMs": [...], "contextMessages", "entries"}.
// Exit code 2 on a usage error, 1 when Pi cannot be loaded or throws (the message on stderr).
//
// Env: PI_PKG = package dir (default <repo>/oracle/node_modules/@earendil-works/pi-coding-agent)
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [file, repeatText = "0"] = process.argv.slice(2);
const repeat = Number(repeatText);
if (!file || !Number.isInteger(repeat) || repeat < 0 || process.argv.length > 4) {
  console.error("usage: node pi_open.mjs <session.jsonl> [repeat]");
  process.exit(2);
}

const PKG = process.env.PI_PKG ?? join(import.meta.dirname, "..", "oracle", "node_modules", "@earendil-works", "pi-coding-agent");
const work = mkdtempSync(join(tmpdir(), "pi-open-bench-"));
chmodSync(work, 0o700);
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

try {
  const started = performance.now();
  const { SessionManager } = await import(pathToFileURL(join(PKG, "dist", "index.js")).href);
  const importMs = performance.now() - started;
  const version = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")).version;
  const source = resolve(file);
  let seq = 0;
  const openOnce = () => {
    const copy = join(work, `session-${++seq}.jsonl`);
    copyFileSync(source, copy);
    chmodSync(copy, 0o600);
    const t0 = performance.now();
    const sm = SessionManager.open(copy);
    const context = sm.buildSessionContext();
    const ms = performance.now() - t0;
    rmSync(copy, { force: true });
    return { ms, messages: context.messages.length, entries: sm.getEntries().length };
  };
  const runs = [];
  let last = openOnce();
  if (repeat === 0) {
    runs.push(last.ms);
  } else {
    for (let i = 0; i < repeat; i++) {
      last = openOnce();
      runs.push(last.ms);
    }
  }
  process.stdout.write(
    `${JSON.stringify({ pi: version, importMs, openMs: runs, contextMessages: last.messages, entries: last.entries })}\n`,
  );
} catch (err) {
  console.error(`pi_open.mjs: ${String(err?.message ?? err)}`);
  process.exitCode = 1;
}
