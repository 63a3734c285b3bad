"""A warm one-shot ``history search`` and ``history status`` (the index already up to date) beside
Pi's own open of the same file, in the same run (issue 13, item 1).

    python bench/warm_oneshot.py SESSION.jsonl [--index PATH] [--repeat N] [--query TEXT]

Each one-shot is a fresh process (``python -m reference.cli history … --json``) for the project
the session header's ``cwd`` names (``--cwd``, so that folder need not exist) with a private ``HOME``; its wall time and its own peak RSS
(``ru_maxrss``) are reported, median of ``--repeat``.  The index is brought up to date first
(``history index``, untimed).  Pi's figure is ``bench/pi_open.py``'s: the whole ``node`` process
(cold) and ``SessionManager.open`` + context alone; when Pi cannot open the file the answer says so.
Speed is reported here, never asserted in tests.
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
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import pi_open  # noqa: E402

#: Runs the CLI in this process and reports its peak RSS (KiB on Linux) on the last stderr line.
_WRAP = (
    "import resource, sys\n"
    "from reference.cli.main import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "finally:\n"
    "    print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _one_shot(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[float, int]:
    """Wall ms and peak RSS (MiB) of one CLI process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _WRAP, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)
    seconds = time.perf_counter() - started
    last = (done.stderr or "").strip().splitlines()[-1:] or [""]
    if done.returncode not in (0, 3) or not last[0].startswith("maxrss"):
        raise RuntimeError(f"{argv[:2]} failed: {(done.stderr or '').strip()[-400:]}")
    return seconds * 1000, int(last[0].split()[1]) // 1024


def measure(session: Path, index: Path, repeat: int, query: str) -> dict[str, Any]:
    with session.open("rb") as stream:
        cwd = json.loads(stream.readline())["cwd"]
    home = tempfile.mkdtemp(prefix="warm-oneshot-home-")
    env = {**os.environ, "HOME": home, "PYTHONPATH": str(HERE.parent)}
    common = ["--session", str(session), "--index", str(index), "--cwd", cwd, "--json"]
    cwd = home  # the header's cwd need not exist here: --cwd names the project
    _one_shot(["history", "index", *common], cwd, env)  # up to date (untimed)
    result: dict[str, Any] = {"session": str(session), "bytes": session.stat().st_size}
    for name, argv in (("search", ["history", "search", query, *common]), ("status", ["history", "status", *common])):
        runs = [_one_shot(argv, cwd, env) for _ in range(repeat)]
        result[name] = {"wall_ms": statistics.median(r[0] for r in runs), "peak_rss_mib": max(r[1] for r in runs)}
    pi = pi_open.measure(session, repeat)
    result["pi"] = pi
    if pi.get("measured"):
        for name in ("search", "status"):
            result[name]["x_pi_open"] = round(result[name]["wall_ms"] / pi["cold_open_ms"], 3)
            result[name]["x_pi_process"] = round(result[name]["wall_ms"] / pi["cold_ms"], 3)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("session", type=Path)
    parser.add_argument("--index", type=Path, help="the index (default: a temporary one, built first)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--query", default="timeout error")
    args = parser.parse_args()
    index = args.index or Path(tempfile.mkdtemp(prefix="warm-oneshot-")) / "index.sqlite"
    print(json.dumps(measure(args.session.resolve(), index.resolve(), args.repeat, args.query), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
