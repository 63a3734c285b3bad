"""What a failed row says beyond its status: the step that failed, what it compared, the port's stderr.

A pytest plugin of ``conformance run``. pytest-bdd names each step before it runs and the one
that raised; assertion rewriting hands every failing comparison of the step modules to
``pytest_assertrepr_compare``, which remembers the last failed ``==`` (or ``is``) of the
running step (left is the actual value, right the expected one: the steps' convention) and
returns ``None``, so pytest's own explanation stays. The comparison is kept only when the step
failed on an assertion. A check that runs after the steps (``conformance run --audit``) leaves its
own comparison in the item's stash (:data:`AFTER_STEPS`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

import pytest

from conformance.statuses import Status
from conformance.supervisor import PortSupervisor

#: A compared value longer than this as JSON is given as its truncated ``repr``.
VALUE_CHARS: Final = 2000
#: The port's stderr lines a row carries at most.
STDERR_LINES: Final = 20
#: The statuses whose rows carry no details: nothing failed in them.
QUIET: Final = frozenset({Status.PASS, Status.SKIP, Status.NOTRUN})
FAILED_STEP = pytest.StashKey["FailedStep"]()
#: What a check after the steps compared, when it failed the scenario (``conformance.scenario_audit``).
AFTER_STEPS = pytest.StashKey["Comparison"]()


@dataclass(frozen=True)
class Comparison:
    """One failed ``actual == expected`` of a step."""

    actual: Any
    expected: Any


@dataclass(frozen=True)
class FailedStep:
    """The step that raised, as the feature file writes it, and the comparison it failed on."""

    keyword: str
    text: str
    line: int
    comparison: Comparison | None

    def fields(self) -> dict[str, Any]:
        found: dict[str, Any] = {"step": {"keyword": self.keyword, "text": self.text, "line": self.line}}
        if self.comparison is not None:
            found["expected"] = json_value(self.comparison.expected)
            found["actual"] = json_value(self.comparison.actual)
        return found


def json_value(value: Any) -> Any:
    """``value`` as JSON has it (tuples become lists), else its ``repr``; a long one truncated."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        text = None
    if text is not None and len(text) <= VALUE_CHARS:
        return json.loads(text)
    shown = repr(value)
    return shown if len(shown) <= VALUE_CHARS else shown[: VALUE_CHARS - 1] + "…"


class FailureDetails:
    """Follows the running step and its comparisons; the reporter asks it for a row's details."""

    def __init__(self) -> None:
        self._comparison: Comparison | None = None

    def pytest_bdd_before_step(self, request: pytest.FixtureRequest, feature: Any, scenario: Any, step: Any,
                               step_func: Any) -> None:
        self._comparison = None

    def pytest_bdd_step_error(self, request: pytest.FixtureRequest, feature: Any, scenario: Any, step: Any,
                              step_func: Any, step_func_args: Any, exception: Exception) -> None:
        compared = self._comparison if isinstance(exception, AssertionError) else None
        request.node.stash[FAILED_STEP] = FailedStep(str(step.keyword).strip(), str(step.name),
                                                     int(step.line_number), compared)
        self._comparison = None

    def pytest_assertrepr_compare(self, config: pytest.Config, op: str, left: Any, right: Any) -> None:
        """Remember a failing ``left == right`` or ``left is right`` (pytest asks for the passing
        parts of an ``and`` too)."""
        try:
            differs = (op == "==" and not bool(left == right)) or (op == "is" and left is not right)
        except Exception:  # a comparison that raises compares nothing we can report
            differs = False
        if differs:
            self._comparison = Comparison(actual=left, expected=right)


def add_details(row: dict[str, Any], item: pytest.Item, port: PortSupervisor) -> None:
    """A row that went wrong (or was expected to) gets the failing step, the compared values and
    the port's last stderr lines, where they are known; a passed, skipped or unrun row none."""
    if row["status"] in QUIET:
        return
    step = item.stash.get(FAILED_STEP, None)
    if step is not None:
        row.update(step.fields())
    elif (after := item.stash.get(AFTER_STEPS, None)) is not None:
        row.update(expected=json_value(after.expected), actual=json_value(after.actual))
    if lines := port.stderr_lines()[-STDERR_LINES:]:
        row["stderr"] = lines
