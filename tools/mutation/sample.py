"""A fixed-size sample of the catalogue for CI that rotates, so successive weeks cover every entry.

The entries are ordered by a hash of their id (stable when entries are added or moved between
files), and seed ``s`` takes the ``size`` entries from offset ``s * size`` on, wrapping around:
seeds ``s, s+1, ...`` cover the whole catalogue in ``ceil(N / size)`` steps. The default seed is
the number of whole weeks since Monday 1970-01-05, so it moves on every ISO week, across years.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

FIRST_MONDAY: Final = datetime.date(1970, 1, 5)



@dataclass(frozen=True)
class Sample:
    """Which entries a sampled run takes, and why (printed, so a CI log shows the choice)."""

    seed: int
    ids: tuple[str, ...]
    total: int

    def describe(self) -> str:
        steps = -(-self.total // max(len(self.ids), 1))
        return (f"sample: seed {self.seed} ({len(self.ids)} of {self.total} entries; "
                f"seeds {self.seed}..{self.seed + steps - 1} cover all): {', '.join(sorted(self.ids))}")


def week_seed(today: datetime.date | None = None) -> int:
    """Whole weeks since 1970-01-05 (a Monday): one more each ISO week."""
    return ((today or datetime.date.today()) - FIRST_MONDAY).days // 7


def _order_key(entry_id: str) -> str:
    return hashlib.sha256(entry_id.encode("utf-8")).hexdigest()


def choose(ids: Sequence[str], size: int, seed: int) -> Sample:
    """``size`` of ``ids`` for ``seed``: a window of the hash order starting at ``seed * size``."""
    ordered = sorted(set(ids), key=_order_key)
    if size >= len(ordered):
        return Sample(seed=seed, ids=tuple(ordered), total=len(ordered))
    start = (seed * size) % len(ordered)
    window = [ordered[(start + index) % len(ordered)] for index in range(size)]
    return Sample(seed=seed, ids=tuple(window), total=len(ordered))
