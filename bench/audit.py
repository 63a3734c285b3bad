"""Audit benchmark (issue 10 item 8): figures, never assertions.

    python bench/run.py audit                       # the 1 GB project of the history benchmark
    python bench/run.py audit --scale 0.2 --repeat 1    # a quick run on a project 1/5 the size
    python bench/run.py audit --memory-limit 2GB --low-memory-limit 256MB --json

The project is the history benchmark's (bench/history.py: the same generator and options, the
same folder under ``bench/out/history-*/``, generated once and reused), and so is its index
(``index.sqlite`` beside it, built by the history benchmark's own ``index`` worker when missing).
Every measurement runs in its own child process, so its peak RSS (Linux ``VmHWM``) is its own;
the rounds are interleaved (each kind once per round, the fastest of ``--repeat`` counts), so a
machine shared with other work slows every kind alike:

sha256     one bare ``hashlib.sha256`` pass over the same JSONL bytes in 1 MiB reads (it also
           warms the page cache for the rest of the round);
bare       the baseline: DuckDB's bare ``read_json(format='newline_delimited', ignore_errors=true)``
           of the same files, ``id``, ``type`` and ``timestamp`` as VARCHAR into a table, in an
           ``offline_connection`` with the same ``memory_limit``; every figure is a ratio of it;
canonical  ``load_canonical`` alone in an ``offline_connection`` (``jsonl_*`` views), timed around
           the call, at ``--memory-limit`` and again at ``--low-memory-limit`` (DuckDB spills to its
           temporary folder beyond it: peak RSS shows what memory follows);
command    the command a user runs, as a subprocess, interpreter start and imports included
           (``--command``, a template; by default ``audit sql "SELECT count(*) FROM jsonl_lines"``,
           which loads both sides, seals the connection and answers one query), at both limits; its
           peak RSS and CPU time are the command's own (``RUSAGE_CHILDREN`` of the child that
           waited for it).

Each figure is given as wall-clock seconds and as CPU seconds (all threads), each as a ratio of
the bare read's: on a machine shared with other work the CPU figures move less.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from measure import ensure_reference_importable, peak_rss_bytes, run_worker  # bench/ is first on sys.path

ensure_reference_importable()

TARGET_RATIO = 3.0  # the audit of a 1 GB project: at most 3x DuckDB's bare read of the same JSONL
CHUNK = 1024 * 1024
DEFAULT_COMMAND = ('{python} -m reference.cli audit sql "SELECT count(*) FROM jsonl_lines" '
                   "--sessions {sessions} --index {index} --memory-limit {memory_limit}")


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 1048576:,.0f} MiB"


def child(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter (``--worker`` of this script)."""
    return run_worker(__file__, kind, params)


# ----------------------------------------------------------------------------------------------
# workers (each runs in its own child process)


def work_sha256(params: dict[str, Any]) -> dict[str, Any]:
    started, cpu = time.perf_counter(), time.process_time()
    for path in params["files"]:
        digest = hashlib.sha256()
        with open(path, "rb") as stream:
            while chunk := stream.read(CHUNK):
                digest.update(chunk)
    return {"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu,
            "peak_rss": peak_rss_bytes()}


def work_bare(params: dict[str, Any]) -> dict[str, Any]:
    from conformance.audit.connection import offline_connection

    files = ", ".join("'" + path.replace("'", "''") + "'" for path in params["files"])
    with offline_connection(memory_limit=params["memory_limit"]) as connection:
        started, cpu = time.perf_counter(), time.process_time()
        connection.execute(
            f"CREATE TABLE bare AS SELECT id, type, timestamp FROM read_json([{files}], "
            "format='newline_delimited', ignore_errors=true, "
            "columns={'id': 'VARCHAR', 'type': 'VARCHAR', 'timestamp': 'VARCHAR'})")
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        row = connection.execute("SELECT count(*), count(id) FROM bare").fetchone()
    assert row is not None
    return {"seconds": seconds, "cpu_seconds": cpu, "rows": row[0], "rows_with_id": row[1],
            "peak_rss": peak_rss_bytes()}


def work_canonical(params: dict[str, Any]) -> dict[str, Any]:
    import duckdb

    import conformance
    from conformance.audit.canonical import load_canonical
    from conformance.audit.connection import offline_connection

    read = [0, 0]  # bytes, blocks: what the progress hook was told

    def progress(block_bytes: int) -> None:
        read[0] += block_bytes
        read[1] += 1

    with offline_connection(memory_limit=params["memory_limit"]) as connection:
        threads = connection.execute("SELECT current_setting('threads')").fetchone()
        started, cpu = time.perf_counter(), time.process_time()
        load_canonical(connection, [Path(path) for path in params["files"]], progress=progress)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        lines = connection.execute("SELECT count(*) FROM jsonl_lines").fetchone()
    assert lines is not None and threads is not None
    return {"seconds": seconds, "cpu_seconds": cpu, "lines": lines[0],
            "progress_bytes": read[0], "progress_blocks": read[1],
            "threads": int(threads[0]), "duckdb": duckdb.__version__, "peak_rss": peak_rss_bytes(),
            "conformance": str(Path(conformance.__file__).parent)}


def work_command(params: dict[str, Any]) -> dict[str, Any]:
    argv = shlex.split(params["command"].format(
        python=shlex.quote(sys.executable), sessions=shlex.quote(params["sessions"]),
        index=shlex.quote(params["index"]), memory_limit=shlex.quote(params["memory_limit"])))
    import conformance  # the command runs the code the other workers import (installed, else this checkout)

    root = str(Path(conformance.__file__).resolve().parent.parent)
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": path})
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # of the command alone
    return {"seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "returncode": done.returncode, "stdout": done.stdout[-400:],
            "stderr": done.stderr[-400:], "argv": argv, "peak_rss": usage.ru_maxrss * 1024}  # Linux: KiB


WORKERS = {"sha256": work_sha256, "bare": work_bare, "canonical": work_canonical, "command": work_command}


# ----------------------------------------------------------------------------------------------
# the run


def project(args: argparse.Namespace) -> tuple[dict[str, Any], Path]:
    """The history benchmark's project (generated once) and its index (built once)."""
    import history  # bench/history.py: its generator, options and folder

    options = history.build_parser().parse_args(["--gb", str(args.gb), "--scale", str(args.scale),
                                                "--seed", str(args.seed)])
    manifest = history.prepare(options)
    index = Path(manifest["project"]).parent / "index.sqlite"
    if not index.is_file():
        files = [*history.session_files(manifest), manifest["read"]["path"]]
        say(f"building the project's index once ({index}), as the history benchmark does ...")
        history.child("index", {"db": str(index), "files": files, "current": manifest["current"]["path"]})
    return manifest, index


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    fastest = dict(min(runs, key=lambda run: run["seconds"]))
    fastest["peak_rss"] = max((run["peak_rss"] or 0) for run in runs) or None
    fastest["all_seconds"] = [run["seconds"] for run in runs]
    return fastest


def run(args: argparse.Namespace) -> dict[str, Any]:
    began = time.perf_counter()
    manifest, index = project(args)
    sessions = manifest["project"]
    files = sorted(str(path) for path in Path(sessions).glob("*.jsonl"))
    total = sum(Path(path).stat().st_size for path in files)
    limits = [args.memory_limit, args.low_memory_limit]
    plan: list[tuple[str, str, dict[str, Any]]] = [
        ("sha256", "sha256", {"files": files}),
        ("bare", "bare", {"files": files, "memory_limit": args.memory_limit}),
        *((f"canonical@{limit}", "canonical", {"files": files, "memory_limit": limit}) for limit in limits),
        *((f"command@{limit}", "command", {"command": args.command, "sessions": sessions, "index": str(index),
                                            "memory_limit": limit}) for limit in limits),
    ]
    say(f"audit benchmark: {len(files)} session files, {total / 1e6:,.0f} MB; {args.repeat} interleaved round(s)"
        f" of {', '.join(label for label, _, _ in plan)}")
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in plan}
    load = [os.getloadavg()[0]]
    for round_no in range(1, args.repeat + 1):
        for label, kind, params in plan:
            result = child(kind, params)
            runs[label].append(result)
            say(f"  round {round_no}: {label}: {result['seconds']:.2f} s, peak RSS {mib(result['peak_rss'])}")
        load.append(os.getloadavg()[0])
    figures = {label: best(results) for label, results in runs.items()}
    return {"files": len(files), "bytes": total, "entries": manifest["entries"], "index": str(index),
            "index_bytes": index.stat().st_size, "memory_limits": limits, "repeat": args.repeat,
            "command": args.command, "cpus": os.cpu_count(), "load_average": load, "figures": figures,
            "seconds": time.perf_counter() - began}


def print_report(report: dict[str, Any]) -> None:
    figures = report["figures"]
    bare = figures["bare"]["seconds"]
    canonical = figures[f"canonical@{report['memory_limits'][0]}"]
    print(f"audit benchmark: {report['files']} session files, {report['bytes'] / 1e6:,.0f} MB of JSONL,"
          f" {report['entries']:,} entries; index {report['index_bytes'] / 1e6:,.0f} MB;"
          f" DuckDB {canonical['duckdb']}, {canonical['threads']} threads, {report['cpus']} CPUs")
    print(f"best of {report['repeat']} interleaved round(s); 1-minute load average over the run:"
          f" {', '.join(f'{value:.1f}' for value in report['load_average'])}")
    print(f"target: the audit in at most {TARGET_RATIO:g}x DuckDB's bare read_json of the same JSONL")
    bare_cpu = figures["bare"]["cpu_seconds"]
    print(f"  {'measurement':<24} {'seconds':>8} {'MB/s':>7} {'x bare':>7} {'CPU s':>7} {'x bare':>7} {'peak RSS':>10}")
    for label, figure in figures.items():
        print(f"  {label:<24} {figure['seconds']:>8.2f} {report['bytes'] / 1e6 / figure['seconds']:>7.0f}"
              f" {figure['seconds'] / bare:>7.2f} {figure['cpu_seconds']:>7.2f} {figure['cpu_seconds'] / bare_cpu:>7.2f}"
              f" {mib(figure['peak_rss']):>10}")
    print("  (seconds: wall clock, the fastest round; CPU s: all threads' CPU time in that round)")
    print(f"  bare read_json: {figures['bare']['rows']:,} rows, {figures['bare']['rows_with_id']:,} with an id;"
          f" canonical: {canonical['lines']:,} lines, the progress hook told {canonical['progress_bytes']:,} bytes"
          f" in {canonical['progress_blocks']:,} blocks")
    for limit in report["memory_limits"]:
        command = figures[f"command@{limit}"]
        outcome = "ok" if command["returncode"] == 0 else f"exit {command['returncode']}: {command['stderr'].strip()}"
        print(f"  command @{limit}: {outcome}; {' '.join(command['stdout'].split())[:120]}")
    print(f"  command: {report['command']}")
    print(f"  read by: {canonical['conformance']}")
    print(f"total {report['seconds']:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/run.py audit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "PARAMS"), help=argparse.SUPPRESS)
    parser.add_argument("--gb", type=float, default=1.0, help="JSONL of the project, in GB (default 1)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="the history benchmark's --scale (0.2 for a quick run on 200 MB)")
    parser.add_argument("--memory-limit", default="2GB", help="DuckDB's memory_limit of the figures (default 2GB)")
    parser.add_argument("--low-memory-limit", default="256MB",
                        help="a second memory_limit for canonical and command, to show peak RSS follows it")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (the fastest of each counts)")
    parser.add_argument("--command", default=DEFAULT_COMMAND,
                        help="the end-to-end command, with {python} {sessions} {index} {memory_limit}"
                             f" (default: {DEFAULT_COMMAND})")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
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
    raise SystemExit(main(sys.argv[1:]))
