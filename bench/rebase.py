"""Session rebase benchmark (issue "Session rebase"): figures, never assertions.

    python bench/run.py rebase                     # 50 MiB and 500 MiB sources, best of 3
    python bench/run.py rebase --sizes 50 --repeat 1
    python bench/run.py rebase --json

A valid Pi v3 source of about ``--sizes`` MiB is generated once under ``bench/out/rebase-*/``
(``reference.fixturegen``: user and assistant messages, tool calls with results, branches,
compactions, custom entries) and reused.  Its tail ends with a compaction whose
``firstKeptEntryId`` is the last user message before it, so the compaction-aware context, and
hence the handoff, fits the default 8,000-token checkpoint budget.  The source is never written:
every operation reads it, and writes only the journal and the target beside it.

Every measurement runs in its own child process, so its peak RSS (Linux ``VmHWM``) is its own,
and is timed around the call alone (the interpreter and imports are not counted):

sha256    one bare ``hashlib.sha256`` pass over the source in 1 MiB reads: the baseline; each
          figure below is a ratio of it, measured in the same run after a warm-up read so the
          page cache is the same for all;
dry run   ``RebaseService.rebase(RebaseRequest.of(dry_run=True))``: the runtime lineage check (§6.2 step 2),
          every source check (steps 14-26) and the checkpoint in memory; nothing is written;
rebase    a new operation to ``Verified``: the same, then the journal phases, the target install,
          activation and both verifications (§6.8, §6.9); the journal and the target are deleted
          before each repetition;
recover   ``--recover`` of that ``Verified`` operation: the source checks against the journal, the
          existing target reused and activated again (§6.11 step 7).

``passes`` is the bytes the child read (``rchar`` of /proc/self/io, Linux) over the source size:
how many times the operation read the whole source.  ``B/entry`` is the operation's peak RSS
minus the child's peak before the call (the interpreter with every import and the service
built), over the source's entries: what a rebase holds per entry (target: about 60 at 500 MiB;
docs/rebase.md, "Memory").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from measure import (  # bench/ is first on sys.path
    OUT,
    ensure_reference_importable,
    peak_rss_bytes,
    run_worker,
)

ensure_reference_importable()

MIB = 1024 * 1024
CHUNK = MIB
PROJECT_CWD = "/home/user/projects/demo"  # the header cwd (it need not exist)
RATIO_TARGET = 6.0  # at most 6x one bare SHA-256 pass over the source
BYTES_PER_ENTRY_TARGET = 60  # peak RSS over the imports, per source entry, at 500 MiB (issue 13)
KINDS = ("sha256", "dry-run", "rebase", "recover")


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / MIB:.0f} MiB"


# ----------------------------------------------------------------------------------------------
# the generated source


def make_source(folder: Path, size_mib: int, seed: int) -> Path:
    """A valid v3 source of about ``size_mib`` MiB whose context at the last entry stays small."""
    from reference.fixturegen.growing_session import LineWriter
    from reference.fixturegen.naming import BASE_CLOCK_MS, uuid7
    from reference.fixturegen.options import GenOptions
    from reference.fixturegen.session import SessionBuilder
    from reference.primitives.jsvalues import to_iso_string
    from reference.primitives.platform_ops.paths import session_file_name

    rng = random.Random(seed)
    options = GenOptions(seed=seed, target_bytes=size_mib * MIB, compactions=4, branches=6, cwd=PROJECT_CWD)
    session_rng = random.Random(rng.getrandbits(64))
    session_id = uuid7(session_rng, BASE_CLOCK_MS)
    path = folder / session_file_name(to_iso_string(BASE_CLOCK_MS), session_id)
    partial = path.with_suffix(".partial")
    with partial.open("wb") as fh:
        session = SessionBuilder(
            session_rng, options, LineWriter(fh, False, path, None), BASE_CLOCK_MS, session_id
        )
        session.run()
        # The tail: a few complete turns, then a compaction that keeps only the last user turn.
        session.turn_tool_single()
        session.turn_chat()
        session.first_kept_index = session.main_users[-2]
        session.compaction()
        session.turn_tool_single()
        session.turn_chat()
    partial.replace(path)
    return path


def source_of(size_mib: int, seed: int) -> Path:
    """The generated source of ``size_mib`` MiB, made once and kept under bench/out/."""
    folder = OUT / f"rebase-{size_mib}mib-seed{seed}"
    existing = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    sources = [p for p in existing if not p.name.startswith("ds4-")]
    if sources:
        return sources[0]
    folder.mkdir(parents=True, exist_ok=True)
    say(f"generating a {size_mib} MiB source (seed {seed}) in {folder} ...")
    started = time.perf_counter()
    path = make_source(folder, size_mib, seed)
    say(f"  done in {time.perf_counter() - started:.1f} s")
    return path


def clean_outputs(source: Path) -> None:
    """Remove what earlier runs wrote beside the source: targets, journals, temporaries."""
    folder = source.parent
    for target in folder.glob("ds4-rebase_*"):
        target.unlink()
    operations = folder / ".ds4-rebase" / "operations"
    if operations.is_dir():
        for journal in operations.iterdir():
            journal.unlink()


# ----------------------------------------------------------------------------------------------
# one measurement, in a child process


def _rchar() -> int | None:
    try:
        with open("/proc/self/io", encoding="ascii") as io:
            for line in io:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _service(source: str) -> Any:
    from reference.config.defaults import default_config
    from reference.rebase.host import RebaseHost
    from reference.rebase.service import RebaseService

    config = default_config()
    config["enabled"] = True
    config["historyTools"]["enabled"] = True
    config["sessionRebase"]["enabled"] = True
    host = RebaseHost(session_file=source, project_path=PROJECT_CWD, project_trusted=True, config=config)
    return RebaseService(host)


def worker(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    from reference.rebase.service import RebaseRequest

    source = params["source"]
    result: Any = None
    if kind != "sha256":
        service = _service(source)  # imports done before the clock starts
    baseline = peak_rss_bytes()  # the interpreter with its imports: what B/entry leaves out
    rchar = _rchar()
    started = time.perf_counter()
    if kind == "sha256":
        digest = hashlib.sha256()
        with open(source, "rb") as stream:
            while chunk := stream.read(CHUNK):
                digest.update(chunk)
        result = {"status": "hashed"}
    elif kind == "dry-run":
        result = service.rebase(RebaseRequest.of(dry_run=True)).result.to_json()
    elif kind == "rebase":
        result = service.rebase(RebaseRequest()).result.to_json()
    elif kind == "recover":
        result = service.rebase(RebaseRequest.of(recover=params["operationId"])).result.to_json()
    else:
        raise SystemExit(f"unknown worker {kind}")
    seconds = time.perf_counter() - started
    after = _rchar()
    read = None if rchar is None or after is None else after - rchar
    return {"kind": kind, "seconds": seconds, "peak_rss": peak_rss_bytes(), "baseline_rss": baseline,
            "read_bytes": read, "result": result}


def child(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter (``--worker`` of this script)."""
    return run_worker(__file__, kind, params)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def warm(path: Path) -> None:
    with path.open("rb") as stream:
        while stream.read(8 * MIB):
            pass


def best(kind: str, params: dict[str, Any], repeat: int, source: Path) -> dict[str, Any]:
    runs = []
    for _ in range(repeat):
        if kind == "rebase":
            clean_outputs(source)
        runs.append(child(kind, params))
    for run in runs:
        status = run["result"]["status"]
        expected = {"sha256": "hashed", "dry-run": "preview", "rebase": "verified", "recover": "verified"}[kind]
        if status != expected:
            raise SystemExit(f"{kind} gave {status}: {run['result']}")
    fastest = min(runs, key=lambda r: r["seconds"])
    fastest["peak_rss"] = max((r["peak_rss"] or 0) for r in runs) or None
    fastest["baseline_rss"] = min((r["baseline_rss"] or 0) for r in runs) or None
    return fastest


def rebase_benchmark(sizes: list[int], repeat: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for size in sizes:
        source = source_of(size, seed)
        size_bytes = source.stat().st_size
        before = file_sha256(source)
        clean_outputs(source)
        say(f"measuring {source.name} ({size_bytes / MIB:.0f} MiB), best of {repeat} ...")
        params = {"source": str(source)}
        warm(source)
        figures = {kind: best(kind, params, repeat, source) for kind in ("sha256", "dry-run", "rebase")}
        operation = figures["rebase"]["result"]["operationId"]
        figures["recover"] = best("recover", {**params, "operationId": operation}, repeat, source)
        clean_outputs(source)
        if file_sha256(source) != before:
            raise SystemExit("the source changed: the rebase must never write it")
        bare = figures["sha256"]["seconds"]
        row: dict[str, Any] = {
            "file_bytes": size_bytes,
            "source_entries": figures["dry-run"]["result"]["sourceEntries"],
            "checkpoint_tokens": figures["dry-run"]["result"]["checkpointTokens"],
        }
        for kind in KINDS:
            fig = figures[kind]
            held = (None if kind == "sha256" or fig["peak_rss"] is None or fig["baseline_rss"] is None
                    else fig["peak_rss"] - fig["baseline_rss"])
            row[kind] = {
                "seconds": fig["seconds"],
                "ratio": fig["seconds"] / bare,
                "peak_rss": fig["peak_rss"],
                "baseline_rss": fig["baseline_rss"],
                "bytes_per_entry": None if held is None else held / row["source_entries"],
                "passes": None if fig["read_bytes"] is None else fig["read_bytes"] / size_bytes,
            }
        rows.append(row)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python bench/run.py rebase", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "PARAMS"), help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="50,500", help="source sizes in MiB, comma-separated (default 50,500)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the fastest counts)")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], json.loads(args.worker[1]))))
        return 0
    sizes = [int(part) for part in args.sizes.replace(" ", ",").split(",") if part]
    rows = rebase_benchmark(sizes, args.repeat, args.seed)
    if args.json:
        print(json.dumps({"rebase": rows, "ratio_target": RATIO_TARGET, "bytes_per_entry_target": BYTES_PER_ENTRY_TARGET}))
        return 0
    print("rebase benchmark: each operation as a ratio of one bare hashlib.sha256 pass over the source")
    print(f"(target <= {RATIO_TARGET:g}x; at most about {BYTES_PER_ENTRY_TARGET} bytes per entry at 500 MiB)")
    print(f"{'source':>9} {'entries':>9} {'operation':>9} {'seconds':>8} {'ratio':>7} {'passes':>7} {'peak RSS':>9}"
          f" {'B/entry':>8}")
    for row in rows:
        for kind in KINDS:
            fig = row[kind]
            passes = "n/a" if fig["passes"] is None else f"{fig['passes']:.2f}"
            per_entry = "n/a" if fig["bytes_per_entry"] is None else f"{fig['bytes_per_entry']:.0f}"
            print(f"{row['file_bytes'] / MIB:>6.0f}MiB {row['source_entries']:>9} {kind:>9} {fig['seconds']:>8.3f}"
                  f" {fig['ratio']:>6.2f}x {passes:>7} {mib(fig['peak_rss']):>9} {per_entry:>8}")
    print("B/entry = (peak RSS - the child's peak with its imports, before the call) / entries;")
    print("passes = bytes read by the operation / source size (rchar); the checkpoint of each source is"
          f" {', '.join(str(row['checkpoint_tokens']) for row in rows)} tokens.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
