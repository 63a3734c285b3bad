"""How Pi stamps and names things: the fixed clock and UUIDv7 ids (ISO timestamps are
``reference.primitives.jsvalues.to_iso_string``, session file names
``reference.primitives.platform_ops.paths.session_file_name``).

Why: generated files must carry the names and timestamps Pi 0.84.3 would give them
(pi-session-model.md §1), from a fixed clock so the bytes never depend on when they were made.
"""

from __future__ import annotations

import random
from typing import Final

BASE_CLOCK_MS: Final = 1_748_779_200_000  # 2025-06-01T12:00:00.000Z, the clock gen.mjs uses


def uuid7(rng: random.Random, ms: int) -> str:
    """A UUIDv7 shape: 48-bit time, version 7, variant 10, the rest from the PRNG."""
    value = (
        (ms & (2**48 - 1)) << 80 | 0x7 << 76 | rng.getrandbits(12) << 64 | 0b10 << 62 | rng.getrandbits(62)
    )
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
