"""Text as the index stores it: SQLite stores UTF-8, so a lone surrogate (which only the
JavaScript-faithful parser keeps) becomes U+FFFD, as a JavaScript string written to it does."""

from __future__ import annotations

import re
from typing import Final

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text
