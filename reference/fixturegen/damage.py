"""Damaged lines: the malformed and blank lines a session may carry, and where they go.

Why: readers must survive lines ``JSON.parse`` rejects and blank lines anywhere (pi-session-model.md
§3.1); the generator places ``malformed`` and ``blank`` of them after seeded entry counts, and nothing
else in the file refers to them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from reference.fixturegen.naming import iso


class LineDamage:
    """Where the damaged lines go (after which entry count) and what they say."""

    def __init__(self, rng: random.Random, malformed: int, blank: int, entries: int) -> None:
        self.rng = rng
        hi = max(1, entries)
        self.malformed_at = Counter(rng.randrange(hi) for _ in range(malformed))
        self.blank_at = Counter(rng.randrange(hi) for _ in range(blank))

    def lines_after(self, after: int, clock: int) -> Iterator[str]:
        """The lines that follow the ``after``-th entry (0: the header): malformed ones, then blank ones."""
        for _ in range(self.malformed_at.get(after, 0)):
            yield self._malformed_line(clock)
        for _ in range(self.blank_at.get(after, 0)):
            yield self.rng.choice(("", "", "   ", "\t"))

    def _malformed_line(self, clock: int) -> str:
        """A line JSON.parse rejects; nothing else in the file refers to it."""
        ghost = f"{self.rng.getrandbits(32):08x}"
        ts = iso(clock)
        kinds = (
            f'{{"type":"message","id":"{ghost}","parentId":',
            f'{{"type":"custom","customType":"glued","id":"{ghost}"{{"type":"label","id":"{ghost}","timestamp":"{ts}"}}',
            "[pi] warning: extension rebase-state took 2.3s to load",
            f"{{'type': 'custom', 'customType': 'py-repr', 'id': '{ghost}'}}",
            f'{{"type":"session_info","id":"{ghost}","name":"trailing comma",}}',
        )
        return self.rng.choice(kinds)
