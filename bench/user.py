"""What a user waits for (issue 13): whole commands, cold, beside Pi's own open of the same file.

    python bench/run.py user                          # 100 MB and 1 GB sessions, median of 3
    python bench/run.py user --sizes 100 --repeat 1   # a quick run
    python bench/run.py user --json                   # one JSON document

Each figure is one command as a user types it: a fresh process (interpreter start and imports
included), timed from outside, its peak RSS from the kernel (``os.wait4``).  A session of about
``--sizes`` MB is generated once (``fixtures generate --seed 11 --sessions 1 --target-mb N``, the
issue's session) under ``bench/out/user-*/`` and indexed there; ``HOME`` is an empty agent folder
beside it, so the built-in configuration applies.

baseline   Pi 0.84.3 opening the same file (``bench/pi_open.mjs``: ``SessionManager.open`` and
           ``buildSessionContext()`` of a private copy), in the same run: ``pi open`` is the open and
           the context alone (Pi's own timer), ``pi process`` the whole Node process (start, import of
           Pi, the copy, the open).  Ratios are of ``pi open``, the smaller of the two.
search     ``recall-rebase history search QUERY --session S --json``, the index up to date
           (target: at most 0.25x Pi's open, peak RSS at most 150 MB and flat in the file's size);
status     ``recall-rebase history status --session S --json``, likewise;
host       ``recall-rebase host --session S`` given one ``/context history search`` and ``/quit``:
           a host's start and its first recall, likewise;
inspect    ``recall-rebase session inspect S --json`` (stdout to /dev/null; target: at most 1.0x
           Pi's open, peak RSS at most Pi's);
index      ``recall-rebase history index --session S --json`` into an empty index: the first
           search's wait (no target; run once);
dry run    ``recall-rebase rebase --session S --dry-run --json`` (no target here: bench/rebase.py
           holds the rebase's ratios and memory);
opens      the search once more under ``strace -f -e trace=openat,open`` (bench/oneshot_opens.py):
           how often it opens the index file and the session file (target: the index database
           once, after the 100-byte claim of docs/index.md I14; the session file at most twice).

Project recall over 100 sessions is measured by ``python bench/run.py history`` (a long-lived
service; p95 target 250 ms).  Figures, never assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from measure import OUT  # bench/ is first on sys.path when run as a script

SEED: Final = 11
QUERY: Final = "timeout error in handleRequest"
SEARCH_TARGET: Final = 0.25  # of Pi's open
INSPECT_TARGET: Final = 1.0
RSS_TARGET: Final = 150 * 1024 * 1024
NODE_TIMEOUT: Final = 900


def _session(size_mb: int) -> Path:
    """The issue's generated session of about ``size_mb`` MB, made once, by a child process: a
    child's peak RSS starts at its parent's (Linux keeps the high-water mark across fork and exec),
    so this process must stay small for the figures below to be the commands' own."""
    folder = OUT / f"user-{size_mb}mb-seed{SEED}"
    existing = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if existing:
        return existing[0]
    folder.mkdir(parents=True, exist_ok=True)
    print(f"generating a {size_mb} MB session (seed {SEED}) in {folder} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "reference.cli", "fixtures", "generate", "--seed", str(SEED), "--sessions",
                    "1", "--target-mb", str(size_mb), "--out", str(folder)], env=_child_env(), check=True,
                   stdout=subprocess.DEVNULL)
    print(f"  done in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return sorted(folder.glob("*.jsonl"))[0]


def _child_env(**extra: str) -> dict[str, str]:
    """The environment of a measured command: this checkout importable (or the installed package)."""
    root = Path(__file__).resolve().parent.parent
    return {**os.environ, **extra,
            "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}


def _measured(command: list[str], *, env: dict[str, str], stdin: bytes = b"",
              keep_output: bool = True) -> dict[str, Any]:
    """One fresh process: wall seconds, peak RSS (bytes), exit code and stdout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as feed:
        feed.write(stdin)
        feed.seek(0)
        started = time.perf_counter()
        process = subprocess.Popen(command, stdin=feed, stdout=out if keep_output else subprocess.DEVNULL,
                                   stderr=err, env=env)
        _pid, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
        return {"seconds": seconds, "peak_rss": usage.ru_maxrss * scale, "code": process.returncode,
                "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def _median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"seconds": statistics.median(r["seconds"] for r in runs), "best": min(r["seconds"] for r in runs),
            "peak_rss": max(r["peak_rss"] for r in runs), "runs": len(runs), "code": runs[-1]["code"]}


def _pi_open(session: Path, repeat: int) -> dict[str, Any]:
    """Pi's open of ``session`` in fresh Node processes: ``open`` (Pi's timer) and ``process``."""
    from pi_open import DEFAULT_PKG, SCRIPT, find_node

    node = find_node()
    pkg = Path(os.environ.get("PI_PKG") or DEFAULT_PKG)
    if node is None or not (pkg / "dist" / "index.js").is_file():
        return {"measured": False, "why": "Node or Pi 0.84.3 is not installed (python oracle/install.py)"}
    env = {**os.environ, "PI_PKG": str(pkg), "TZ": "UTC"}
    opens, runs = [], []
    for _ in range(repeat):
        run = _measured([node, str(SCRIPT), str(session)], env=env)
        if run["code"] != 0:
            return {"measured": False, "why": run["stderr"].strip().splitlines()[-1:] or ["Pi's open failed"]}
        answer = json.loads(run["stdout"].strip().splitlines()[-1])
        opens.append(answer["openMs"][0] / 1000)
        runs.append(run)
    process = _median_of(runs)
    return {"measured": True, "open": statistics.median(opens), "process": process["seconds"],
            "peak_rss": process["peak_rss"], "entries": answer["entries"]}


def _commands(session: Path, index: Path, cwd: str) -> dict[str, tuple[list[str], bytes, bool]]:
    """Each measured command: (argv after ``recall-rebase``, stdin, keep stdout)."""
    where = ["--session", str(session), "--index", str(index), "--cwd", cwd]
    host_input = f"/context history search {QUERY}\n/quit\n".encode()
    return {
        "search": (["history", "search", QUERY, *where, "--json"], b"", True),
        "status": (["history", "status", *where, "--json"], b"", True),
        "host": (["host", *where], host_input, True),
        "inspect": (["session", "inspect", str(session), "--json"], b"", False),
        "dry run": (["rebase", "--session", str(session), "--index", str(index), "--cwd", cwd, "--dry-run",
                     "--json"], b"", True),
    }


def measure_size(size_mb: int, repeat: int, skip: set[str]) -> dict[str, Any]:
    session = _session(size_mb)
    cwd = json.loads(session.open("rb").readline())["cwd"]
    home = OUT / "user-home"
    home.mkdir(mode=0o700, exist_ok=True)
    index = OUT / f"user-{size_mb}mb-seed{SEED}.index" / "index.sqlite"
    index.parent.mkdir(mode=0o700, exist_ok=True)
    env = _child_env(HOME=str(home))
    env.pop("PI_CODING_AGENT_DIR", None)
    cli = [sys.executable, "-m", "reference.cli"]
    result: dict[str, Any] = {"file_bytes": session.stat().st_size, "session": str(session),
                              "load_before": os.getloadavg()}
    print(f"{size_mb} MB: Pi's open, median of {repeat} ...", file=sys.stderr, flush=True)
    result["pi"] = _pi_open(session, repeat)
    needs_index = any(name not in skip for name in ("search", "status", "host", "dry run"))
    if needs_index and ("index" not in skip or not index.exists()):
        for stale in index.parent.glob("index.sqlite*"):
            stale.unlink()
        print(f"{size_mb} MB: index build (once) ...", file=sys.stderr, flush=True)
        build = _measured([*cli, "history", "index", "--session", str(session), "--index", str(index), "--cwd", cwd,
                           "--json"], env=env)
        result["index"] = {**_median_of([build]), "entries": json.loads(build["stdout"])["indexedEntries"]
                           if build["code"] == 0 else None}
    for name, (argv, stdin, keep) in _commands(session, index, cwd).items():
        if name in skip:
            continue
        print(f"{size_mb} MB: {name}, median of {repeat} ...", file=sys.stderr, flush=True)
        runs = [_measured([*cli, *argv], env=env, stdin=stdin, keep_output=keep) for _ in range(repeat)]
        failed = [r for r in runs if r["code"] not in (0,)]
        result[name] = _median_of(runs)
        if failed:
            result[name]["error"] = _why(failed[-1])
    if "opens" not in skip:
        from oneshot_opens import strace_counts

        print(f"{size_mb} MB: search opens, under strace ...", file=sys.stderr, flush=True)
        result["opens"] = strace_counts(session, index, cwd, env, QUERY)
    result["load_after"] = os.getloadavg()
    return result


def _why(run: dict[str, Any]) -> str:
    """Why a command did not succeed: its result's status (exit 3, unavailable) or its last stderr line."""
    try:
        status = json.loads(run["stdout"]).get("status")
    except (ValueError, AttributeError):
        status = None
    if isinstance(status, str):
        return f"exit {run['code']}, status {status}"
    return (run["stderr"].strip().splitlines() or [f"exit {run['code']}"])[-1]


def _load(load: Any) -> str:
    return "n/a" if not load else " ".join(f"{value:.1f}" for value in load)


def _mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value / 1048576:.0f} MiB"


def _verdict(name: str, row: dict[str, Any], pi: dict[str, Any]) -> str:
    if not pi.get("measured"):
        return ""
    ratio = row["seconds"] / pi["open"]
    if name in ("search", "status", "host"):
        met = ratio <= SEARCH_TARGET and row["peak_rss"] <= RSS_TARGET
        return f"target <= {SEARCH_TARGET}x, <= 150 MiB: {'met' if met else 'missed'}"
    if name == "inspect":
        met = ratio <= INSPECT_TARGET and row["peak_rss"] <= pi["peak_rss"]
        return f"target <= {INSPECT_TARGET}x, RSS <= Pi's: {'met' if met else 'missed'}"
    return "no target"


def render(results: list[dict[str, Any]]) -> None:
    print("what a user waits for: whole commands (cold process) beside Pi 0.84.3's open of the same file")
    for size in results:
        pi = size["pi"]
        print(f"\n{size['file_bytes'] / 1e6:.0f} MB session ({size['session']})")
        print(f"  load average (1, 5, 15 min): {_load(size.get('load_before'))} before,"
              f" {_load(size.get('load_after'))} after, on {os.cpu_count()} CPUs")
        if not pi.get("measured"):
            print(f"  Pi's open: not measured ({pi.get('why')})")
        else:
            print(f"  {'pi open':<10} {pi['open']:>8.2f} s   1.00x   (pi process {pi['process']:.2f} s,"
                  f" peak {_mib(pi['peak_rss'])}, {pi['entries']:,} entries)")
        for name in ("search", "status", "host", "inspect", "index", "dry run"):
            row = size.get(name)
            if row is None:
                continue
            ratio = f"{row['seconds'] / pi['open']:.2f}x" if pi.get("measured") else "  n/a"
            error = f"  not done: {row['error']}" if row.get("error") else ""
            print(f"  {name:<10} {row['seconds']:>8.2f} s {ratio:>7}   peak {_mib(row['peak_rss']):>9}   "
                  f"{_verdict(name, row, pi)}{error}")
        opens = size.get("opens")
        if opens is not None:
            print(f"  {'opens':<10} " + (f"search opened the index file {opens['index_opens']} times (the claim, then "
                  f"SQLite), its -wal/-journal {opens['index_wal_journal_opens']}, the session file "
                  f"{opens['session_opens']} (target <= 2)" if opens.get("measured") else f"not measured: {opens['why']}"))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python bench/run.py user", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000", help="session sizes in MB, comma-separated (default 100,1000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per command (the median counts)")
    parser.add_argument("--skip", default="", help="commands to leave out, comma-separated (index: keep the "
                        "existing index)")
    parser.add_argument("--json", action="store_true", help="one JSON document")
    args = parser.parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    skip = {part.strip() for part in args.skip.split(",") if part.strip()}
    results = [measure_size(size, max(1, args.repeat), skip) for size in sizes]
    if args.json:
        print(json.dumps({"user": results, "targets": {"search": SEARCH_TARGET, "inspect": INSPECT_TARGET,
                                                       "rss_bytes": RSS_TARGET}}))
    else:
        render(results)
    return 0
