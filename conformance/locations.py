"""Where a row stands in the suite: its feature file relative to the suite root, and its line.

A report names the feature as ``features/tree/tree.feature`` whether the suite is a checkout or
a wheel's ``conformance/_suite`` (:func:`conformance.suite.suite_root`), so reports of two
machines compare. A scenario's row points at its ``Scenario`` line; an outline's row at its own
line of the Examples table (pytest-bdd keeps only the table's line, so the table is read again).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path, PurePath
from typing import Any

import pytest
from gherkin.parser import Parser
from pytest_bdd.scenario import scenario_wrapper_template_registry

from conformance.gherkin_documents import scenarios_of
from conformance.suite import suite_root

EXAMPLE_PARAM = "_pytest_bdd_example"


def relative_feature(filename: str | PurePath, root: Path | None = None) -> str:
    """The feature file's POSIX path under the suite root (``features/...``), never an absolute one."""
    path = Path(filename)
    try:
        return path.resolve().relative_to((root or suite_root()).resolve()).as_posix()
    except ValueError:  # a feature outside the suite (a test's own): its folder and name only
        return PurePath(path.parent.name, path.name).as_posix()


def row_location(item: pytest.Item) -> tuple[str, int] | None:
    """``(feature, line)`` of a pytest-bdd item's row, or ``None`` for an item of no feature."""
    function = getattr(item, "obj", None)
    template = scenario_wrapper_template_registry.get(function) if callable(function) else None
    if template is None:
        return None
    filename, line = template.feature.filename, int(template.line_number)
    callspec = getattr(item, "callspec", None)
    if callspec is not None and EXAMPLE_PARAM in callspec.indices:
        lines = example_row_lines(filename).get(line, [])
        index = callspec.indices[EXAMPLE_PARAM]
        line = lines[index] if index < len(lines) else line
    return relative_feature(filename), line


@cache
def example_row_lines(filename: str) -> dict[int, list[int]]:
    """Each outline's ``Scenario Outline`` line -> the lines of its example rows, in order."""
    parser: Any = Parser()
    document = parser.parse(Path(filename).read_text(encoding="utf-8"))
    return {scenario["location"]["line"]: [row["location"]["line"] for table in scenario.get("examples", [])
                                           for row in table.get("tableBody", [])]
            for scenario in scenarios_of(document)}
