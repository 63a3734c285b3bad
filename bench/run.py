"""Benchmarks: figures printed as ratios against a baseline measured in the same run.

Never an assertion: speed is reported, not tested.  Each measurement runs in a fresh child
process so that its peak RSS is its own.

    python bench/run.py                    # reader benchmark on 50 MB and 200 MB sessions
    python bench/run.py --sizes 200 --repeat 3
    python bench/run.py --json             # one JSON document for scripts
    python bench/run.py history [--scale 0.05] [--gb X] [--entries N] [--json]
                                           # history recall: index, catch-up, recall, read
                                           # (python bench/run.py history --help)
    python bench/run.py rebase [--sizes 50,500] [--repeat 3] [--json]
                                           # session rebase: dry run, rebase, recovery
                                           # (python bench/run.py rebase --help)
    python bench/run.py privacy [--mb 8] [--json]
                                           # secret detection: corpus, throughput, 4 MiB read
    python bench/run.py user [--sizes 100,1000] [--repeat 3] [--json]
                                           # what a user waits for: whole commands (search, status,
                                           # host, inspect, index, dry run) beside Pi's open of the file
    python bench/run.py floors [--sizes 100,1000] [--repeat 3] [--json]
                                           # what inspect and project recall cannot beat: every line
                                           # decoded by msgspec, FTS5's own bm25 ranking
    python bench/run.py audit [--gb X] [--memory-limit M] [--repeat N] [--json]
                                           # audit: DuckDB's canonical read and the command, as
                                           # ratios of a bare read_json (python bench/run.py audit --help)

The reader benchmark (the default) reads, hashes, locates and decodes the tree fields of every
record of a generated session, as a ratio of one bare ``hashlib.sha256`` pass over the same bytes.
The history benchmark (bench/history.py) measures the recall index on a generated project of at
least 1 GB and 1,000,000 entries; the rebase benchmark (bench/rebase.py) times a dry run, a rebase
and a recovery on 50 MiB and 500 MiB sources as ratios of one bare SHA-256 pass over the source;
the audit benchmark (bench/audit.py) reads the history benchmark's project with DuckDB as a ratio
of DuckDB's bare ``read_json`` of the same files; docs/benchmarks.md has the figures and how long
a run takes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from measure import peak_rss_bytes  # bench/ is first on sys.path when run as a script

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
try:  # the installed package (tox), else the checkout this file belongs to
    import reference  # noqa: F401
except ImportError:
    sys.path.append(str(HERE.parent))
READER_TARGET = 0.1  # of bare hashing speed (issue "Foundation", Must show)
CHUNK = 1024 * 1024


def worker(kind: str, path: str) -> dict[str, Any]:
    """One measurement, run inside a child process."""
    started = time.perf_counter()
    records = 0
    if kind == "sha256":
        digest = hashlib.sha256()
        with open(path, "rb") as stream:
            while chunk := stream.read(CHUNK):
                digest.update(chunk)
        records = -1
    elif kind == "reader":
        from reference.pi.exact.reader import iter_records, open_session_file

        with open_session_file(path) as stream:
            for _record in iter_records(stream):
                records += 1
    elif kind == "tree":
        from reference.pi.exact.session import load_session

        session = load_session(path)
        tree = session.tree()
        records = len(tree.entries)
        tree.ancestry(tree.entries[-1])
    else:
        raise SystemExit(f"unknown worker {kind}")
    seconds = time.perf_counter() - started
    return {"kind": kind, "seconds": seconds, "records": records, "peak_rss": peak_rss_bytes()}


def measure(kind: str, path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", kind, str(path)],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def session_of(size_mb: int, seed: int) -> Path:
    """A generated session of about ``size_mb`` MB, made once and kept under bench/out/."""
    from reference.fixturegen.generator import generate
    from reference.fixturegen.options import GenOptions

    folder = OUT / f"reader-{size_mb}mb-seed{seed}"
    existing = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if existing:
        return existing[0]
    folder.mkdir(parents=True, exist_ok=True)
    print(f"generating a {size_mb} MB session (seed {seed}) in {folder} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    options = GenOptions(seed=seed, target_bytes=size_mb * 1_000_000, compactions=4, branches=6)
    [made] = generate(folder, options)
    print(f"  done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return made.path


def best(kind: str, path: Path, repeat: int) -> dict[str, Any]:
    runs = [measure(kind, path) for _ in range(repeat)]
    fastest = min(runs, key=lambda r: r["seconds"])
    fastest["peak_rss"] = max((r["peak_rss"] or 0) for r in runs) or None
    return fastest


def mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 1048576:.0f} MiB"


def reader_benchmark(sizes: list[int], repeat: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for size in sizes:
        path = session_of(size, seed)
        size_bytes = path.stat().st_size
        print(f"measuring {path.name} ({size_bytes / 1e6:.0f} MB), best of {repeat} ...", file=sys.stderr, flush=True)
        bare = best("sha256", path, repeat)
        read = best("reader", path, repeat)
        tree = best("tree", path, repeat)
        rows.append({
            "file_bytes": size_bytes,
            "records": read["records"],
            "sha256_mb_s": size_bytes / bare["seconds"] / 1e6,
            "reader_mb_s": size_bytes / read["seconds"] / 1e6,
            "tree_mb_s": size_bytes / tree["seconds"] / 1e6,
            "reader_ratio": bare["seconds"] / read["seconds"],
            "tree_ratio": bare["seconds"] / tree["seconds"],
            "sha256_peak_rss": bare["peak_rss"],
            "reader_peak_rss": read["peak_rss"],
            "tree_peak_rss": tree["peak_rss"],
        })
    return rows


def main() -> int:
    if sys.argv[1:2] == ["history"]:
        from history import main as history_main  # bench/ is this script's folder, first on sys.path

        return history_main(sys.argv[2:])
    if sys.argv[1:2] == ["privacy"]:
        from privacy import main as privacy_main  # bench/ is this script's folder, first on sys.path

        return privacy_main(sys.argv[2:])
    if sys.argv[1:2] == ["rebase"]:
        from rebase import main as rebase_main  # bench/ is this script's folder, first on sys.path

        return rebase_main(sys.argv[2:])
    if sys.argv[1:2] == ["user"]:
        from user import main as user_main  # bench/ is this script's folder, first on sys.path

        return user_main(sys.argv[2:])
    if sys.argv[1:2] == ["floors"]:
        from floors import main as floors_main  # bench/ is this script's folder, first on sys.path

        return floors_main(sys.argv[2:])
    if sys.argv[1:2] == ["audit"]:
        from audit import main as audit_main  # bench/ is this script's folder, first on sys.path

        return audit_main(sys.argv[2:])
    parser = argparse.ArgumentParser(
        usage="python bench/run.py [history ... | rebase ... | privacy ... | user ... | floors ... | audit ...] [options]",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200], help="session sizes in MB")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the fastest counts)")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return 0
    rows = reader_benchmark(args.sizes, args.repeat, args.seed)
    if args.json:
        print(json.dumps({"reader": rows, "reader_target_ratio": READER_TARGET}))
        return 0
    print("reader benchmark: read + hash + locate + decode tree fields of every record,")
    print(f"as a ratio of one bare hashlib.sha256 pass over the same bytes (target >= {READER_TARGET})")
    print(f"{'file':>9} {'records':>9} {'sha256':>10} {'reader':>10} {'ratio':>6} {'tree':>10} {'ratio':>6}"
          f" {'RSS sha':>9} {'RSS reader':>10} {'RSS tree':>9}")
    for row in rows:
        print(f"{row['file_bytes'] / 1e6:>7.0f}MB {row['records']:>9} {row['sha256_mb_s']:>6.0f}MB/s"
              f" {row['reader_mb_s']:>6.0f}MB/s {row['reader_ratio']:>6.3f} {row['tree_mb_s']:>6.0f}MB/s"
              f" {row['tree_ratio']:>6.3f} {mib(row['sha256_peak_rss']):>9} {mib(row['reader_peak_rss']):>10}"
              f" {mib(row['tree_peak_rss']):>9}")
    print("tree = load_session + SessionTree + one ancestry walk: it keeps one small record per entry,")
    print("so its memory grows with the entry count; the streaming reader's does not grow with the file.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
