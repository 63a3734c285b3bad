"""Session file lines for the block read and scan tests: a header and plain message entries."""

from __future__ import annotations

import json
from typing import Any

HEADER = b'{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}'


def entry(entry_id: str, parent: str | None, **extra: Any) -> bytes:
    value = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": "hi"}, **extra}
    return json.dumps(value, separators=(",", ":")).encode()
