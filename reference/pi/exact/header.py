"""The session header's version policy: which versions Pi 0.84.3 reads as they are, which it
migrates (legacy), and how each reader of this project refuses the others.

Pi writes version 3.  A missing or null version, or a number below 2, is a version 1 file; a
number from 2 up to 3 is version 2: Pi rewrites both on open, the reference only reads them
(decisions R2).  A larger number is newer than Pi knows (R3).  Anything else (a string, a
boolean) is no number at all.  Every check of a header version in the reference asks
:func:`version_status`; the readers differ only in what they refuse, and say so by name:

* the index (:func:`refuse_unindexable_version`) refuses legacy and newer numbers and reads a
  header whose version is no number as it is;
* a rebase source, a lineage source and a rebase pair (:func:`is_current_version`,
  :func:`require_current_version`) accept exactly version 3.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import UNDEFINED
from reference.primitives.jsvalues import is_number
from reference.primitives.platform_ops.family import CURRENT, Platform
from reference.primitives.platform_ops.paths import canonical_path

CURRENT_VERSION: Final = 3


class VersionStatus(StrEnum):
    """What a header ``version`` value is to Pi 0.84.3."""

    CURRENT = "current"  # 3 (or 3.0)
    LEGACY_1 = "legacy-1"  # missing, null or a number below 2: migrated on open
    LEGACY_2 = "legacy-2"  # a number from 2 up to 3: migrated on open
    NEWER = "newer"  # a number above 3
    NOT_A_NUMBER = "not-a-number"  # a string, a boolean, an object (or NaN)


def version_status(version: Any) -> VersionStatus:
    """The status of a header's ``version`` (``UNDEFINED`` or ``None`` when it has none)."""
    if version is UNDEFINED or version is None:
        return VersionStatus.LEGACY_1
    if not is_number(version):
        return VersionStatus.NOT_A_NUMBER
    if version < 2:
        return VersionStatus.LEGACY_1
    if version < CURRENT_VERSION:
        return VersionStatus.LEGACY_2
    if version == CURRENT_VERSION:
        return VersionStatus.CURRENT
    if version > CURRENT_VERSION:
        return VersionStatus.NEWER
    return VersionStatus.NOT_A_NUMBER


def legacy_version(version: Any) -> int | None:
    """1 or 2 for a legacy file, else None."""
    status = version_status(version)
    return 1 if status is VersionStatus.LEGACY_1 else 2 if status is VersionStatus.LEGACY_2 else None


def is_current_version(version: Any) -> bool:
    """Exactly version 3 (a boolean is no version)."""
    return version_status(version) is VersionStatus.CURRENT


def require_current_version(version: Any) -> None:
    """A rebase source (§6.2 step 15): version 3 before anything else is looked at."""
    if not is_current_version(version):
        raise ContractViolation(Code.UNSUPPORTED_SOURCE_VERSION,
                                f"session version {version!r} is not 3; Pi would rewrite the file on open")


def refuse_unindexable_version(version: Any, path: str) -> None:
    """The index (R2, R3): legacy and newer numbers are refused; no number is read as it is."""
    status = version_status(version)
    if status is VersionStatus.LEGACY_1 or status is VersionStatus.LEGACY_2:
        raise ContractViolation(
            Code.UNSUPPORTED_SOURCE_VERSION,
            f"{path} is a legacy (version 1 or 2) session file, which Pi rewrites when it opens it; "
            "the index reads only version 3 files (docs/decisions.md R2)",
        )
    if status is VersionStatus.NEWER:
        raise ContractViolation(
            Code.UNSUPPORTED_SOURCE_VERSION,
            f"{path} has session format version {version}, newer than the supported {CURRENT_VERSION}",
        )


def same_project(cwd: Any, project_path: str, *, platform: Platform = CURRENT) -> bool:
    """The header ``cwd`` is a string naming the project (compared as canonical paths)."""
    return isinstance(cwd, str) and canonical_path(cwd, platform=platform) == canonical_path(project_path, platform=platform)
