"""The catalogue of port bugs (``conformance/mutants/*.toml``) read as values: the one reader.

``tools/mutants.py`` checks, applies and judges the entries (``tools/mutation/catalogue.py``);
``conformance coverage`` and ``conformance check`` read which clauses of ``docs/spec/`` each entry
breaks (issue 26). The files ship in the wheel beside this module.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

#: ``id = "LOCK-M002"`` at the start of a line: where an entry of a catalogue file begins.
ENTRY_ID_LINE: Final = re.compile(r'^id\s*=\s*"(?P<id>[^"]+)"', re.MULTILINE)


def catalogue_dir() -> Path:
    """The packaged catalogue (the same folder in a checkout and in a wheel)."""
    return Path(__file__).resolve().parent / "mutants"


@dataclass(frozen=True)
class Mutant:
    """One plausible port bug: the text it replaces, where the contract forbids it, who kills it,
    and the clause ids of ``docs/spec/`` it breaks."""

    id: str
    area: str
    section: str
    bug: str
    kills: tuple[str, ...]
    find: str
    replace: str
    source: str  # the catalogue file it comes from
    clauses: tuple[str, ...] = ()
    line: int = 0  # 1-based line of its ``id =`` in ``source`` (0: not found)


def read_entries(path: Path) -> list[dict[str, Any]]:
    """The raw ``[[mutant]]`` tables of one file (validated by ``tools/mutation/catalogue.py``)."""
    entries: Any = tomllib.loads(path.read_text(encoding="utf-8")).get("mutant", [])
    return list(entries) if isinstance(entries, list) else []


def catalogue_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.toml"))


def entry_lines(text: str) -> dict[str, int]:
    """Each entry id of a catalogue file's text and the 1-based line of its ``id =`` (the first one)."""
    lines: dict[str, int] = {}
    for found in ENTRY_ID_LINE.finditer(text):
        lines.setdefault(found.group("id"), text.count("\n", 0, found.start()) + 1)
    return lines


def load(folder: Path) -> list[Mutant]:
    """Every entry of every catalogue file, in file and entry order (check the files first)."""
    mutants: list[Mutant] = []
    for path in catalogue_files(folder):
        lines = entry_lines(path.read_text(encoding="utf-8"))
        mutants += [Mutant(id=entry["id"], area=entry["area"], section=entry["section"], bug=entry["bug"],
                           kills=tuple(entry["kills"]), find=entry["find"], replace=entry["replace"],
                           source=path.name, clauses=tuple(entry.get("clauses", ())),
                           line=lines.get(entry["id"], 0))
                    for entry in read_entries(path)]
    return mutants
