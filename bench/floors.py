"""The floors under two of issue 13's targets, measured beside them in the same run.

    python bench/run.py floors                      # 100 MB and 1 GB, median of 3
    python bench/run.py floors --sizes 100 --json

Two targets of issue 13 were missed (``session inspect`` at most 1.0x Pi's open; project recall
at p95 250 ms).  This prints what the work itself costs with the fastest well-kept tools, so the
gap can be read as a floor rather than a tuning problem:

decode     every line of the session decoded by ``msgspec.json`` (``json.loads`` for the few lines
           it refuses, lone surrogates), in a fresh process: what any inspection that must know every
           entry pays before it builds anything, beside Pi's open of the same file (``bench/user.py``);
inspect    ``recall-rebase session inspect --json``, the command (bench/user.py measures it too);
bm25       FTS5's own ranking of each of the history benchmark's queries over the index of the same
           session (``bm25`` top 72 and every match, no per-session split, no filters, no
           verification): a ranking that keeps results unchanged scores every match, so a recall
           cannot be faster than this.  The session is the issue's generated one (1 GB: 1.9 M
           entries, as many as the history benchmark's 100-session project).

Figures, never assertions.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

from history import PROJECT_P95_TARGET_MS, QUERIES  # bench/ is first on sys.path
from user import OUT, SEED, _child_env, _measured, _pi_open, _session

TOP: Final = 72  # the candidate window of a 12-result recall (reference.recall.retrieval)

_DECODE: Final = """
import json, sys, time, msgspec
decoder = msgspec.json.Decoder()
started = time.perf_counter()
with open(sys.argv[1], "rb") as stream:
    for line in stream:
        if line.strip():
            try:
                decoder.decode(line)
            except msgspec.DecodeError:
                json.loads(line)
print(time.perf_counter() - started)
"""


def _decode(session: Path, repeat: int) -> dict[str, Any]:
    """Seconds to decode every line, inside a fresh process (its start excluded)."""
    runs = [float(subprocess.run([sys.executable, "-c", _DECODE, str(session)], capture_output=True, text=True,
                                 check=True).stdout) for _ in range(repeat)]
    return {"seconds": statistics.median(runs)}


def _index(session: Path, size_mb: int) -> Path:
    """The index the user benchmark builds beside the session (built here when it is missing)."""
    index = OUT / f"user-{size_mb}mb-seed{SEED}.index" / "index.sqlite"
    if not index.exists():
        index.parent.mkdir(mode=0o700, exist_ok=True)
        cwd = json.loads(session.open("rb").readline())["cwd"]
        print(f"{size_mb} MB: index build (once) ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "reference.cli", "history", "index", "--session", str(session),
                        "--index", str(index), "--cwd", cwd, "--json"], env=_child_env(), check=True,
                       stdout=subprocess.DEVNULL)
    return index


def _bm25(index: Path, repeat: int) -> list[dict[str, Any]]:
    """FTS5's own ranking of each query: best of ``repeat`` (the floor, not a typical figure)."""
    from reference.recall.candidate_rows import fts_match_expression
    from reference.recall.query_terms import describe_query

    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    rows = []
    for query in QUERIES:
        match = fts_match_expression(describe_query(query).terms)
        if not match:
            continue
        timings = {}
        for label, sql in (("top", f"SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? "
                                   f"ORDER BY bm25(entries_fts) LIMIT {TOP}"),
                           ("every", "SELECT rowid, bm25(entries_fts) FROM entries_fts WHERE entries_fts MATCH ?")):
            best = float("inf")
            for _ in range(repeat):
                started = time.perf_counter()
                found = conn.execute(sql, (match,)).fetchall()
                best = min(best, time.perf_counter() - started)
            timings[label] = best * 1000
            if label == "every":
                timings["matches"] = len(found)
        rows.append({"query": query, "top_ms": timings["top"], "every_ms": timings["every"],
                     "matches": timings["matches"]})
    conn.close()
    return rows


def measure_size(size_mb: int, repeat: int) -> dict[str, Any]:
    session = _session(size_mb)
    result: dict[str, Any] = {"file_bytes": session.stat().st_size, "session": str(session)}
    print(f"{size_mb} MB: Pi's open, decode, inspect, median of {repeat} ...", file=sys.stderr, flush=True)
    result["pi"] = _pi_open(session, repeat)
    result["decode"] = _decode(session, repeat)
    inspect = [_measured([sys.executable, "-m", "reference.cli", "session", "inspect", str(session), "--json"],
                         env=_child_env(), keep_output=False) for _ in range(repeat)]
    result["inspect"] = {"seconds": statistics.median(run["seconds"] for run in inspect)}
    print(f"{size_mb} MB: FTS5 bm25 of {len(QUERIES)} queries ...", file=sys.stderr, flush=True)
    result["bm25"] = _bm25(_index(session, size_mb), repeat)
    return result


def render(results: list[dict[str, Any]]) -> None:
    print("floors under issue 13's missed targets, beside them in the same run")
    for size in results:
        pi = size["pi"]
        opened = pi["open"] if pi.get("measured") else None
        print(f"\n{size['file_bytes'] / 1e6:.0f} MB session")
        if opened is None:
            print(f"  Pi's open: not measured ({pi.get('why')})")
        else:
            print(f"  {'pi open':<22} {opened:>7.2f} s   1.00x")
        for name, label in (("decode", "decode every line"), ("inspect", "session inspect")):
            seconds = size[name]["seconds"]
            ratio = f"{seconds / opened:.2f}x" if opened else "n/a"
            print(f"  {label:<22} {seconds:>7.2f} s {ratio:>7}   (target for inspect: 1.00x)")
        print(f"  FTS5 bm25, best of runs: top {TOP} / every match (project target p95 "
              f"{PROJECT_P95_TARGET_MS:.0f} ms)")
        for row in sorted(size["bm25"], key=lambda row: -row["top_ms"]):
            print(f"    {row['query'][:40]:<42} {row['top_ms']:>7.0f} ms {row['every_ms']:>7.0f} ms"
                  f"   {row['matches']:>9,} matches")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python bench/run.py floors", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000", help="session sizes in MB, comma-separated (default 100,1000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure")
    parser.add_argument("--json", action="store_true", help="one JSON document")
    args = parser.parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    results = [measure_size(size, max(1, args.repeat)) for size in sizes]
    if args.json:
        print(json.dumps({"floors": results}))
    else:
        render(results)
    return 0
