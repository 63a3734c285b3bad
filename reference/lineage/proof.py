"""What one step of a rebase or lineage verification has proven about a session file, handed as a
value to the step that uses it (docs/rebase.md, "What one run reads").

A :class:`ProvenPrefix` is a prefix check (upstream ``checkPrefix``) that just passed; the check
that immediately follows on the same bytes takes it instead of hashing again.  A
:class:`SourceScan` is a read that validated and hashed a whole file; a later step takes it while
the file's stamp (device, inode, size, modification and change time) is the one the scan began with, and
the prefix check of contract §6.2 step 24 hashes the file again against the scan's SHA-256, so a
change the stamp could miss is still caught.  Nothing is kept between runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from reference.pi.model.session import SourceScan, scan_source
from reference.pi.prefix import prefix_matches, prefix_shape_ok
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.identity import stat_identity
from reference.primitives.platform_ops.paths import real_path


@dataclass(frozen=True)
class ProvenPrefix:
    """Bytes ``[0, size)`` of the file at ``path`` (a real path) hashed to ``sha256``."""

    path: str
    size: int
    sha256: str

    @classmethod
    def of(cls, path: str, size: Any, sha256: Any) -> ProvenPrefix | None:
        """The claim a check of ``(path, size, sha256)`` makes; None for a malformed size or hash."""
        if not prefix_shape_ok(size, sha256):
            return None
        return cls(real_path(path), int(size), str(sha256))


def prefix_holds(path: str, size: Any, sha256: Any, proven: ProvenPrefix | None = None) -> ProvenPrefix | None:
    """The prefix check: ``proven`` when it is exactly this claim (the check just before it
    hashed these bytes), else a real hash.  The proof of a check that passed; None otherwise."""
    claim = ProvenPrefix.of(path, size, sha256)
    if claim is None:
        return None
    if proven is not None and proven == claim:
        return claim
    return claim if prefix_matches(path, size, sha256) else None


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
