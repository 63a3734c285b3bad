"""Platforms: the operating-system primitives a scenario needs, held against where the port runs.

A scenario that needs a primitive some platform lacks carries two tags: ``@platform:posix`` (the
platforms it runs on: ``posix``, ``linux``, ``macos``, ``windows``, comma-separated) and
``@needs:permission-bits`` (the primitives of :data:`PRIMITIVES` it needs). The platform judged is
the one the implementation's hello declares (``platform``), else the runner's own. On any other
platform the scenario is UNSUPPORTED before its first step, with the primitive named: never
skipped silently, never FAIL (the capability semantics of :mod:`conformance.capabilities`).
``conformance check`` holds the tags to this grammar and to the catalogue: a scenario runs exactly
on the platforms that have every primitive it needs, so the tags cannot say more than the contract.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from conformance.capabilities import Unsupported

PLATFORM_TAG: Final = "platform:"
NEEDS_TAG: Final = "needs:"


class Platform(StrEnum):
    """What a hello's ``platform`` may say; ``posix`` is a POSIX system other than Linux and macOS."""

    LINUX = "linux"
    MACOS = "macos"
    WINDOWS = "windows"
    POSIX = "posix"


EVERY_PLATFORM: Final = frozenset(Platform)
#: What a ``@platform:`` name covers: ``posix`` is the family, the others one platform each.
TAG_NAMES: Final[Mapping[str, frozenset[Platform]]] = {
    "posix": frozenset({Platform.LINUX, Platform.MACOS, Platform.POSIX}),
    "linux": frozenset({Platform.LINUX}),
    "macos": frozenset({Platform.MACOS}),
    "windows": frozenset({Platform.WINDOWS}),
}


@dataclass(frozen=True)
class Primitive:
    """An operating-system primitive a scenario may need, where it exists, and the contract's words."""

    name: str
    platforms: frozenset[Platform]
    contract: str


PRIMITIVES: Final[Mapping[str, Primitive]] = {p.name: p for p in (
    Primitive("permission-bits", TAG_NAMES["posix"],
              "POSIX permission bits, files 0600 and folders 0700 (contract §6.5 durable write, §6.12; D6); "
              "Windows has none: files take their folder's inherited ACL"),
    Primitive("symlink", TAG_NAMES["posix"],
              "symbolic links an unprivileged process can make (contract §7.2 case 16: "
              "'Symlink alias (skipped on Windows)')"),
    Primitive("directory-fsync", TAG_NAMES["posix"],
              "fsync of a folder (contract §6.5 durable write step 4: a failure is 'ignored on Windows only, "
              "because Node cannot fsync directories there')"),
    Primitive("hard-link", EVERY_PLATFORM,
              "the no-overwrite install by hard link (contract §6.5 step 3); NTFS has hard links "
              "(CreateHardLinkW), a FAT or exFAT volume refuses it on any platform"),
    Primitive("process-death-release", EVERY_PLATFORM,
              "the kernel releases the SQLite lock of a process that dies (contract §6.12: POSIX fcntl "
              "locks, Windows LockFileEx)"),
)}


def platform_of(system: str = sys.platform) -> Platform:
    """The hello's name of a ``sys.platform`` value: ``linux``, ``macos``, ``windows``, else ``posix``."""
    if system.startswith("linux"):
        return Platform.LINUX
    if system == "darwin":
        return Platform.MACOS
    if system == "win32":
        return Platform.WINDOWS
    return Platform.POSIX


def tag_words(platforms: Iterable[Platform]) -> str:
    """The ``@platform:`` value naming exactly these platforms (``posix`` for the whole family)."""
    wanted = frozenset(platforms)
    family = TAG_NAMES["posix"]
    names = ["posix", *sorted(wanted - family)] if family <= wanted else sorted(wanted)
    return ",".join(names)


def _values(tags: Iterable[str], prefix: str) -> list[list[str]]:
    return [tag[len(prefix):].split(",") for tag in tags if tag.startswith(prefix)]


@dataclass(frozen=True)
class Requirement:
    """A scenario's ``@platform:`` and ``@needs:`` tags (without ``@``), as written."""

    names: tuple[str, ...]
    needs: tuple[str, ...]

    @classmethod
    def of(cls, tags: Iterable[str]) -> Requirement | None:
        """The requirement of a scenario's tags (the feature's too), or None without a platform tag."""
        listed = list(tags)
        names = [name for values in _values(listed, PLATFORM_TAG) for name in values]
        needs = [name for values in _values(listed, NEEDS_TAG) for name in values]
        return cls(tuple(names), tuple(needs)) if names else None

    @property
    def platforms(self) -> frozenset[Platform]:
        return frozenset().union(*(TAG_NAMES.get(name, frozenset()) for name in self.names))

    def missing_on(self, platform: Platform) -> list[Primitive]:
        """The needed primitives this platform lacks ([] when the scenario runs there)."""
        if platform in self.platforms:
            return []
        lacking = [PRIMITIVES[n] for n in self.needs if n in PRIMITIVES and platform not in PRIMITIVES[n].platforms]
        return lacking or [PRIMITIVES[n] for n in self.needs if n in PRIMITIVES]


def tag_problems(tags: Iterable[str]) -> list[str]:
    """What ``conformance check`` says of one scenario's tags (its feature's included, no ``@``)."""
    listed = list(tags)
    platform_tags = _values(listed, PLATFORM_TAG)
    needs = [name for values in _values(listed, NEEDS_TAG) for name in values]
    problems = [f"@platform:{name} is not a platform (known: {', '.join(TAG_NAMES)})"
                for values in platform_tags for name in values if name not in TAG_NAMES]
    problems += [f"@needs:{name} is not a primitive (known: {', '.join(PRIMITIVES)})"
                 for name in needs if name not in PRIMITIVES]
    if len(platform_tags) > 1:
        problems.append("more than one @platform tag: name the platforms in one, comma-separated")
    if problems:
        return problems
    runs_on = Requirement.of(listed)
    where = runs_on.platforms if runs_on is not None else EVERY_PLATFORM
    if runs_on is not None and not needs:
        problems.append(f"@platform:{','.join(runs_on.names)} names no primitive: add @needs:PRIMITIVE "
                        "with what the other platforms lack")
    elif needs:
        having = frozenset(EVERY_PLATFORM).intersection(*(PRIMITIVES[name].platforms for name in needs))
        if having != where:
            said = f"@platform:{','.join(runs_on.names)}" if runs_on is not None else "no @platform tag"
            wanted = f"@platform:{tag_words(having)}" if having != EVERY_PLATFORM else "no @platform tag"
            problems.append(f"{said} with @needs:{','.join(needs)}: the primitives exist on "
                            f"{', '.join(sorted(having))}, so the scenario needs {wanted}")
    return problems


class PrimitiveMissing(Unsupported):
    """The implementation's platform lacks a primitive the scenario needs."""

    def __init__(self, platform: Platform, declared: bool, requirement: Requirement) -> None:
        lacking = requirement.missing_on(platform)
        whose = "declared in the implementation's hello" if declared else "the runner's own: the hello declares none"
        words = "".join(f"\n{p.name}: {p.contract}" for p in lacking)
        super().__init__(f"needs {', '.join(p.name for p in lacking)}, which platform {platform.value!r} ({whose}) "
                         f"lacks; the scenario runs on @platform:{','.join(requirement.names)}{words}")
        self.judged = {"platform": platform.value, "declared": declared, "primitives": [p.name for p in lacking]}

    @property
    def missing(self) -> dict[str, Any]:
        return self.judged


def judged_platform(declared: str | None) -> tuple[Platform, bool]:
    """The platform a run judges tags against, and whether the implementation declared it."""
    return (Platform(declared), True) if declared is not None else (platform_of(), False)
