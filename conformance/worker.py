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
from pathlib import Path
from typing import Final

from conformance.runner import _pytest_main

#: ``--ready PATH`` (first): the file the worker creates once a signal can no longer cost its report.
READY_OPTION: Final = "--ready"


def main(argv: Sequence[str] | None = None) -> int:
    """Run pytest on ``argv`` (after ``--ready PATH``); its output goes to stdout (the runner's log
    of this worker). A signal before the session knows its rows waits until it does."""
    args = list(sys.argv[1:] if argv is None else argv)
    ready = None
    if args[:1] == [READY_OPTION]:
        ready, args = Path(args[1]), args[2:]
    code, captured = _pytest_main(args, verbose=False, ready=ready)
    sys.stdout.write(captured)
    return code


if __name__ == "__main__":
    sys.exit(main())
