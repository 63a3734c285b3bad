"""Which rows of the suite a run (or ``list``) covers: ``--id``, ``--area``, ``--tag``, and ``-x``.

A row is what a report line carries: a scenario id, or ``ID[case]`` for each row of an outline.
An id pattern matches a row when it equals the row, or names (exactly or as a glob) the row's
scenario, so ``--id READER-021`` selects every ``READER-021[case]``. The criteria combine as an
intersection; each one's comma-separated values as a union. A selection that matches nothing is
bad input (``usage``, exit 2), never a verdict on the implementation.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from _pytest.mark.expression import Expression

if TYPE_CHECKING:  # at run time check is imported only when rows are listed (gherkin, jsonschema)
    from conformance.suite_scenarios import SuiteScenario


def split_values(text: str | None) -> tuple[str, ...]:
    """``A,B, C`` as ``("A", "B", "C")``; nothing for an absent option."""
    return tuple(value.strip() for value in (text or "").split(",") if value.strip())


def scenario_of(row: str) -> str:
    """``READER-021`` of the row ``READER-021[linear]`` (a plain scenario's row is its id)."""
    return row.split("[", 1)[0]


def area_of(row: str) -> str:
    return row.split("-", 1)[0]


@dataclass(frozen=True)
class Selection:
    """The criteria of one run; an empty one selects every row."""

    ids: tuple[str, ...] = ()
    areas: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @classmethod
    def parse(cls, ids: Iterable[str | None], areas: str | None, tags: str | None) -> Selection:
        """From the options' texts (``--id`` and its alias ``--only`` both give ids)."""
        return cls(ids=tuple(value for text in ids for value in split_values(text)),
                   areas=tuple(area.upper() for area in split_values(areas)),
                   tags=tuple(tag.lstrip("@") for tag in split_values(tags)))

    def __bool__(self) -> bool:
        return bool(self.ids or self.areas or self.tags)

    def matches(self, row: str, tags: Collection[str] = ()) -> bool:
        """Every criterion given holds for this row (whose scenario carries ``tags``)."""
        return ((not self.ids or any(_id_matches(row, pattern) for pattern in self.ids))
                and (not self.areas or area_of(row) in self.areas)
                and (not self.tags or any(fnmatch.fnmatchcase(tag, p) for tag in tags for p in self.tags)))

    def describe(self) -> str:
        """The criteria as the user typed them, for the usage line."""
        parts = [(name, values) for name, values in (("--id", self.ids), ("--area", self.areas),
                                                     ("--tag", self.tags)) if values]
        return " ".join(f"{name} {','.join(values)}" for name, values in parts)


def _id_matches(row: str, pattern: str) -> bool:
    """Exactly the row (``[`` is no glob bracket here), or its scenario by id or glob."""
    return row == pattern or fnmatch.fnmatchcase(scenario_of(row), pattern) or fnmatch.fnmatchcase(row, pattern)


@dataclass(frozen=True)
class SuiteRow:
    """One row a run reports: its id (``ID`` or ``ID[case]``) and the scenario it is a row of."""

    id: str
    scenario: SuiteScenario

    def to_json(self) -> dict[str, Any]:
        """The row as ``conformance list --json`` writes it."""
        scenario = self.scenario
        return {"id": self.id, "feature": scenario.feature, "title": scenario.title, "file": scenario.file,
                "tags": list(scenario.tags), "scenario": scenario.id}


def suite_rows() -> list[SuiteRow]:
    """Every row of the suite, in report order."""
    from conformance.suite_scenarios import list_scenarios, parsed_features, scenario_rows

    features = parsed_features()  # once for both
    scenarios = {item.id: item for item in list_scenarios(features)}
    return [SuiteRow(row, scenarios[scenario_of(row)]) for row in scenario_rows(features)]


def selected_rows(selection: Selection) -> list[SuiteRow]:
    return [row for row in suite_rows() if selection.matches(row.id, row.scenario.tags)]


def tags_by_scenario() -> dict[str, tuple[str, ...]]:
    """Each scenario id's Gherkin tags, for ``--tag`` in the plugin (read only when it is given)."""
    from conformance.suite_scenarios import list_scenarios

    return {item.id: item.tags for item in list_scenarios()}


def empty_selection(selection: Selection) -> str | None:
    """The usage message when ``selection`` keeps no row of the suite, else None."""
    if not selection or selected_rows(selection):
        return None
    return f"{selection.describe()} selects no scenario (see 'recall-rebase conformance list')"


def keyword_problem(expression: str | None) -> str | None:
    """The usage message when pytest would refuse this ``-k`` expression, else None."""
    if expression is None:
        return None
    try:
        Expression.compile(expression)
    except Exception as error:  # SyntaxError since pytest 8.4, ParseError before: either way, refused
        reason = getattr(error, "msg", None) or getattr(error, "message", None) or str(error)
        return f"-k {expression!r} is not an expression pytest accepts: {reason}"
    return None


def pytest_selection_args(*, areas: str | None, tags: str | None, max_fail: int | None) -> list[str]:
    """The pytest options of ``--area``, ``--tag`` and ``-x``/``--max-fail`` (``--only``/``--id`` are the runner's)."""
    args: list[str] = []
    if areas:
        args += ["--rr-area", areas]
    if tags:
        args += ["--rr-tag", tags]
    if max_fail:
        args += ["--maxfail", str(max_fail)]
    return args


def selection_words(keyword: str | None, ids: str | None, areas: str | None, tags: str | None) -> str:
    """A run's selection options as typed, for the line saying it selected nothing."""
    given = (("-k", keyword), ("--id", ids), ("--area", areas), ("--tag", tags))
    return " ".join(f"{name} {value}" for name, value in given if value)
