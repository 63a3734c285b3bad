"""Measuring helpers shared by the benchmarks (run as scripts: bench/ is first on sys.path)."""

from __future__ import annotations

import sys


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
