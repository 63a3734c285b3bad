"""What one step of a rebase or lineage verification has proven about a session file, handed as a
value to the step that uses it (docs/rebase.md, "What one run reads").

The prefix check (upstream ``checkPrefix``: the first ``size`` bytes of a session file still hash
to the SHA-256 captured with them) is :func:`prefix_holds`; a rebase repeats it at every step
after the capture (contract §6.2 step 24, §6.9), lineage verification for every source (§6.13
step 3).  A :class:`ProvenPrefix` is a check that just passed; the check
that immediately follows on the same bytes takes it instead of hashing again.  A
:class:`SourceScan` is a read that validated and hashed a whole file; a later step takes it while
the file's stamp (device, inode, size, modification and change time) is the one the scan began with, and
the prefix check of contract §6.2 step 24 hashes the file again against the scan's SHA-256, so a
change the stamp could miss is still caught.  Nothing is kept between runs.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from reference.pi.exact.reader import open_session_file
from reference.pi.model.session import SourceScan, scan_source
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import is_safe_integer
from reference.primitives.platform_ops.identity import stat_identity
from reference.primitives.platform_ops.paths import real_path

_HEX64: Final = re.compile(r"[a-f0-9]{64}")
_CHUNK: Final = 1024 * 1024


def sha256_prefix(path: str, size: int) -> str | None:
    """SHA-256 of bytes ``[0, size)`` of ``path`` (the one function that hashes a prefix); None
    when the file is shorter."""
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


@dataclass(frozen=True)
class ProvenPrefix:
    """Bytes ``[0, size)`` of the file at ``path`` (a real path) hashed to ``sha256``."""

    path: str
    size: int
    sha256: str


def prefix_holds(path: str, size: Any, sha256: Any, proven: ProvenPrefix | None = None) -> ProvenPrefix | None:
    """The prefix check (a safe size of at least 1, 64 lower-case hex, a file at least that long
    whose first ``size`` bytes hash to ``sha256``): ``proven`` when it is exactly this claim (the
    check just before it hashed these bytes), else a real hash.  The proof of a check that
    passed; None otherwise."""
    if not (is_safe_integer(size) and size >= 1 and isinstance(sha256, str) and _HEX64.fullmatch(sha256)):
        return None
    claim = ProvenPrefix(real_path(path), int(size), sha256)
    if proven is not None and proven == claim:
        return claim
    try:
        holds = os.stat(path).st_size >= size and sha256_prefix(path, int(size)) == sha256
    except OSError:
        return None
    return claim if holds else None


def prove_prefix(path: str, size: Any, sha256: Any, code: Code = Code.ARCHIVE_CHANGED,
                 proven: ProvenPrefix | None = None) -> ProvenPrefix:
    """:func:`prefix_holds` or ``code`` (``archive-changed`` for a source, ``target-integrity``
    for a target)."""
    holds = prefix_holds(path, size, sha256, proven)
    if holds is None:
        raise ContractViolation(code, "the captured prefix of the session file no longer matches its fingerprint")
    return holds


def scan_once(path: str, scans: Iterable[SourceScan]) -> SourceScan:
    """A scan of ``path`` (by real path) whose file still has the stamp the scan began with, or a
    new scan of ``path``."""
    real = real_path(path)
    for scan in scans:
        try:
            if real_path(scan.path) == real and stat_identity(os.stat(real)) == scan.stamp:
                return scan
        except OSError:
            break
    return scan_source(path)


def prefix_scan(path: str, size: int, sha256: str, scans: Iterable[SourceScan]) -> SourceScan | None:
    """A scan of exactly the ``size`` bytes hashing to ``sha256`` when the file still has that
    size (the caller has just verified that prefix)."""
    real = real_path(path)
    for scan in scans:
        if real_path(scan.path) != real or scan.size != size or scan.sha256 != sha256:
            continue
        try:
            return scan if os.stat(real).st_size == size else None
        except OSError:
            return None
    return None
