"""How often one one-shot ``history search`` opens the index and the session file (issue 25, item 5).

    python bench/oneshot_opens.py [--mb 100] [--query TEXT] [--session FILE]

A session of about ``--mb`` MB is generated (``reference.fixturegen``, seed 25) under
``bench/out/`` unless ``--session`` names one; the index is brought up to date first
(``history index``, not counted).  Then one ``recall-rebase history search --json`` runs:

strace    when ``strace`` is on the PATH: ``strace -f -e trace=openat,open`` of a fresh
          process, counting every open call (refused ones included) of the index file, of its
          ``-wal``/``-journal`` files, and of the session file;
in-process the same search through ``reference.cli.main`` in this process, counting the audit
          events ``sqlite3.connect`` of the index and ``open`` of the session file
          (``sys.addaudithook``), the catch-up runs (calls of ``catch_up``, by a profile hook)
          and the hits of the answer.

The target: the index opened once, the session file at most twice, one catch-up check.  Figures,
never assertions (``tests/cli/test_history_opens.py`` holds the in-process counts: the index
connected once, the session file opened at most twice, one catch-up).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from measure import OUT, ensure_reference_importable  # bench/ is first on sys.path

ensure_reference_importable()


def generated_session(mb: int) -> Path:
    """A generated session of about ``mb`` MB, made once under bench/out/ and reused."""
    from reference.fixturegen.generator import generate
    from reference.fixturegen.options import GenOptions

    folder = OUT / f"oneshot-opens-{mb}mb"
    made = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if made:
        return made[0]
    [session] = generate(folder, GenOptions(seed=25, target_bytes=mb * 1_000_000, compactions=4, branches=4))
    return session.path


def _argv(session: Path, index: Path, cwd: str, query: str) -> list[str]:
    return ["history", "search", query, "--session", str(session), "--index", str(index), "--cwd", cwd, "--json"]


def strace_counts(session: Path, index: Path, cwd: str, env: dict[str, str], query: str) -> dict[str, Any]:
    """Open calls of one fresh process, from strace's log."""
    strace = shutil.which("strace")
    if strace is None:
        return {"measured": False, "why": "strace is not on the PATH"}
    with tempfile.TemporaryDirectory(prefix="oneshot-opens-") as temp:
        log = Path(temp) / "strace.log"
        command = [strace, "-f", "-qq", "-e", "trace=openat,open", "-o", str(log), sys.executable, "-m",
                   "reference.cli", *_argv(session, index, cwd, query)]
        done = subprocess.run(command, cwd=temp, env=env, capture_output=True, text=True, check=False)
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    def opened(path: Path) -> int:
        quoted = re.compile(r'open(?:at)?\(.*"' + re.escape(str(path)) + r'"')
        return sum(1 for line in lines if quoted.search(line))
    return {
        "measured": True,
        "exit": done.returncode,
        "index_opens": opened(index),
        "index_wal_journal_opens": opened(Path(f"{index}-wal")) + opened(Path(f"{index}-journal")),
        "session_opens": opened(session),
    }


def in_process_counts(session: Path, index: Path, cwd: str, query: str) -> dict[str, Any]:
    """The audit events and catch-up calls of one search run by ``reference.cli.main`` here."""
    from reference.cli.main import main
    from reference.recall import catchup

    counts = {"index_connects": 0, "session_opens": 0, "catch_ups": 0}
    index_text, session_text = str(index), str(session)

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "sqlite3.connect" and args and os.fspath(args[0]).split("?")[0].endswith(index_text):
            counts["index_connects"] += 1
        elif event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)) \
                and os.fsdecode(args[0]) == session_text:
            counts["session_opens"] += 1

    code = catchup.catch_up.__code__

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            counts["catch_ups"] += 1

    sys.addaudithook(audit)  # stays for the life of this process: measure once, then exit
    out = io.StringIO()
    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(out):
            exit_code = main(_argv(session, index, cwd, query))
    finally:
        sys.setprofile(None)
    result = json.loads(out.getvalue())
    return {**counts, "exit": exit_code, "hits": len(result.get("hits", []))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=100, help="size of the generated session (default 100 MB)")
    parser.add_argument("--session", type=Path, help="a session file to use instead of a generated one")
    parser.add_argument("--query", default="error timeout")
    args = parser.parse_args()
    session = (args.session or generated_session(args.mb)).resolve()
    with session.open("rb") as stream:
        cwd = json.loads(stream.readline())["cwd"]
    home = tempfile.mkdtemp(prefix="oneshot-opens-home-")
    index = Path(tempfile.mkdtemp(prefix="oneshot-opens-index-")) / "index.sqlite"
    env = {**os.environ, "HOME": home, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    subprocess.run([sys.executable, "-m", "reference.cli", "history", "index", "--session", str(session),
                    "--index", str(index), "--cwd", cwd, "--json"], cwd=home, env=env, capture_output=True, check=True)
    os.environ["HOME"] = home
    report = {
        "session": str(session),
        "bytes": session.stat().st_size,
        "strace": strace_counts(session, index, cwd, env, args.query),
        "in_process": in_process_counts(session, index, cwd, args.query),
        "target": {"index_opens": 1, "session_opens_at_most": 2, "catch_ups": 1},
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
