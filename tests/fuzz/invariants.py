"""What every fuzz case must hold (issue 12): no Python traceback in any output, an answer within
a bounded time, the source's bytes unchanged."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final

from reference.cli.main import main

#: Not a speed target: a call that takes this long is taken for a hang.
HANG_SECONDS: Final = 60.0


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextlib.contextmanager
def _home(home: Path) -> Iterator[None]:
    """HOME (and no PI_CODING_AGENT_DIR) for one call: the user's own Pi files are never read."""
    saved = {name: os.environ.get(name) for name in ("HOME", "USERPROFILE", "PI_CODING_AGENT_DIR")}
    os.environ["HOME"] = os.environ["USERPROFILE"] = str(home)
    os.environ.pop("PI_CODING_AGENT_DIR", None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_cli(argv: Sequence[str], *, home: Path) -> tuple[int, str, str]:
    """``recall-rebase ARGV`` in this process: (exit code, stdout, stderr); any exception that
    escapes ``main`` is itself a broken invariant (it would be a traceback for the user)."""
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with _home(home), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse's --help and usage errors exit this way
            code = exit_.code if isinstance(exit_.code, int) else 2
    elapsed = time.monotonic() - started
    assert elapsed < HANG_SECONDS, f"{list(argv)} took {elapsed:.0f} s"
    stdout, stderr = out.getvalue(), err.getvalue()
    assert "Traceback" not in stdout + stderr, (list(argv), stdout[-2000:], stderr[-2000:])
    return code, stdout, stderr
