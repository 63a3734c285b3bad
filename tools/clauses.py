"""Mark, index and check the clause ids of docs/spec/ (issue 26; the rules: conformance/clauses.py).

    python tools/clauses.py check            # exit 1 on any problem, the index included
    python tools/clauses.py mark             # give an id to every normative unit without one
    python tools/clauses.py index            # write docs/spec/clauses.json from the text
    python tools/clauses.py page             # rewrite docs/coverage.md's generated tables

``mark`` never renumbers: a new unit of a section gets the section's next number (past every id
the section has had, retired ones included), so an id once given keeps naming its clause.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from conformance import clauses as spec  # noqa: E402
from conformance.coverage import coverage, read_citations  # noqa: E402
from conformance.coverage_render import GENERATED, render_markdown  # noqa: E402

SPEC_DIR: Final = ROOT / "docs" / "spec"
INDEX: Final = SPEC_DIR / "clauses.json"
PAGE: Final = ROOT / "docs" / "coverage.md"


def _next_numbers(units: list[spec.Unit]) -> dict[str, int]:
    """Per id prefix, the highest number given so far (marked or retired)."""
    highest: dict[str, int] = defaultdict(int)
    for given in [unit.mark for unit in units if unit.mark] + sorted(spec.RETIRED):
        assert given is not None
        prefix, _, number = given.rpartition("-")
        highest[prefix] = max(highest[prefix], int(number))
    return highest


def mark() -> int:
    """Insert a mark at the start of every normative unit that has none; the count marked."""
    units = spec.spec_units(SPEC_DIR)
    highest = _next_numbers(units)
    edits: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for unit in units:
        if unit.mark is None and unit.normative:
            prefix = spec.clause_id_prefix(unit.document, unit.section)
            highest[prefix] += 1
            clause_id = f"{prefix}-{highest[prefix]}"
            edits[unit.document].append((unit.line, unit.column, f'<a id="{clause_id}"></a><sup>{clause_id}</sup> '))
    for document, changes in edits.items():
        path = SPEC_DIR / document
        lines = path.read_text(encoding="utf-8").split("\n")
        for line, column, text in sorted(changes, reverse=True):
            lines[line] = lines[line][:column] + text + lines[line][column:]
        path.write_text("\n".join(lines), encoding="utf-8")
    return sum(len(changes) for changes in edits.values())


def index_text(index: dict[str, object]) -> str:
    return json.dumps(index, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("check", "mark", "index", "page"))
    args = parser.parse_args(argv)
    if args.command == "page":
        report = coverage(read_citations())
        text = PAGE.read_text(encoding="utf-8")
        PAGE.write_text(text.split(GENERATED, 1)[0] + GENERATED + render_markdown(report), encoding="utf-8")
        print(f"{PAGE.relative_to(ROOT)}: {report.totals.clauses} clauses, {report.totals.uncovered} uncovered")
        return 0
    if args.command == "mark":
        print(f"marked {mark()} clauses")
        return 0
    index = spec.index_document(SPEC_DIR)
    if args.command == "index":
        INDEX.write_text(index_text(index), encoding="utf-8")
        print(f"{INDEX.relative_to(ROOT)}: {index['total']} clauses")
        return 0
    found = spec.problems(SPEC_DIR)
    if not INDEX.is_file() or INDEX.read_text(encoding="utf-8") != index_text(index):
        found.append(f"{INDEX.relative_to(ROOT)} is not the index of the text: run python tools/clauses.py index")
    for problem in found:
        print(problem)
    print(f"{index['total']} clauses, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
