"""Which platform family a primitive takes its branch for: the one place that picks it.

Every OS-dependent primitive in ``reference.primitives.platform_ops`` takes a ``platform``
keyword whose default is :data:`CURRENT`, picked once here from ``sys.platform``.  Tests pass
:data:`WINDOWS` or :data:`MACOS` (with pyfakefs emulating that file system) instead of patching
``sys.platform``: the branch is a value, not a global.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Final


class Platform(StrEnum):
    """A platform family, the three branches a primitive can take, and the facts about it that
    the primitives branch on."""

    POSIX = "posix"  # Linux and every other POSIX system that is not macOS (the BSDs, Cygwin)
    MACOS = "macos"  # darwin: POSIX, plus F_FULLFSYNC and case-insensitive volumes by default
    WINDOWS = "windows"  # win32

    @property
    def windows(self) -> bool:
        """Windows: canonical paths lower-cased (contract §0.2; macOS volumes ignore case too, but
        two spellings stay two paths there), no folder fsync (§6.5 step 4),
        no ``O_NOFOLLOW``, no ``pread``, no POSIX mode bits, ``st_ctime`` the creation time."""
        return self is Platform.WINDOWS

    @property
    def macos(self) -> bool:
        """macOS: a plain ``fsync`` leaves data in the drive cache; ``F_FULLFSYNC`` flushes it."""
        return self is Platform.MACOS


POSIX: Final = Platform.POSIX
MACOS: Final = Platform.MACOS
WINDOWS: Final = Platform.WINDOWS


def platform_of(sys_platform: str) -> Platform:
    """The family of a ``sys.platform`` value: ``win32`` is Windows, ``darwin`` macOS, the rest POSIX."""
    if sys_platform == "win32":
        return WINDOWS
    if sys_platform == "darwin":
        return MACOS
    return POSIX


#: This process's platform, the default of every primitive's ``platform`` keyword.
CURRENT: Final = platform_of(sys.platform)
#: ``CURRENT.windows``, for branches outside the primitives (Pi's host rules) that take a bool.
IS_WINDOWS: Final = CURRENT.windows
