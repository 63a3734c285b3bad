"""What the generator is asked for and what it reports back: ``GenOptions`` and ``GeneratedSession``.

Why: the command line, the fixture manifest (``generated.options``) and the benchmarks all describe a
generated session with the same knobs; their bounds are checked once, here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ProgressCallback = Callable[[Path, int], None]


@dataclass(frozen=True)
class GenOptions:
    """What to generate; see ``fixtures/README.md`` for how each knob shows up in the file."""

    seed: int
    sessions: int = 1
    entries: int = 60
    siblings: int = 0
    compactions: int = 1
    branches: int = 2
    crlf: bool = False
    torn_tail: bool = False
    malformed: int = 0
    blank: int = 0
    legacy: int | None = None
    secrets: bool = True
    cwd: str = "/home/user/projects/demo"
    target_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.legacy not in (None, 1, 2):
            raise ValueError("legacy must be None, 1 or 2")
        counts = (
            self.sessions,
            self.entries,
            self.siblings,
            self.compactions,
            self.branches,
            self.malformed,
            self.blank,
        )
        if min(counts) < 0 or self.sessions < 1:
            raise ValueError("counts must be >= 0 and sessions >= 1")
        if self.target_bytes is not None and self.target_bytes < 1:
            raise ValueError("target_bytes must be positive")


@dataclass(frozen=True)
class GeneratedSession:
    """One written file, with the facts a test needs without re-reading it."""

    path: Path
    session_id: str
    entry_count: int
    leaf_id: str | None
    notable: dict[str, str] = field(default_factory=dict)
