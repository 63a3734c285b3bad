"""One worker of a parallel run: ``python -m conformance.worker PYTEST-ARGS...``.

The runner starts N of them for ``-j N``, each in a process group of its own, each with its
share of the rows (``--rr-shard i/N``), its own report and progress file, and so its own port
process (or in-process adapter). A worker is exactly the single-process run: the same pytest
session, supervisor, timeouts, restarts and signal handling; SIGTERM (Ctrl-Break on Windows)
makes it write its report with the rows not run NOTRUN and kill its port.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from conformance.runner import _pytest_main


def main(argv: Sequence[str] | None = None) -> int:
    """Run pytest on ``argv``; its output goes to stdout (the runner's log of this worker)."""
    code, captured = _pytest_main(list(sys.argv[1:] if argv is None else argv), verbose=False)
    sys.stdout.write(captured)
    return code


if __name__ == "__main__":
    sys.exit(main())
