"""The prefix check (upstream ``checkPrefix``): the first ``size`` bytes of a session file still
hash to the SHA-256 captured with them.  A rebase repeats it at every step after the capture
(contract §6.2 step 24, §6.9), lineage verification for every source (§6.13 step 3), through
:mod:`reference.lineage.proof`, which hands a check that passed to the one that follows it.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Any, Final

from reference.pi.exact.reader import open_session_file
from reference.primitives.jsvalues import is_safe_integer

_HEX64: Final = re.compile(r"[a-f0-9]{64}")
_CHUNK: Final = 1024 * 1024


def sha256_prefix(path: str, size: int) -> str | None:
    """SHA-256 of bytes ``[0, size)`` of ``path``; None when the file is shorter."""
    digest = hashlib.sha256()
    remaining = size
    with open_session_file(path) as stream:
        while remaining > 0:
            chunk = stream.read(min(_CHUNK, remaining))
            if not chunk:
                return None
            digest.update(chunk)
            remaining -= len(chunk)
    return digest.hexdigest()


def prefix_shape_ok(size: Any, expected: Any) -> bool:
    return bool(is_safe_integer(size) and size >= 1 and isinstance(expected, str) and _HEX64.fullmatch(expected))


def prefix_matches(path: str, size: Any, expected: Any) -> bool:
    """Upstream ``checkPrefix``: a safe size of at least 1, 64 lower-case hex, a file at least
    that long whose first ``size`` bytes hash to ``expected``."""
    if not prefix_shape_ok(size, expected):
        return False
    try:
        if os.stat(path).st_size < size:
            return False
        return bool(sha256_prefix(path, int(size)) == expected)
    except OSError:
        return False
