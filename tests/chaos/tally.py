"""The chaos campaign's counts (one module, shared by the test and the conftest that prints them)."""

from __future__ import annotations

import os
from collections import Counter

#: Port behaviours (broken answers) run, per kind.
BEHAVIOURS: Counter[str] = Counter()
RUNS: Counter[str] = Counter()
BROKEN: Counter[str] = Counter()
#: The Hypothesis seed each chaos test ran with (replay: ``--hypothesis-seed SEED``).
SEEDS: dict[str, int | str | None] = {}


def progress(behaviours: int, seconds: float) -> None:
    """One line per run in ``$CHAOS_PROGRESS`` (when set): a long campaign can be watched."""
    if path := os.environ.get("CHAOS_PROGRESS"):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{behaviours} {seconds:.2f}\n")
