"""History recall benchmark (issue "Explicit history recall"): figures, never assertions.

    python bench/run.py history                     # the full run: >= 1 GB, >= 1,000,000 entries
    python bench/run.py history --scale 0.05        # a quick run on a project 1/20 the size
    python bench/run.py history --gb 2 --entries 2000000 --json

A generated project (one folder of session files with the same ``cwd``) is made once under
``bench/out/`` and reused.  One of its sessions is the *current* one: its current leaf has
exactly ``--ancestors`` ancestors (100,000 by default).  Each measurement runs in its own child
process, so its peak RSS (Linux ``VmHWM``) is its own:

index     ``catch_up`` of every session file into an empty index (read, hash, decode, searchable
          text, rows, filter rows, locators, FTS, state), as a ratio of a bare FTS5 bulk insert of the same
          searchable texts (pre-extracted to a file) into an empty FTS5 table in the same run;
catch-up  ``catch_up`` after one entry is appended to the current session, as a ratio of a forced
          rebuild of that session (the file is restored afterwards);
recall    ``HistoryService.recall`` latency p50/p95 per scope over a fixed set of queries, on a
          warm index: a long-lived service (as in a host) and a fresh service per recall (the
          first recall after the host starts); project scope also in its plain form (one engine
          query per source, every sibling caught up on every call: the baseline of the target
          p95 <= 250 ms), and the first project recall of a new process (a one-shot);
floor     FTS5's own ``ORDER BY bm25 LIMIT 72`` of each query's match expression over the same
          project index (no per-session split, no filter, no verification), timed just before
          each project recall in the same child and rounds: ``project_floor_p95_ms`` beside
          ``project_p95_ms`` (issue 29: a ranking that keeps results unchanged scores every match);
read      ``HistoryService.read`` of a record just under the 4 MiB record limit, and the canonical
          verification alone, as a ratio of reading and hashing the record's bytes;
designs   with ``--designs``: the FTS pass of project recall in each design (bench/fts_designs.py),
          beside the floor, in CPU time (issue 29).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from fts_designs import FLOOR_SQL, FLOOR_TOP, work_designs  # bench/ is first on sys.path
from fts_designs import render as render_designs
from fts_designs import summary as designs_summary
from measure import (  # bench/ is first on sys.path
    OUT,
    ensure_reference_importable,
    peak_rss_bytes,
    run_worker,
)

ensure_reference_importable()

PROJECT_CWD = "/home/user/projects/demo"  # the header cwd of every session (it need not exist)
BYTES_PER_ENTRY = 515  # what the generator writes per entry on average (compactions 4, branches 4)
INDEX_TARGET = 0.6  # of a bare FTS5 bulk insert's speed
CATCHUP_TARGET = 100.0  # times faster than a full rebuild of the session
RECALL_P95_TARGET_MS = 50.0  # current-branch and current-session
PROJECT_P95_TARGET_MS = 250.0  # project scope over the 100 sessions (issue 13 item 3)
PROJECT_FLOOR_TARGET = 1.5  # project p95 at most this many times FTS5's own floor, same run (issue 29)
READ_TARGET = 3.0  # times bare read + hash of the record
RECORD_SPAN = 4 * 1024 * 1024 - 64  # bytes of the big record, LF included: just under the limit
BIG_MARKER = "BigRecordMarker"
TEXT_BATCH = 2048
QUERIES = (
    "why is retryWithBackoff slow on large inputs",
    "timeout error in handleRequest",
    "`src/cache.ts`",
    "exponential backoff",
    "rename flushCache everywhere",
    "what does scripts/build.mjs do",
    "Tests failed rejects empty input",
    "pangolin narwhal okapi",
    "Können wir normalizePath vereinfachen",
    "summary of the changes so far",
)
SCOPES = ("current-branch", "current-session", "project")
#: The recall figures: each scope, and project scope again in its plain form (the baseline).
RECALL_RUNS = (*SCOPES, "project-per-source")


# ----------------------------------------------------------------------------------------------
# helpers


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 1048576:.0f} MiB"


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (p95 of 20 samples is the 19th smallest)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def child(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter (``--worker`` of this script)."""
    return run_worker(__file__, kind, params)


# ----------------------------------------------------------------------------------------------
# the generated project


def _branch_of_last_entry(path: Path) -> tuple[list[str], int]:
    """The ids from the root to the last entry of the file (Pi's default leaf), and the entry count."""
    from reference.pi.exact.reader import RecordKind, iter_records, open_session_file

    parents: dict[str, Any] = {}
    last: str | None = None
    with open_session_file(path) as stream:
        for record in iter_records(stream):
            if record.kind is RecordKind.ENTRY and isinstance(record.id, str):
                parents[record.id] = record.parent_id
                last = record.id
    branch: list[str] = []
    seen: set[str] = set()
    node: Any = last
    while isinstance(node, str) and node in parents and node not in seen:
        seen.add(node)
        branch.append(node)
        node = parents[node]
    branch.reverse()
    return branch, len(parents)


def _big_record_line(parent_id: str, timestamp: str, ms: int) -> bytes:
    """A tool result whose line (with LF) is exactly RECORD_SPAN bytes: a long build log."""
    rng = random.Random(4)
    words = ("compile", "link", "bundle", "minify", "upload", "verify", "cache", "hit", "miss", "ok")
    lines = [f"{BIG_MARKER}: build log of the nightly release"]
    size = len(lines[0])
    while size < RECORD_SPAN - 4096:
        lines.append(f"[{len(lines):06d}] " + " ".join(rng.choice(words) for _ in range(12)))
        size += len(lines[-1]) + 2  # "\n" in JSON

    def line_for(text: str) -> bytes:
        entry = {
            "type": "message", "id": "bigrecord", "parentId": parent_id, "timestamp": timestamp,
            "message": {"role": "toolResult", "toolCallId": "call_big_0001", "toolName": "bash",
                        "content": [{"type": "text", "text": text}], "isError": False, "timestamp": ms},
        }
        return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")

    text = "\n".join(lines)
    data = line_for(text)
    text += "." * (RECORD_SPAN - len(data))  # one byte per "." in JSON
    data = line_for(text)
    assert len(data) == RECORD_SPAN, len(data)
    return data


def prepare(args: argparse.Namespace) -> dict[str, Any]:
    """Generate the project once (or reuse it) and return its manifest."""
    from reference.fixturegen.generator import generate
    from reference.fixturegen.options import GenOptions

    total_bytes = int(args.gb * args.scale * 1e9)
    min_entries = int(args.entries * args.scale)
    ancestors = max(10, int(args.ancestors * args.scale))
    sessions = max(4, int(args.sessions * min(1.0, args.scale * 4)))
    tag = f"history-{total_bytes // 1_000_000}mb-{min_entries}e-{ancestors}a-{sessions}s-seed{args.seed}"
    folder = OUT / tag
    manifest_path = folder / "manifest.json"
    if manifest_path.is_file():
        manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
        _restore_current(manifest)
        say(f"reusing the generated project {folder}")
        return manifest
    if folder.exists():
        shutil.rmtree(folder)  # an interrupted generation
    project = folder / "sessions"
    reads = folder / "read-session"
    project.mkdir(parents=True)
    reads.mkdir(parents=True)
    say(f"generating a project of >= {total_bytes / 1e6:.0f} MB and >= {min_entries} entries in {folder} ...")
    started = time.perf_counter()

    def progress(path: Path, size: int) -> None:  # every 8 MiB of a file
        if size % (32 * 1024 * 1024) < 8 * 1024 * 1024:
            say(f"  ... {path.name}: {size / 1e6:.0f} MB, {time.perf_counter() - started:.0f} s")

    # The current session: long enough that its last entry has more than `ancestors` ancestors.
    target = int((ancestors + 1) * BYTES_PER_ENTRY * 1.1)
    seed = args.seed
    while True:
        [current] = generate(project, GenOptions(seed=seed, target_bytes=target, compactions=4, branches=4,
                                                 cwd=PROJECT_CWD), progress)
        branch, count = _branch_of_last_entry(current.path)
        if len(branch) > ancestors:
            break
        current.path.unlink()
        target = int(target * 1.25)
    sizes = [current.path.stat().st_size]
    entries = [count]
    others = sessions - 1
    per_session = max(200_000, (total_bytes - sizes[0]) // max(1, others))
    k = 0
    while k < others or sum(sizes) < total_bytes or sum(entries) < min_entries:
        k += 1
        [made] = generate(project, GenOptions(seed=seed + 1000 + k, target_bytes=per_session, compactions=4,
                                              branches=4, cwd=PROJECT_CWD), progress)
        sizes.append(made.path.stat().st_size)
        entries.append(made.entry_count)
        if k % 10 == 0:
            say(f"  generated {k + 1} sessions, {sum(sizes) / 1e6:.0f} MB, {sum(entries)} entries,"
                f" {time.perf_counter() - started:.0f} s")
    # The read session: a small session plus one record just under the 4 MiB limit.
    [small] = generate(reads, GenOptions(seed=seed + 7, entries=40, cwd=PROJECT_CWD))
    assert small.leaf_id is not None
    with small.path.open("ab") as stream:
        stream.write(_big_record_line(small.leaf_id, "2025-06-01T18:00:00.000Z", 1_748_800_800_000))
    info = current.path.stat()
    manifest = {
        "project": str(project),
        "project_cwd": PROJECT_CWD,
        "sessions": len(sizes),
        "bytes": sum(sizes),
        "entries": sum(entries),
        "current": {
            "path": str(current.path),
            "session_id": current.session_id,
            "entries": count,
            "branch_length": len(branch),
            "leaf": branch[ancestors],
            "ancestors": ancestors,
            "default_leaf": branch[-1],
            "size": info.st_size,
            "mtime_ns": info.st_mtime_ns,
            "sha256": hashlib.sha256(current.path.read_bytes()).hexdigest(),
        },
        "read": {"path": str(small.path), "session_id": small.session_id, "record_bytes": RECORD_SPAN},
        "generate_seconds": time.perf_counter() - started,
    }
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    say(f"  done: {len(sizes)} sessions, {sum(sizes) / 1e6:.0f} MB, {sum(entries)} entries "
        f"in {manifest['generate_seconds']:.0f} s")
    return manifest


def _restore_current(manifest: dict[str, Any]) -> None:
    """Undo what an interrupted catch-up measurement appended to the current session."""
    current = manifest["current"]
    path = Path(current["path"])
    info = path.stat()
    if info.st_size != current["size"] or info.st_mtime_ns != current["mtime_ns"]:
        say(f"restoring {path.name} to its generated bytes")
        if info.st_size > current["size"]:
            os.truncate(path, current["size"])
        if hashlib.sha256(path.read_bytes()).hexdigest() != current["sha256"]:
            raise SystemExit(f"{path} differs from the generated bytes: delete {path.parent.parent} and rerun")
        os.utime(path, ns=(current["mtime_ns"], current["mtime_ns"]))


def session_files(manifest: dict[str, Any]) -> list[str]:
    return sorted(str(p) for p in Path(manifest["project"]).glob("*.jsonl"))


# ----------------------------------------------------------------------------------------------
# workers (each runs in its own child process)


def work_index(params: dict[str, Any]) -> dict[str, Any]:
    """Catch up every session of the project into an empty index."""
    from reference.recall.catchup import catch_up
    from reference.recall.index_schema import open_index

    db = Path(params["db"])
    remove_db(db)
    files: list[str] = params["files"]
    started = time.perf_counter()
    conn = open_index(db)
    indexed = malformed = 0
    current_seconds = 0.0
    for number, path in enumerate(files, 1):
        begun = time.perf_counter()
        state = catch_up(conn, path)
        if path == params["current"]:
            current_seconds = time.perf_counter() - begun
        indexed += state.indexed_entries
        malformed += state.malformed_lines
        if number % 10 == 0 or number == len(files):
            say(f"  indexed {number}/{len(files)} sessions, {indexed} entries, {time.perf_counter() - started:.0f} s")
    conn.close()
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "entries": indexed, "malformed": malformed, "current_seconds": current_seconds,
            "db_bytes": db.stat().st_size, "peak_rss": peak_rss_bytes()}


def work_dump(params: dict[str, Any]) -> dict[str, Any]:
    """Write the index's searchable texts, in FTS rowid order, as JSON arrays of 2,048 per line."""
    import msgspec

    conn = sqlite3.connect(f"file:{params['db']}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT e.searchable_text FROM entries_fts_keys AS k JOIN entries AS e ON e.entry_key = k.entry_key"
        " ORDER BY k.fts_rowid"
    )
    count = text_bytes = 0
    with open(params["texts"], "wb") as out:
        while batch := rows.fetchmany(TEXT_BATCH):
            texts = [text for (text,) in batch]
            count += len(texts)
            text_bytes += sum(len(text.encode("utf-8")) for text in texts)
            out.write(msgspec.json.encode(texts) + b"\n")
    conn.close()
    return {"rows": count, "text_bytes": text_bytes, "peak_rss": peak_rss_bytes()}


def _read_texts(path: str) -> Any:
    import msgspec

    decode = msgspec.json.Decoder(list[str]).decode
    with open(path, "rb") as stream:
        for line in stream:
            yield decode(line)


def work_bare(params: dict[str, Any]) -> dict[str, Any]:
    """FTS5 bulk insert of the texts into an empty table: the index benchmark's baseline."""
    db = Path(params["db"])
    remove_db(db)
    read_started = time.perf_counter()
    for _batch in _read_texts(params["texts"]):
        pass
    read_seconds = time.perf_counter() - read_started
    started = time.perf_counter()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL").fetchone()
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE VIRTUAL TABLE bare USING fts5(searchable_text, tokenize = 'unicode61 remove_diacritics 2')")
    conn.execute("BEGIN")
    rowid = 0
    for batch in _read_texts(params["texts"]):
        conn.executemany("INSERT INTO bare(rowid, searchable_text) VALUES (?, ?)",
                         [(rowid + n, text) for n, text in enumerate(batch, 1)])
        rowid += len(batch)
    conn.execute("COMMIT")
    conn.close()
    seconds = time.perf_counter() - started
    result = {"seconds": seconds, "read_seconds": read_seconds, "rows": rowid, "peak_rss": peak_rss_bytes()}
    remove_db(db)
    return result


def _append_line(path: Path, number: int, parent_id: str) -> None:
    entry = {
        "type": "message", "id": f"bench-append-{number}", "parentId": parent_id,
        "timestamp": f"2026-01-01T00:00:{number % 60:02d}.000Z",
        "message": {"role": "user", "content": f"appended entry {number} about flushCache", "timestamp": 1767225600000},
    }
    with path.open("ab") as stream:
        stream.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))


def work_catchup(params: dict[str, Any]) -> dict[str, Any]:
    """Append one entry at a time and catch up; then restore the file and rebuild."""
    from reference.recall.catchup import catch_up
    from reference.recall.index_schema import open_index

    current = params["current"]
    path = Path(current["path"])
    conn = open_index(params["db"])
    state = catch_up(conn, str(path))  # in step with the file (no-op)
    assert not state.rebuilt, state
    unchanged = []
    for _ in range(params["repeat"]):
        started = time.perf_counter()
        catch_up(conn, str(path))
        unchanged.append(time.perf_counter() - started)
    appends = []
    parent = current["default_leaf"]
    try:
        for number in range(1, params["repeat"] + 1):
            _append_line(path, number, parent)
            parent = f"bench-append-{number}"
            started = time.perf_counter()
            state = catch_up(conn, str(path))
            appends.append(time.perf_counter() - started)
            assert state.appended == 1 and not state.rebuilt, state
    finally:
        os.truncate(path, current["size"])
        os.utime(path, ns=(current["mtime_ns"], current["mtime_ns"]))
    started = time.perf_counter()
    state = catch_up(conn, str(path))  # the file shrank: a full rebuild that deletes the appended rows
    shrank = time.perf_counter() - started
    assert state.rebuilt, state
    forced = []
    for _ in range(max(1, params["repeat"] // 2)):
        started = time.perf_counter()
        state = catch_up(conn, str(path), force=True)
        forced.append(time.perf_counter() - started)
    conn.close()
    return {"append_seconds": appends, "unchanged_seconds": unchanged, "shrank_rebuild_seconds": shrank,
            "forced_rebuild_seconds": forced, "entries": state.indexed_entries, "peak_rss": peak_rss_bytes()}


def _service(params: dict[str, Any], session: dict[str, Any], leaf: Any) -> Any:
    from reference.config.defaults import default_config
    from reference.primitives.clock import SystemClock
    from reference.recall.service import HistoryHost, HistoryService

    config = default_config()
    config["historyTools"]["allowProjectScope"] = True
    host = HistoryHost(session_file=session["path"], project_path=PROJECT_CWD, project_trusted=True, config=config,
                       provider="anthropic", leaf=leaf, session_id=session["session_id"])
    return HistoryService(host, index_path=params["db"], clock=SystemClock())


def _per_source_forms() -> None:
    """Project scope as before issue 13: one engine query per source, and every sibling's header
    read and catch-up asked on every recall (the plain forms tests/recall/test_project_fast_path.py
    compares the fast paths with)."""
    import reference.recall.recall_tool as recall_tool
    from reference.recall.project_scope import ProjectSessions
    from reference.recall.scope import ScopeResolver

    retrieve = recall_tool.retrieve

    def per_source(conn: Any, sources: Any, query: Any) -> Any:
        return [retrieve(conn, [source], query)[0] for source in sources]

    recall_tool.retrieve = per_source  # type: ignore[assignment]
    plain_init = ScopeResolver.__init__

    def forgetting_init(self: Any) -> None:
        plain_init(self)
        self._project = ProjectSessions(remember=False)

    ScopeResolver.__init__ = forgetting_init  # type: ignore[method-assign]


class _Floor:
    """FTS5's own ranking of one query over the whole index: ``ORDER BY bm25 LIMIT 72`` of the
    recall's match expression, on a read-only connection of its own (the floor of issue 29)."""

    def __init__(self, db: str) -> None:
        from reference.recall.candidate_rows import fts_match_expression
        from reference.recall.query_terms import describe_query

        self.conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        self.matches = [fts_match_expression(describe_query(query).terms) for query in QUERIES]

    def ms(self, index: int) -> tuple[float, float] | None:
        """Wall and CPU milliseconds of the bare statement for ``QUERIES[index]``; None when it has
        no terms."""
        match = self.matches[index]
        if not match:
            return None
        started, cpu = time.perf_counter(), time.process_time()
        self.conn.execute(FLOOR_SQL, (match,)).fetchall()
        return (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000


def work_recall(params: dict[str, Any]) -> dict[str, Any]:
    """Recall latency of one scope: a long-lived service, then a fresh service per recall.  With
    ``floor``, FTS5's bare ranking of each query is timed just before its recall (same rounds)."""
    if params.get("per_source"):
        _per_source_forms()
    scope = params["scope"]
    current = params["current"]
    service = _service(params, current, current["leaf"])
    floor = _Floor(params["db"]) if params.get("floor") else None
    queries = [{"query": query, "scope": scope, "limit": 12, "maxOutputTokens": 6000} for query in QUERIES]
    first = time.perf_counter()
    warm = [service.recall(query).as_json() for query in queries]  # warms the page cache and the service
    if floor is not None:
        for index in range(len(QUERIES)):
            floor.ms(index)
    warmup_seconds = time.perf_counter() - first
    statuses = sorted({result["status"] for result in warm})
    hits = sum(len(result.get("hits", ())) for result in warm)
    warnings = sorted({code for result in warm for code in result["warnings"]})
    latencies: list[float] = []
    cpu_ms: list[float] = []  # process CPU time of each recall: less moved by other work on the machine
    floor_ms: list[float] = []
    floor_cpu_ms: list[float] = []
    budget_end = time.perf_counter() + params["seconds"]
    for _round in range(params["rounds"]):
        for index, query in enumerate(queries):
            if floor is not None and (bare := floor.ms(index)) is not None:
                floor_ms.append(bare[0])
                floor_cpu_ms.append(bare[1])
            started, cpu = time.perf_counter(), time.process_time()
            service.recall(query)
            latencies.append((time.perf_counter() - started) * 1000)
            cpu_ms.append((time.process_time() - cpu) * 1000)
        if time.perf_counter() > budget_end:
            break
    fresh: list[float] = []
    budget_end = time.perf_counter() + params["seconds"]
    for query in queries[: params["fresh"]]:
        started = time.perf_counter()
        _service(params, current, current["leaf"]).recall(query)
        fresh.append((time.perf_counter() - started) * 1000)
        if time.perf_counter() > budget_end:
            break
    return {"scope": scope, "latencies_ms": latencies, "cpu_ms": cpu_ms, "fresh_ms": fresh, "floor_ms": floor_ms,
            "floor_cpu_ms": floor_cpu_ms,
            "warmup_seconds": warmup_seconds, "statuses": statuses, "hits": hits, "warnings": warnings,
            "peak_rss": peak_rss_bytes()}


def work_oneshot(params: dict[str, Any]) -> dict[str, Any]:
    """The first project recall of a new process (a one-shot): the service made and one query."""
    current = params["current"]
    started = time.perf_counter()
    service = _service(params, current, current["leaf"])
    result = service.recall({"query": QUERIES[params["query"]], "scope": "project", "limit": 12,
                             "maxOutputTokens": 6000}).as_json()
    return {"ms": (time.perf_counter() - started) * 1000, "status": result["status"],
            "hits": len(result.get("hits", ())), "peak_rss": peak_rss_bytes()}


def work_read(params: dict[str, Any]) -> dict[str, Any]:
    """Read of the big record through the read tool and through source verification alone."""
    from reference.privacy.entry import EntryFindings
    from reference.recall.index_schema import open_index
    from reference.recall.source_verify import verify_source

    session = params["read"]
    path = session["path"]
    from reference.pi.leaf import DEFAULT_LEAF

    service = _service(params, session, DEFAULT_LEAF)
    found = service.recall({"query": f"`{BIG_MARKER}`", "scope": "current-session", "limit": 1}).as_json()
    hits = [hit for hit in found.get("hits", ()) if hit["entryId"] == "bigrecord"]
    if not hits:
        raise SystemExit(f"the big record was not recalled: {found}")
    ref = hits[0]["sourceRef"]
    conn = open_index(params["db"])
    start, end = conn.execute("SELECT start_offset, end_offset FROM entry_source_locations WHERE entry_key = ?",
                              (f"{session['session_id']}:bigrecord",)).fetchone()
    content_hash = conn.execute("SELECT content_hash FROM entries WHERE entry_key = ?",
                                (f"{session['session_id']}:bigrecord",)).fetchone()[0]
    conn.close()
    repeat = params["repeat"]

    def bare() -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            data = os.pread(fd, end - start, start)
        finally:
            os.close(fd)
        hashlib.sha256(data[:-1]).hexdigest()

    def verify() -> None:
        verify_source(session_file=path, session_id=session["session_id"], project_path=PROJECT_CWD,
                      entry_id="bigrecord", content_hash=content_hash, start=start, end=end)

    def read() -> None:
        result = service.read({"sourceRef": ref}).as_json()
        if result["status"] not in ("complete", "partial"):
            raise SystemExit(f"read failed: {result}")

    def read_first() -> None:  # nothing remembered: the privacy findings are computed afresh
        service.findings = EntryFindings()
        read()

    def recall() -> None:
        service.recall({"query": f"`{BIG_MARKER}`", "scope": "current-session", "limit": 1})

    timings: dict[str, list[float]] = {}
    for name, run in (("bare", bare), ("verify", verify), ("read", read), ("read_first", read_first),
                      ("recall", recall)):
        run()  # warm
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            run()
            samples.append(time.perf_counter() - started)
        timings[name] = samples
    return {"record_bytes": end - start, "timings": timings, "peak_rss": peak_rss_bytes()}


def work_rss_base(_params: dict[str, Any]) -> dict[str, Any]:
    """The interpreter with the reference imported: what every child starts from."""
    import reference.recall.service  # noqa: F401

    return {"peak_rss": peak_rss_bytes()}


WORKERS = {"designs": work_designs, "index": work_index, "dump": work_dump, "bare": work_bare, "catchup": work_catchup,
           "recall": work_recall, "oneshot": work_oneshot, "read": work_read, "rss-base": work_rss_base}


# ----------------------------------------------------------------------------------------------
# the run


def run(args: argparse.Namespace) -> dict[str, Any]:
    began = time.perf_counter()
    unknown = sorted(set(args.recall_only or ()) - set(RECALL_RUNS))
    if unknown:
        raise SystemExit(f"--recall-only: unknown runs {', '.join(unknown)} (known: {', '.join(RECALL_RUNS)})")
    manifest = prepare(args)
    folder = Path(manifest["project"]).parent
    db = folder / "index.sqlite"
    texts = folder / "texts.jsonl"
    files = [*session_files(manifest), manifest["read"]["path"]]
    current = manifest["current"]
    report: dict[str, Any] = {"project": {k: manifest[k] for k in ("sessions", "bytes", "entries")},
                              "current": current, "read_session": manifest["read"]}
    report["rss_base"] = child("rss-base", {})["peak_rss"]
    if (args.reuse_index or args.recall_only) and db.is_file():
        say(f"reusing the index {db} (no index figures)")
    else:
        say(f"index: catch_up of {len(files)} session files into an empty index ...")
        report["index"] = child("index", {"db": str(db), "files": files, "current": current["path"]})
        say("index: extracting the searchable texts for the baseline ...")
        report["texts"] = child("dump", {"db": str(db), "texts": str(texts)})
        say("index: bare FTS5 bulk insert of the same texts ...")
        report["bare"] = child("bare", {"db": str(folder / "bare.sqlite"), "texts": str(texts)})
        texts.unlink(missing_ok=True)
    if args.recall_only:
        say("recall figures only (no catch-up or read figure: the session files are not touched)")
    else:
        say("catch-up: append one entry, then a full rebuild of the current session ...")
        report["catchup"] = child("catchup", {"db": str(db), "current": current, "repeat": args.repeat})
    report["recall"] = {}
    for run_name in args.recall_only or RECALL_RUNS:
        scope = "project" if run_name.startswith("project") else run_name
        say(f"recall: scope {run_name} ...")
        seconds = args.recall_seconds * (2 if scope == "project" else 1)
        report["recall"][run_name] = child("recall", {
            "db": str(db), "current": current, "scope": scope, "rounds": args.rounds, "seconds": seconds,
            "fresh": len(QUERIES) if scope != "project" else 3, "per_source": run_name == "project-per-source",
            "floor": run_name == "project",
        })
    if "project" in report["recall"]:
        project_run = report["recall"]["project"]
        report["project_p95_ms"] = percentile(project_run["latencies_ms"], 0.95)
        report["project_floor_p95_ms"] = percentile(project_run["floor_ms"], 0.95)
        report["project_floor_ratio"] = report["project_p95_ms"] / report["project_floor_p95_ms"]
        report["project_cpu_p95_ms"] = percentile(project_run["cpu_ms"], 0.95)
        report["project_floor_cpu_p95_ms"] = percentile(project_run["floor_cpu_ms"], 0.95)
        report["project_floor_cpu_ratio"] = report["project_cpu_p95_ms"] / report["project_floor_cpu_p95_ms"]
    if args.designs:
        say("designs: the FTS pass of project recall in each design, beside FTS5's floor ...")
        report["designs"] = child("designs", {"db": str(db), "queries": list(QUERIES), "rounds": args.rounds})
        report["designs_floor_ratio"] = designs_summary(report["designs"])
    if not args.recall_only or "project" in args.recall_only:
        say("recall: the first project recall of a new process, three queries ...")
        report["oneshot"] = [child("oneshot", {"db": str(db), "current": current, "query": index})
                             for index in (0, 6, 7)]
    if not args.recall_only:
        say("read: the record just under 4 MiB ...")
        report["read"] = child("read", {"db": str(db), "read": manifest["read"], "repeat": max(5, args.repeat * 2)})
    report["seconds"] = time.perf_counter() - began
    return report


def print_report(report: dict[str, Any]) -> None:
    project = report["project"]
    current = report["current"]
    print(f"history recall benchmark: {project['sessions']} sessions, {project['bytes'] / 1e6:,.0f} MB of JSONL,"
          f" {project['entries']:,} entries; current session {current['entries']:,} entries,"
          f" leaf with {current['ancestors']:,} ancestors")
    print(f"every child process starts at {mib(report['rss_base'])} RSS (the interpreter with the reference imported)")
    if "index" in report:
        index, bare, texts = report["index"], report["bare"], report["texts"]
        ratio = bare["seconds"] / index["seconds"]
        print()
        print(f"initial index (target >= {INDEX_TARGET} of a bare FTS5 bulk insert)")
        print("  index: catch_up of every file into an empty index: read, SHA-256 and decode every line,")
        print("         render searchable text, insert entries (+2 indexes), FTS keys, filter rows, FTS rows, locators,")
        print(f"         state; one transaction per session: {index['seconds']:.1f} s,"
              f" {project['bytes'] / 1e6 / index['seconds']:.1f} MB/s, {index['entries'] / index['seconds']:,.0f}"
              f" entries/s, peak RSS {mib(index['peak_rss'])}, database {index['db_bytes'] / 1e6:,.0f} MB")
        print(f"  bare:  executemany INSERT of the same {texts['rows']:,} searchable texts ({texts['text_bytes'] / 1e6:,.0f}"
              f" MB, pre-extracted, read back in batches of {TEXT_BATCH}: {bare['read_seconds']:.1f} s of it)")
        print(f"         into an empty FTS5 table (unicode61 remove_diacritics 2), WAL, one transaction:"
              f" {bare['seconds']:.1f} s, peak RSS {mib(bare['peak_rss'])}")
        print(f"  ratio: {ratio:.3f}  ({'met' if ratio >= INDEX_TARGET else 'MISSED'})")
    if "catchup" in report:
        _print_catchup(report)
    _print_recall(report)
    if "designs" in report:
        print()
        print("\n".join(render_designs(report["designs"])))
    if "read" in report:
        _print_read(report)
    print()
    print(f"total {report['seconds']:.0f} s")


def _print_catchup(report: dict[str, Any]) -> None:
    catchup = report["catchup"]
    append = statistics.median(catchup["append_seconds"])
    forced = min(catchup["forced_rebuild_seconds"])
    print()
    print(f"catch-up of the current session ({catchup['entries']:,} entries) after one appended entry"
          f" (target >= {CATCHUP_TARGET:.0f}x faster than a full rebuild)")
    print(f"  append one entry: median {append * 1000:.1f} ms of {len(catchup['append_seconds'])};"
          f" unchanged file: median {statistics.median(catchup['unchanged_seconds']) * 1000:.1f} ms")
    print(f"  full rebuild: forced {forced:.2f} s; after the file shrank {catchup['shrank_rebuild_seconds']:.2f} s"
          + (f"; initial build of this session {report['index']['current_seconds']:.2f} s" if "index" in report else ""))
    speedup = forced / append
    print(f"  ratio: {speedup:,.0f}x  ({'met' if speedup >= CATCHUP_TARGET else 'MISSED'}),"
          f" peak RSS {mib(catchup['peak_rss'])}")


def _print_recall(report: dict[str, Any]) -> None:
    project = report["project"]
    print()
    print(f"recall latency, warm index, {len(QUERIES)} fixed queries, limit 12, maxOutputTokens 6000"
          f" (target p95 <= {RECALL_P95_TARGET_MS:.0f} ms for current-branch and current-session)")
    print(f"  {'scope':<16} {'service':<8} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  {'peak RSS':>9}  target")
    for scope, result in report["recall"].items():
        for label, samples in (("kept", result["latencies_ms"]), ("fresh", result["fresh_ms"])):
            if not samples:
                continue
            p95 = percentile(samples, 0.95)
            target = PROJECT_P95_TARGET_MS if scope == "project" else RECALL_P95_TARGET_MS
            verdict = "-" if scope == "project-per-source" else "met" if p95 <= target else "MISSED"
            print(f"  {scope:<16} {label:<8} {len(samples):>4} {percentile(samples, 0.5):>8.1f} {p95:>8.1f}"
                  f" {max(samples):>8.1f}  {mib(result['peak_rss']):>9}  {verdict if label == 'kept' else ''}")
        print(f"  {'':<16} {result['hits']} hits over the queries; status {'/'.join(result['statuses'])};"
              f" warnings {', '.join(result['warnings']) or 'none'}")
    print("  kept = one long-lived service (as a host keeps it); fresh = a new service per recall (the first")
    print("  recall after a host start, with nothing cached in the process)")
    if "project-per-source" in report["recall"]:
        fast, plain = report["recall"]["project"]["latencies_ms"], report["recall"]["project-per-source"]["latencies_ms"]
        p95 = percentile(fast, 0.95)
        print(f"  project scope (target p95 <= {PROJECT_P95_TARGET_MS:.0f} ms over {project['sessions']} sessions):"
              f" p50 / p95 {percentile(fast, 0.5):,.0f} / {p95:,.0f} ms"
              f" ({'met' if p95 <= PROJECT_P95_TARGET_MS else 'MISSED'}); per source, as before, in the same run:"
              f" {percentile(plain, 0.5):,.0f} / {percentile(plain, 0.95):,.0f} ms")
    if "project_floor_p95_ms" in report:
        ratio = report["project_floor_ratio"]
        print(f"  project p95 {report['project_p95_ms']:,.0f} ms vs FTS5's own ORDER BY bm25 LIMIT {FLOOR_TOP}"
              f" over the same index and queries, same rounds: p95 {report['project_floor_p95_ms']:,.0f} ms ="
              f" {ratio:.2f}x (target <= {PROJECT_FLOOR_TARGET}x: {'met' if ratio <= PROJECT_FLOOR_TARGET else 'MISSED'})")
        print(f"  the same in process CPU time (less moved by other work on the machine):"
              f" {report['project_cpu_p95_ms']:,.0f} vs {report['project_floor_cpu_p95_ms']:,.0f} ms ="
              f" {report['project_floor_cpu_ratio']:.2f}x")
    for shot in report.get("oneshot", ()):
        print(f"  first project recall of a new process: {shot['ms']:,.0f} ms ({shot['hits']} hits),"
              f" peak RSS {mib(shot['peak_rss'])}")
    floor = report["recall"].get("project", {}).get("floor_ms")
    with_floor = bool(floor) and len(floor) == len(report["recall"]["project"]["latencies_ms"])
    print(f"  median ms per query (kept): {'':<28}" + "".join(f"{scope:>19}" for scope in report["recall"])
          + (f"{'floor (bm25 top ' + str(FLOOR_TOP) + ')':>21}" if with_floor else ""))
    for index, query in enumerate(QUERIES):
        medians = [statistics.median(result["latencies_ms"][index :: len(QUERIES)] or [math.nan])
                   for result in report["recall"].values()]
        floor_median = f"{statistics.median(floor[index :: len(QUERIES)]):>21,.1f}" if with_floor else ""
        print(f"    {query[:52]:<52}" + "".join(f"{value:>19,.1f}" for value in medians) + floor_median)


def _print_read(report: dict[str, Any]) -> None:
    read = report["read"]
    timings = {name: statistics.median(values) for name, values in read["timings"].items()}
    print()
    print(f"read of a {read['record_bytes']:,} byte record (limit 4 MiB) (target <= {READ_TARGET:.0f}x bare)")
    print(f"  bare: pread of the record + SHA-256: {timings['bare'] * 1000:.1f} ms")
    for name, label in (("verify", "verify_source (open, header, pread, SHA-256, JSON.parse)"),
                        ("read", "context_history_read (scope, verify, privacy, lines, budget)"),
                        ("read_first", "the same, privacy findings not remembered (a read without recall)"),
                        ("recall", "recall that finds it (verify, privacy, excerpt)")):
        if name not in timings:  # a report of an earlier version
            continue
        ratio = timings[name] / timings["bare"]
        verdict = "" if name not in ("verify", "read") else f"  ({'met' if ratio <= READ_TARGET else 'MISSED'})"
        print(f"  {label}: {timings[name] * 1000:.1f} ms = {ratio:.1f}x{verdict}")
    print(f"  peak RSS {mib(read['peak_rss'])}")


def build_parser() -> argparse.ArgumentParser:
    """The options, also read by bench/audit.py to find the same generated project."""
    parser = argparse.ArgumentParser(prog="python bench/run.py history", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "PARAMS"), help=argparse.SUPPRESS)
    parser.add_argument("--gb", type=float, default=1.0, help="JSONL of the project, in GB (default 1)")
    parser.add_argument("--entries", type=int, default=1_000_000, help="minimum entries of the project")
    parser.add_argument("--ancestors", type=int, default=100_000, help="ancestors of the current leaf")
    parser.add_argument("--sessions", type=int, default=100, help="session files of the project (default 100)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply gb, entries and ancestors (0.05 for a quick run)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the fixed queries per scope")
    parser.add_argument("--recall-seconds", type=float, default=60.0,
                        help="stop a scope's rounds after this long (twice this for project scope)")
    parser.add_argument("--repeat", type=int, default=5, help="appends and rebuilds of the catch-up figure")
    parser.add_argument("--reuse-index", action="store_true",
                        help="keep the index of an earlier run (skips the initial index figure; for development)")
    parser.add_argument("--recall-only", type=lambda text: [name for name in text.split(",") if name],
                        metavar="RUNS", help="only these recall runs, comma-separated, of: " + ", ".join(RECALL_RUNS)
                        + " (no catch-up or read figure, so no session file is written; implies --reuse-index)")
    parser.add_argument("--designs", action="store_true",
                        help="also time designs of project recall's FTS pass beside FTS5's floor (bench/fts_designs.py)")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.worker:
        kind, params = args.worker
        print(json.dumps(WORKERS[kind](json.loads(params))))
        return 0
    report = run(args)
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
