"""One implementation's expectations manifest: what it knows it fails, skips or flakes on.

A TOML file (``tomllib``), validated against ``schemas/expectations/v1/manifest.schema.json``:
``implementation = "my-port"`` and ``[[expectation]]`` tables with ``id``, ``status`` and
``reason``. Sparse and default PASS, as WPT's metadata: a scenario no entry names must pass.
An ``id`` is a scenario id (it covers every row of an outline), a row id ``AREA-NNN[case]``, or a
glob of them with ``*`` and ``?`` (``[`` is literal, it opens a case).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any, Final

from conformance import named_inputs, schemas

MANIFEST_SCHEMA: Final = "expectations/v1/manifest.schema.json"
INVALID: Final = "expectations-invalid"
GLOB_CHARACTERS: Final = frozenset("*?")


class Expected(StrEnum):
    """What an entry expects of the scenarios its id matches."""

    XFAIL = "xfail"  # strict: it must not pass
    SKIP = "skip"  # not run at all
    FLAKY = "flaky"  # any of its ``outcomes``


class ManifestError(Exception):
    """A manifest that cannot be read or does not follow its schema: one line for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = INVALID
        self.message = message


def row_base(row_id: str) -> str:
    """``READER-021`` for ``READER-021[case]`` (and for ``READER-021`` itself)."""
    return row_id.split("[", 1)[0]


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """``*`` and ``?`` as in a shell; every other character, ``[`` included, stands for itself."""
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile("".join(parts) + r"\Z")


@dataclass(frozen=True)
class Expectation:
    """One ``[[expectation]]`` table."""

    id: str
    status: Expected
    reason: str
    outcomes: tuple[str, ...] = ()
    issue: str = ""

    @property
    def is_glob(self) -> bool:
        return bool(GLOB_CHARACTERS & set(self.id))

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        return _glob_regex(self.id)

    def matches(self, row_id: str) -> bool:
        """This entry covers ``row_id``: the row itself, its scenario, or a glob of either."""
        return any(self._regex.match(candidate) for candidate in {row_id, row_base(row_id)})

    def specificity(self, row_id: str) -> int:
        """An exact row id beats the exact scenario id, which beats any glob (longer globs first)."""
        if self.id == row_id:
            return 1_000_000
        if self.id == row_base(row_id):
            return 100_000
        return len(self.id)


@dataclass(frozen=True)
class Manifest:
    """A whole manifest: the implementation it is for and its entries, in file order."""

    implementation: str
    expectations: tuple[Expectation, ...] = ()

    def expectation_for(self, row_id: str) -> Expectation | None:
        """The most specific entry covering ``row_id`` (the first in the file on a tie)."""
        matching = [e for e in self.expectations if e.matches(row_id)]
        return max(matching, key=lambda e: e.specificity(row_id), default=None)

    def unknown_ids(self, known_rows: Iterable[str]) -> list[str]:
        """Entries whose id matches no known scenario or row: stale or misspelt."""
        rows = list(known_rows)
        return [e.id for e in self.expectations if not any(e.matches(row) for row in rows)]


def _expectation(table: dict[str, Any]) -> Expectation:
    return Expectation(
        id=str(table["id"]),
        status=Expected(table["status"]),
        reason=str(table["reason"]),
        outcomes=tuple(str(o) for o in table.get("outcomes", ())),
        issue=str(table.get("issue", "")),
    )


def parse_manifest(data: dict[str, Any], *, where: str) -> Manifest:
    """A manifest from its TOML document, refused with its first schema error."""
    problems = schemas.errors(data, MANIFEST_SCHEMA)
    if problems:
        raise ManifestError(f"{where}: {schemas.describe(problems[0])}")
    seen: set[str] = set()
    for table in data.get("expectation", []):
        if table["id"] in seen:
            raise ManifestError(f"{where}: id {table['id']!r} has two entries")
        seen.add(table["id"])
    return Manifest(str(data["implementation"]), tuple(_expectation(t) for t in data.get("expectation", [])))


def load_manifest(path: Path) -> Manifest:
    """Read and validate one manifest file; every problem is a :class:`ManifestError`."""
    try:
        text = named_inputs.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not TOML: {exc}") from None
    return parse_manifest(data, where=str(path))
