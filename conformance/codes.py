"""The code catalogue (``schemas/codes/v1/codes.schema.json``) against the features and docs/errors.md.

A code the features expect, or that docs/errors.md lists, must be in the catalogue, and every code
of the catalogue must be listed in docs/errors.md: a port author reads one list, and a typo in a
scenario cannot pass unnoticed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

CODE: Final = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+|[a-z]+"
#: Steps whose quoted argument is a code or a comma-separated list of codes.
STEP_CODES: Final = re.compile(r'\b(?:code|warnings?) "(?P<codes>[^"<>]+)"')
#: Example-table columns that hold codes.
CODE_COLUMNS: Final = frozenset({"code", "codes", "warning", "warnings", "unavailable code"})
BACKTICKED: Final = re.compile(r"`([^`]+)`")


def catalogue_codes(schema_file: Path) -> dict[str, frozenset[str]]:
    """Group title -> codes, as the catalogue lists them."""
    document = json.loads(schema_file.read_text(encoding="utf-8"))
    return {group["title"]: frozenset(group["enum"]) for group in document["$defs"].values()}


def every_code(schema_file: Path) -> frozenset[str]:
    """Every code of the catalogue, whatever its group."""
    return frozenset().union(*catalogue_codes(schema_file).values())


def _table_rows(text: str) -> Iterator[list[list[str]]]:
    """Each Markdown or Gherkin table as its rows of cells (the header row first)."""
    table: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            if not re.fullmatch(r"\|[\s:|-]+\|", stripped):
                table.append([cell.strip() for cell in stripped[1:-1].split("|")])
        elif table:
            yield table
            table = []


def _code_cells(text: str) -> Iterator[str]:
    for table in _table_rows(text):
        header = [cell.strip("` ").lower() for cell in table[0]]
        for index, name in enumerate(header):
            if name in CODE_COLUMNS:
                yield from (row[index] for row in table[1:] if index < len(row))


def _split(value: str) -> Iterable[str]:
    return (part.strip() for part in value.split(",") if re.fullmatch(CODE, part.strip()))


def feature_codes(features: Iterable[Path]) -> dict[str, set[Path]]:
    """Every code a scenario expects -> the feature files that name it."""
    found: dict[str, set[Path]] = {}
    for feature in features:
        text = feature.read_text(encoding="utf-8")
        cells = [m.group("codes") for m in STEP_CODES.finditer(text)]
        cells += [STEP_CODES.sub(lambda m: m.group("codes"), cell).strip('"') for cell in _code_cells(text)]
        for cell in cells:
            for code in _split(cell):
                found.setdefault(code, set()).add(feature)
    return found


def documented_codes(errors_doc: Path) -> set[str]:
    """The codes docs/errors.md lists in the code columns of its tables."""
    codes: set[str] = set()
    for cell in _code_cells(errors_doc.read_text(encoding="utf-8")):
        codes.update(code for code in BACKTICKED.findall(cell) if re.fullmatch(CODE, code))
    return codes


@dataclass(frozen=True)
class CodeProblem:
    code: str
    problem: str


def code_problems(schema_file: Path, features: Iterable[Path], errors_doc: Path | None) -> list[CodeProblem]:
    """Codes used or documented but not catalogued, and catalogued but not documented."""
    catalogued = every_code(schema_file)
    problems = [
        CodeProblem(code, f"expected by {', '.join(sorted(p.name for p in files))} but not in the catalogue")
        for code, files in sorted(feature_codes(features).items()) if code not in catalogued
    ]
    if errors_doc is not None:
        documented = documented_codes(errors_doc)
        problems += [CodeProblem(code, "listed in docs/errors.md but not in the catalogue")
                     for code in sorted(documented - catalogued)]
        problems += [CodeProblem(code, "in the catalogue but not listed in docs/errors.md")
                     for code in sorted(catalogued - documented)]
    return problems
