"""What one rebase run has read, shared by its steps (docs/benchmarks.md, "Rebase").

Within one run (:func:`scan_scope`) the scan of a file is shared: a later step that has just
hashed the same bytes (the same size and SHA-256) reuses it (:func:`cached_scan`) instead of
parsing the file again, and a prefix hash computed for one contract check is handed to the
check that immediately follows it on the same bytes (:func:`shared_prefix_matches`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reference.pi.prefix import prefix_matches, prefix_shape_ok
from reference.primitives.platform_ops import real_path

if TYPE_CHECKING:
    from reference.pi.model.session import SourceScan


@dataclass
class ScanScope:
    """What one rebase run has read: the scan of each file (by real path) and prefix checks
    handed from one contract check to the next."""

    scans: dict[str, SourceScan] = field(default_factory=dict)
    handed: set[tuple[str, int, str]] = field(default_factory=set)
    remember: bool = False  # the next verified source prefix is handed to the following check


_SCOPE: ContextVar[ScanScope | None] = ContextVar("rebase_scan_scope", default=None)


@contextlib.contextmanager
def scan_scope() -> Iterator[ScanScope]:
    """The scope of one run; nested calls share the outer one.  Everything is dropped at exit."""
    current = _SCOPE.get()
    if current is not None:
        yield current
        return
    scope = ScanScope()
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def current_scope() -> ScanScope | None:
    return _SCOPE.get()


def _key(path: str, size: Any, expected: Any) -> tuple[str, int, str] | None:
    if not prefix_shape_ok(size, expected):
        return None
    return real_path(path), int(size), str(expected)


def hand_over(path: str, size: Any, expected: Any) -> None:
    """Hand a prefix just verified to the check that immediately follows on the same bytes."""
    scope, key = _SCOPE.get(), _key(path, size, expected)
    if scope is not None and key is not None:
        scope.handed.add(key)


def take_over(path: str, size: Any, expected: Any) -> bool:
    """Whether the check just before verified this prefix (and then it is used up)."""
    scope, key = _SCOPE.get(), _key(path, size, expected)
    if scope is None or key is None or key not in scope.handed:
        return False
    scope.handed.discard(key)
    return True


def shared_prefix_matches(path: str, size: Any, expected: Any) -> bool:
    """:func:`prefix_matches`, or the hand-over of the check just before it; a real check hands
    its result on when the scope asks for it (:attr:`ScanScope.remember`)."""
    if take_over(path, size, expected):
        return True
    matched = prefix_matches(path, size, expected)
    scope = _SCOPE.get()
    if matched and scope is not None and scope.remember:
        scope.remember = False
        hand_over(path, size, expected)
    return matched


def cached_scan(path: str, size: int, sha256: str) -> SourceScan | None:
    """The run's scan of ``path`` when it read exactly ``size`` bytes hashing to ``sha256`` and
    the file still has that size (the caller has just verified that prefix)."""
    scope = _SCOPE.get()
    if scope is None:
        return None
    real = real_path(path)
    scan = scope.scans.get(real)
    if scan is None or scan.size != size or scan.sha256 != sha256:
        return None
    try:
        if os.stat(real).st_size != size:
            return None
    except OSError:
        return None
    return scan
