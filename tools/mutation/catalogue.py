"""The catalogue of port bugs as data: load ``conformance/mutants/*.toml``, check it, apply an entry.

An entry is applied by content: its ``find`` text must occur exactly once under ``reference/``
(so moving a file does not break it). What the JSON Schema cannot say is checked here: ids
unique across files, the area is the id's prefix, every ``kills`` pattern names at least one
scenario of ``features/`` (so a typo cannot make an entry look killed by another scenario), and
every id of ``clauses`` is a clause of ``docs/spec/``. The entries are read by
:mod:`conformance.mutant_catalogue`, the one reader ``conformance coverage`` uses too.
"""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from collections.abc import Iterable, Set
from pathlib import Path
from typing import Final

from jsonschema import Draft202012Validator

from conformance.clauses import clauses
from conformance.mutant_catalogue import Mutant, catalogue_files, load

SCHEMA: Final = Path("schemas") / "mutants" / "v1" / "catalogue.schema.json"
SCENARIO_TAG: Final = re.compile(r"@id:([A-Z]+-[0-9]+)\b")


def folder_problems(folder: Path) -> list[str]:
    """A folder holding no catalogue file (a mistyped ``--catalogue``) is refused, never judged as empty."""
    return [] if catalogue_files(folder) else [f"{folder}: no *.toml catalogue file there"]


def schema_problems(path: Path, root: Path) -> list[str]:
    """The file's departures from the catalogue schema (formats checked), or why it does not parse."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return [f"{path.name}: not TOML: {exc}"]
    schema = json.loads((root / SCHEMA).read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [f"{path.name}: {error.json_path}: {error.message}"
            for error in sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))]


def scenario_ids(features: Path) -> set[str]:
    """Every ``@id:AREA-NNN`` tag of the feature files."""
    return {match.group(1) for path in features.rglob("*.feature")
            for match in SCENARIO_TAG.finditer(path.read_text(encoding="utf-8"))}


def clause_ids(root: Path) -> set[str]:
    """Every clause id of the checkout's ``docs/spec/``."""
    return {clause.id for clause in clauses(root / "docs" / "spec")}


def unknown_kills(mutant: Mutant, scenarios: Iterable[str]) -> list[str]:
    """The entry's ``kills`` patterns that match no scenario (as ``conformance run --id`` matches)."""
    known = sorted(scenarios)
    return [pattern for pattern in mutant.kills
            if not any(_kill_matches(pattern, scenario) for scenario in known)]


def _kill_matches(pattern: str, scenario: str) -> bool:
    """``READER-021`` or a glob of it; ``READER-021[case]`` names a row of that scenario."""
    head = pattern.split("[", 1)[0] if not any(mark in pattern for mark in "*?") else pattern
    return fnmatch.fnmatchcase(scenario, head) or fnmatch.fnmatchcase(scenario, pattern)


def entry_problems(mutants: list[Mutant], scenarios: set[str], clause_ids: Set[str]) -> list[str]:
    """Cross-entry and cross-suite rules: unique ids, area = id prefix, find != replace, kills known,
    clauses known (one line per problem)."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    areas = {scenario.split("-", 1)[0] for scenario in scenarios}
    for mutant in mutants:
        where = f"{mutant.id} ({mutant.source})"
        if mutant.id in seen:
            problems.append(f"{where}: id already used in {seen[mutant.id]}")
        seen.setdefault(mutant.id, mutant.source)
        if mutant.id.split("-", 1)[0] != mutant.area:
            problems.append(f"{where}: area {mutant.area} is not the id's {mutant.id.split('-', 1)[0]}")
        if mutant.area not in areas:
            problems.append(f"{where}: area {mutant.area} has no scenario in features/")
        if mutant.find == mutant.replace:
            problems.append(f"{where}: replace equals find (no change)")
        for pattern in unknown_kills(mutant, scenarios):
            problems.append(f"{where}: kills {pattern!r} matches no scenario id in features/")
        problems += [f"{mutant.source}:{mutant.line}: {mutant.id} names clause {clause!r}, no clause of docs/spec/"
                     for clause in mutant.clauses if clause not in clause_ids]
    return problems


def problems(folder: Path, root: Path) -> list[str]:
    """Everything wrong with the catalogue in ``folder`` before any entry is applied."""
    found = folder_problems(folder) + [problem for path in catalogue_files(folder)
                                       for problem in schema_problems(path, root)]
    if found:
        return found
    return entry_problems(load(folder), scenario_ids(root / "features"), clause_ids(root))


def occurrences(mutant: Mutant, tree: Path) -> list[Path]:
    """The files under ``tree/reference`` holding the entry's text, one path per occurrence."""
    found: list[Path] = []
    for path in sorted((tree / "reference").rglob("*.py")):
        found.extend([path] * path.read_text(encoding="utf-8").count(mutant.find))
    return found


def stale_reason(mutant: Mutant, tree: Path) -> str | None:
    """Why the entry cannot be applied to ``tree`` (its text not found exactly once), else None."""
    found = occurrences(mutant, tree)
    if len(found) == 1:
        return None
    if not found:
        return "its find text occurs 0 times under reference/"
    files = sorted({path.relative_to(tree).as_posix() for path in found})
    return f"its find text occurs {len(found)} times under reference/ ({', '.join(files)}): extend it"


def apply(mutant: Mutant, tree: Path) -> str | None:
    """Patch ``tree`` in place and return None; or return the stale reason, writing nothing."""
    reason = stale_reason(mutant, tree)
    if reason is not None:
        return reason
    path = occurrences(mutant, tree)[0]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(mutant.find, mutant.replace, 1), encoding="utf-8")
    return None
