"""Time for refs and results: epoch milliseconds from an injectable clock.

The product reads the system clock; the conformance adapter sets a manual one, so the 10-minute
reference lifetime can be tested without waiting.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int: ...


class SystemClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


@dataclass
class ManualClock:
    """A clock that moves only when told to (the adapter's ``clock.set``/``clock.advance``)."""

    now: int = 0

    def now_ms(self) -> int:
        return self.now

    def set(self, now_ms: int) -> None:
        self.now = now_ms

    def advance(self, delta_ms: int) -> None:
        self.now += delta_ms
