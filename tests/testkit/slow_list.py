"""The format of ``tests/slow.txt``, the measured slow test functions: written by
tools/slow_tests.py, read by tests/conftest.py (which marks them ``slow`` and, under xdist, starts
the heaviest modules first) and by tests/tools/test_slow_tests.py.

One function a line, ``path::function  # 12.3 s in 4``: the seconds its items took together in
the measured run, and how many items; ``#`` lines are comments.
"""

from __future__ import annotations

from typing import Final

HEADER: Final = ("# Slow test functions, measured (tools/slow_tests.py; docs/testing.md): tox -e quick leaves them out.\n"
                 "# One per line: path::function, then the seconds its items took in the measured run.\n")


def line(function: str, seconds: float, items: int) -> str:
    """One function's line."""
    return f"{function}  # {seconds:.1f} s in {items}\n"


def read(text: str) -> dict[str, float]:
    """Each listed function and the seconds it took when measured."""
    listed: dict[str, float] = {}
    for entry in text.splitlines():
        function, _, note = entry.partition("#")
        if function.strip():
            listed[function.strip()] = float(note.split()[0]) if note.split() else 0.0
    return listed
