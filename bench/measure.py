"""Measuring helpers shared by the benchmarks (run as scripts: bench/ is first on sys.path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"  # generated data, git-ignored


def ensure_reference_importable() -> None:
    """Run from a checkout without the package installed: put the checkout on the path."""
    root = str(BENCH.parent)
    if root in sys.path:
        return
    try:
        import reference  # noqa: F401
    except ImportError:
        sys.path.append(root)


def peak_rss_bytes() -> int | None:
    """Peak resident set size of this process; None where the platform tells none.

    Linux: ``VmHWM`` of /proc/self/status, which starts afresh at exec (``ru_maxrss`` keeps the
    parent's peak from before the fork, which would charge the generator's memory to the reader).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # macOS reports bytes, Linux KiB


def run_worker(script: str, kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run ``script --worker KIND PARAMS`` in a fresh interpreter, so the measurement's peak RSS
    is its own, and return the JSON it prints; its stderr (progress) passes through."""
    done = subprocess.run(
        [sys.executable, script, "--worker", kind, json.dumps(params)],
        stdout=subprocess.PIPE, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result
