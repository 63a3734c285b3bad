"""What ``conformance check`` refuses in the clause citations (issue 26), one line per problem
naming its file and line:

- a ``@clause:`` tag, a mutant entry's ``clauses`` or an ``unobservable.toml`` entry naming an id
  that is no clause of ``docs/spec/`` (or is no clause id at all);
- a scenario that cites no clause;
- a clause that no scenario cites and ``unobservable.toml`` does not list;
- an ``unobservable.toml`` entry without a reason, or with no ``tested_in``, or whose
  ``tested_in`` path does not exist (``path::test_name``: nor that test in it); ``tested_in`` is
  checked where the tests are (a checkout): an installed wheel carries no ``tests/``;
- a clause both cited by a scenario and listed unobservable.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from conformance.clauses import WELL_FORMED
from conformance.coverage import Citations, Sources, Unobservable

UNOBSERVABLE_WHERE: Final = "features/unobservable.toml"


def _unknown(clause_id: str, known: set[str]) -> str | None:
    """Why ``clause_id`` names no clause, else None."""
    if clause_id in known:
        return None
    if not WELL_FORMED.fullmatch(clause_id):
        return f"{clause_id!r} is not a clause id (C6.12-3, D7-1, P1.5-2)"
    return f"{clause_id} is no clause of docs/spec/"


def _test_named(text: str, name: str) -> bool:
    return re.search(rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", text, re.MULTILINE) is not None


def tested_in_problem(place: str, sources: Sources) -> str | None:
    """Why a ``tested_in`` place does not exist under the sources' root, else None."""
    path_text, _, names = place.partition("::")
    relative = Path(path_text)
    path = sources.root / relative
    if not path_text or relative.is_absolute() or ".." in relative.parts or not path.exists():
        return f"tested_in {place!r}: no such path"
    if names:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        missing = [name for name in names.split("::") if not _test_named(text, name.split("[", 1)[0])]
        if missing:
            return f"tested_in {place!r}: {path_text} has no test {missing[0]!r}"
    return None


def _unobservable_problems(entry: Unobservable, known: set[str], sources: Sources, check_places: bool) -> list[str]:
    where = f"{UNOBSERVABLE_WHERE}:{entry.line}: {entry.clause}"
    found = [f"{UNOBSERVABLE_WHERE}:{entry.line}: {why}"] if (why := _unknown(entry.clause, known)) else []
    if not entry.reason:
        found.append(f"{where}: no reason why no scenario can check it")
    if not entry.tested_in:
        found.append(f"{where}: tested_in names no test that checks it instead")
    if check_places:
        found += [f"{where}: {why}" for place in entry.tested_in if (why := tested_in_problem(place, sources))]
    return found


def citation_problems(citations: Citations, sources: Sources) -> list[str]:
    """Every problem of the citations, in file order: features, mutants, unobservable.toml, spec."""
    known = {clause.id for clause in citations.clauses}
    problems: list[str] = []
    cited: set[str] = set()
    for citing in sorted(citations.scenarios, key=lambda item: (item.file, item.line)):
        if not citing.scenario:
            continue  # no @id: conformance check says so already
        where = f"{citing.file}:{citing.line}: {citing.scenario}"
        if not citing.clauses:
            problems.append(f"{where} cites no clause (tag it @clause:ID, ids in docs/spec/clauses.json)")
        problems += [f"{where}: @clause:{why}" for clause_id in citing.clauses if (why := _unknown(clause_id, known))]
        cited.update(citing.clauses)
    for mutant in citations.mutants:
        problems += [f"conformance/mutants/{mutant.source}:{mutant.line}: {mutant.id}: clauses: {why}"
                     for clause_id in mutant.clauses if (why := _unknown(clause_id, known))]
    problems += citations.unreadable
    check_places = (sources.root / "tests").is_dir()
    listed: set[str] = set()
    for entry in citations.unobservable:
        problems += _unobservable_problems(entry, known, sources, check_places)
        if entry.clause in cited:
            problems.append(f"{UNOBSERVABLE_WHERE}:{entry.line}: {entry.clause} is cited by a scenario and listed "
                            "unobservable: it is one or the other")
        listed.add(entry.clause)
    problems += [f"docs/spec/{clause.document}:{clause.line}: {clause.id} is cited by no scenario and not listed in "
                 f"{UNOBSERVABLE_WHERE}" for clause in citations.clauses if clause.id not in cited | listed]
    return problems
