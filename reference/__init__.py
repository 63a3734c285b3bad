"""recall-rebase reference implementation: a pure core plus thin I/O.

Pi's JSONL is canonical; every SQLite file is a disposable projection.
"""

from __future__ import annotations

__version__ = "0.1.0"
