"""Which scenarios and mutants check which clause of ``docs/spec/`` (issue 26): the one owner.

Three sources cite clauses: a scenario's ``@clause:C6.12-3`` tag (its feature's tags count for
each of its scenarios; ``@clause:A,B`` cites both), a mutant entry's ``clauses``
(:mod:`conformance.mutant_catalogue`) and ``features/unobservable.toml``, which lists the clauses
no scenario can check, each with its reason and the tests that check it instead::

    ["C6.8-4"]
    reason = "an fsync leaves no trace a port can show"
    tested_in = ["tests/primitives/test_durable.py", "tests/x.py::test_y"]

:func:`read_citations` reads them, :func:`coverage` joins them to the clauses: a clause is
*covered* when a scenario cites it, *unobservable* when it is listed with a reason instead, else
*uncovered*. What is wrong with the citations is :mod:`conformance.clause_rules`'s.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

from conformance.clauses import CLAUSE_TAG, Clause, clauses
from conformance.mutant_catalogue import Mutant, catalogue_dir, load
from conformance.suite import SUITE_ENV, docs_dir, features_dir, suite_root

UNOBSERVABLE: Final = "unobservable.toml"


@dataclass(frozen=True)
class Sources:
    """Where the citations are read: the spec, the features (``unobservable.toml`` among them),
    the mutant catalogue, and the folder ``tested_in`` paths are relative to."""

    spec_dir: Path
    features_dir: Path
    mutants_dir: Path
    root: Path

    @classmethod
    def packaged(cls) -> Sources:
        """The suite this toolkit carries, with its mutant catalogue; or the suite ``RECALL_REBASE_SUITE``
        names, with the catalogue under its ``conformance/mutants`` (none when it has no such folder)."""
        root = suite_root()
        mutants = root / "conformance" / "mutants" if os.environ.get(SUITE_ENV) else catalogue_dir()
        return cls(docs_dir() / "spec", features_dir(), mutants, root)

    @property
    def unobservable_file(self) -> Path:
        return self.features_dir / UNOBSERVABLE


@dataclass(frozen=True)
class Citing:
    """A scenario and the clause ids its tags cite (as written: :mod:`conformance.clause_rules`
    checks them), with the rows a report gives it."""

    scenario: str
    file: str  # "features/tree/tree.feature"
    line: int
    rows: tuple[str, ...]
    clauses: tuple[str, ...]

    @property
    def area(self) -> str:
        return self.scenario.split("-", 1)[0]


@dataclass(frozen=True)
class Unobservable:
    """An entry of ``features/unobservable.toml``: a clause no scenario can check, why, and where
    it is tested instead (an empty reason is kept, for the check to refuse)."""

    clause: str
    reason: str
    tested_in: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Citations:
    """Everything read: the clauses, and who cites them. ``unreadable``: why (part of)
    ``unobservable.toml`` could not be read, one line each, with its file and line."""

    clauses: tuple[Clause, ...]
    scenarios: tuple[Citing, ...]
    mutants: tuple[Mutant, ...]
    unobservable: tuple[Unobservable, ...]
    unreadable: tuple[str, ...] = ()


def tag_clauses(tags: Iterable[str]) -> tuple[str, ...]:
    """The clause ids of ``clause:A,B`` tags (no ``@``), in order, each once."""
    found = [value.strip() for tag in tags if tag.startswith(CLAUSE_TAG)
             for value in tag[len(CLAUSE_TAG):].split(",")]
    return tuple(dict.fromkeys(found))


def read_scenarios(features: Path) -> list[Citing]:
    """Every scenario of the feature files under ``features`` and the clauses it cites."""
    from conformance.suite_scenarios import list_scenarios

    return [Citing(scenario.id, f"features/{scenario.file}", scenario.line, scenario.rows, tag_clauses(scenario.tags))
            for scenario in list_scenarios(root=features)]


def _table_lines(text: str) -> dict[str, int]:
    """Each top-level table header of a TOML text (``["C6.8-4"]``, ``[C1-2]``) and its 1-based line."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        found = re.match(r"""^\s*\[\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]+))\s*\]""", line)
        if found:
            lines.setdefault(next(group for group in found.groups() if group is not None), number)
    return lines


def read_unobservable(path: Path) -> tuple[list[Unobservable], list[str]]:
    """The entries of ``unobservable.toml`` (none when it is absent) and why any could not be read."""
    if not path.is_file():
        return [], []
    where = f"features/{path.name}"
    text = path.read_text(encoding="utf-8")
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return [], [f"{where}: not TOML: {error}"]
    lines = _table_lines(text)
    entries: list[Unobservable] = []
    problems: list[str] = []
    for clause, table in document.items():
        line = lines.get(clause) or next((number for header, number in lines.items()
                                          if header.startswith(f"{clause}.")), 0)
        if isinstance(table, dict) and table and all(isinstance(value, dict) for value in table.values()):
            problems.append(f"{where}:{line}: [{clause}.…] is a dotted key: quote the clause id, [\"{clause}.…\"]")
            continue
        if not isinstance(table, dict):
            problems.append(f"{where}:{line}: {clause} is not a table [\"{clause}\"] with reason and tested_in")
            continue
        reason, tested_in = table.get("reason", ""), table.get("tested_in", [])
        extra = sorted(set(table) - {"reason", "tested_in"})
        if not isinstance(reason, str) or not isinstance(tested_in, list) or \
                not all(isinstance(item, str) for item in tested_in) or extra:
            problems.append(f"{where}:{line}: {clause}: reason must be a string and tested_in a list of paths"
                            + (f" (unknown keys: {', '.join(extra)})" if extra else ""))
            continue
        entries.append(Unobservable(clause, reason.strip(), tuple(tested_in), line))
    return entries, problems


def read_citations(sources: Sources | None = None) -> Citations:
    """The clauses of the spec and every citation of them (the packaged suite by default)."""
    sources = sources or Sources.packaged()
    unobservable, unreadable = read_unobservable(sources.unobservable_file)
    mutants = load(sources.mutants_dir) if sources.mutants_dir.is_dir() else []
    return Citations(tuple(clauses(sources.spec_dir)), tuple(read_scenarios(sources.features_dir)),
                     tuple(mutants), tuple(unobservable), tuple(unreadable))


class State(StrEnum):
    """What stands behind a clause."""

    COVERED = "covered"  # a scenario cites it
    UNOBSERVABLE = "unobservable"  # no scenario, but a reason in unobservable.toml
    UNCOVERED = "uncovered"  # neither


@dataclass(frozen=True)
class ClauseCoverage:
    """One clause: the rows of the scenarios that cite it, the mutants that break it, and its
    entry of ``unobservable.toml`` if it has one."""

    clause: Clause
    scenarios: tuple[str, ...]
    mutants: tuple[str, ...]
    unobservable: Unobservable | None

    @property
    def state(self) -> State:
        if self.scenarios:
            return State.COVERED
        return State.UNOBSERVABLE if self.unobservable is not None else State.UNCOVERED


@dataclass(frozen=True)
class Tally:
    """Counts over some clauses: each is covered, unobservable or uncovered; ``mutated``: those a
    mutant entry names."""

    clauses: int
    covered: int
    unobservable: int
    uncovered: int
    mutated: int

    @classmethod
    def of(cls, items: Sequence[ClauseCoverage]) -> Tally:
        states = Counter(item.state for item in items)
        return cls(len(items), states[State.COVERED], states[State.UNOBSERVABLE], states[State.UNCOVERED],
                   sum(bool(item.mutants) for item in items))


@dataclass(frozen=True)
class SectionCoverage:
    """One section of a spec document (``contract.md`` §6.12) and its tally."""

    document: str
    section: str
    heading: str
    tally: Tally


@dataclass(frozen=True)
class AreaCoverage:
    """One area of the suite (a scenario id's prefix): its scenarios, how many cite a clause, the
    distinct clauses they cite, and its mutant entries that name a clause."""

    area: str
    scenarios: int
    citing: int
    clauses: int
    mutants: int


@dataclass(frozen=True)
class Coverage:
    """Every clause once, the uncovered first (then document order); the totals, per section and per area."""

    clauses: tuple[ClauseCoverage, ...]
    totals: Tally
    scenarios: int
    citing: int
    sections: tuple[SectionCoverage, ...]
    areas: tuple[AreaCoverage, ...]

    @property
    def complete(self) -> bool:
        """Every clause is covered by a scenario or reasoned unobservable."""
        return self.totals.uncovered == 0


def coverage(citations: Citations) -> Coverage:
    """Join the citations to the clauses (a citation of an unknown id counts nowhere)."""
    rows: dict[str, list[str]] = defaultdict(list)
    for citing in citations.scenarios:
        for clause_id in citing.clauses:
            rows[clause_id].extend(citing.rows)
    mutants: dict[str, list[str]] = defaultdict(list)
    for mutant in citations.mutants:
        for clause_id in mutant.clauses:
            mutants[clause_id].append(mutant.id)
    reasons = {entry.clause: entry for entry in citations.unobservable}
    items = [ClauseCoverage(clause, tuple(dict.fromkeys(rows[clause.id])), tuple(dict.fromkeys(mutants[clause.id])),
                            reasons.get(clause.id)) for clause in citations.clauses]
    by_section: dict[tuple[str, str], list[ClauseCoverage]] = defaultdict(list)
    for item in items:
        by_section[(item.clause.document, item.clause.section)].append(item)
    sections = tuple(SectionCoverage(document, section, found[0].clause.heading, Tally.of(found))
                     for (document, section), found in by_section.items())
    ordered = sorted(items, key=lambda item: item.state != State.UNCOVERED)  # stable: document order kept
    return Coverage(tuple(ordered), Tally.of(items), len(citations.scenarios),
                    sum(bool(citing.clauses) for citing in citations.scenarios), sections,
                    _areas(citations, {clause.id for clause in citations.clauses}))


def _areas(citations: Citations, known: set[str]) -> tuple[AreaCoverage, ...]:
    scenarios: dict[str, list[Citing]] = defaultdict(list)
    for citing in citations.scenarios:
        scenarios[citing.area].append(citing)
    mutants = Counter(mutant.area for mutant in citations.mutants if mutant.clauses)
    return tuple(AreaCoverage(area, len(found), sum(bool(citing.clauses) for citing in found),
                              len({c for citing in found for c in citing.clauses if c in known}), mutants[area])
                 for area, found in sorted(scenarios.items()))
