"""Every property states its example counts once, through ``examples(deep=N, ci=M)``.

tests/testkit/profiles.py owns the counts: a ``max_examples`` or ``stateful_step_count`` anywhere
else in tests/ would run the same count under every profile, so ``tox -e deep`` would not be
deeper than ``tox -e tests``. The fuzz and chaos campaigns size themselves in their budget.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import settings
from testkit.paths import REPO_ROOT
from testkit.profiles import (
    DEV_EXAMPLES,
    PROFILES,
    SOAK_FACTOR,
    CountInOptions,
    Counts,
    CountsOutOfOrder,
    Steps,
    UnknownProfile,
    examples,
)

TESTS = REPO_ROOT / "tests"
#: where a count may be written as a plain Hypothesis setting
COUNT_OWNERS = {"tests/testkit/profiles.py", "tests/fuzz/budget.py", "tests/chaos/budget.py"}
#: campaigns whose properties take their settings from their own budget.py
CAMPAIGNS = ("tests/fuzz/", "tests/chaos/")
COUNT_SETTINGS = {"max_examples", "stateful_step_count"}


def _name(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


#: every test source but this one, whose refusal tests break the rule on purpose
SOURCES = sorted(path for path in TESTS.rglob("*.py") if path != Path(__file__).resolve())


def _is_examples_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "examples"


def _is_given(node: ast.expr) -> bool:
    call = node.func if isinstance(node, ast.Call) else node
    return isinstance(call, ast.Name) and call.id == "given"


def _int_keyword(call: ast.Call, name: str) -> int | None:
    for keyword in call.keywords:
        if keyword.arg == name and isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, int):
            return keyword.value.value
    return None


def _order_problems(call: ast.Call, where: str) -> list[str]:
    """A count that is not a literal, or a deep count below the ci count."""
    pairs = [call]
    pairs += [k.value for k in call.keywords if k.arg == "steps" and isinstance(k.value, ast.Call)]
    found = []
    for pair in pairs:
        deep, ci = _int_keyword(pair, "deep"), _int_keyword(pair, "ci")
        if deep is None or ci is None:
            found.append(f"{where}: {ast.unparse(pair)} must state deep= and ci= as numbers")
        elif deep < ci:
            found.append(f"{where}: {ast.unparse(pair)} runs fewer examples under deep than under ci")
    return found


def count_problems(source: str, name: str) -> list[str]:
    """What breaks the rule in one test file's ``source``."""
    tree = ast.parse(source)
    found: list[str] = []
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call) and name not in COUNT_OWNERS:
            found += [f"{where}: {k.arg}= outside testkit.profiles.examples"
                      for k in node.keywords if k.arg in COUNT_SETTINGS]
        if _is_examples_call(node) and isinstance(node, ast.Call):
            found += _order_problems(node, where)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not name.startswith(CAMPAIGNS):
            decorators = node.decorator_list
            if any(_is_given(d) for d in decorators) and not any(_is_examples_call(d) for d in decorators):
                found.append(f"{where}: the property {node.name} states no examples(deep=, ci=)")
        if (isinstance(node, ast.Assign) and not _is_examples_call(node.value)
                and any(ast.unparse(t).endswith(".TestCase.settings") for t in node.targets)):
            found.append(f"{where}: a state machine's settings must be examples(deep=, ci=, steps=)")
        if (isinstance(node, ast.ClassDef) and f"{node.name}.TestCase.settings = examples(" not in source
                and any(ast.unparse(b) == "RuleBasedStateMachine" for b in node.bases)):
            found.append(f"{where}: the state machine {node.name} states no examples(deep=, ci=, steps=)")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_every_count_is_stated_once_through_examples(path: Path) -> None:
    assert count_problems(path.read_text(encoding="utf-8"), _name(path)) == []


@pytest.mark.parametrize(("source", "finding"), [
    ("@settings(max_examples=5)\n@given(x)\ndef test_a(x): ...\n", "max_examples= outside"),
    ("@given(x)\ndef test_a(x): ...\n", "states no examples"),
    ("@examples(deep=10, ci=20)\n@given(x)\ndef test_a(x): ...\n", "fewer examples under deep"),
    ("@examples(deep=N, ci=20)\n@given(x)\ndef test_a(x): ...\n", "as numbers"),
    ("M.TestCase.settings = examples(deep=9, ci=9, steps=Steps(deep=5, ci=6))\n", "fewer examples under deep"),
    ("M.TestCase.settings = settings(stateful_step_count=5)\n", "stateful_step_count= outside"),
    ("class M(RuleBasedStateMachine): ...\n", "states no examples(deep=, ci=, steps=)"),
], ids=["pinned", "unstated", "deep-below-ci", "not-a-number", "steps-deep-below-ci", "pinned-steps",
        "machine-unstated"])
def test_the_scan_finds_what_breaks_the_rule(source: str, finding: str) -> None:
    problems = count_problems(source, "tests/x/test_x.py")
    assert any(finding in problem for problem in problems), problems


def test_a_campaign_keeps_its_own_budget() -> None:
    source = "@given(x)\ndef test_a(x): ...\nS = settings(max_examples=5)\n"
    assert count_problems(source, "tests/fuzz/budget.py") == []
    assert count_problems(source, "tests/fuzz/test_x.py") != []


def _stated_pairs() -> list[tuple[str, int, int]]:
    """Every (deep, ci) pair the tests state: examples(...) and its steps=Steps(...)."""
    pairs = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not _is_examples_call(node) or not isinstance(node, ast.Call):
                continue
            for call in [node, *(k.value for k in node.keywords if k.arg == "steps" and isinstance(k.value, ast.Call))]:
                deep, ci = _int_keyword(call, "deep"), _int_keyword(call, "ci")
                if deep is not None and ci is not None:
                    pairs.append((f"{_name(path)}:{call.lineno}", deep, ci))
    return pairs


def test_deep_counts_are_never_below_ci_counts() -> None:
    pairs = _stated_pairs()
    assert len(pairs) >= 60
    assert [where for where, deep, ci in pairs if deep < ci] == []


@pytest.mark.parametrize("profile", PROFILES)
def test_no_profile_but_soak_runs_more_than_deep(profile: str) -> None:
    counts = Counts(deep=300, ci=40)
    assert 1 <= counts.under(profile) <= counts.under("deep") * (SOAK_FACTOR if profile == "soak" else 1)


def test_each_profile_picks_its_count() -> None:
    counts, steps = Counts(deep=300, ci=80), Steps(deep=20, ci=10)
    assert [counts.under(p) for p in ("deep", "ci", "fuzz", "dev", "soak")] == [300, 80, 80, DEV_EXAMPLES, 300 * SOAK_FACTOR]
    assert [steps.under(p) for p in ("deep", "ci", "fuzz", "dev", "soak")] == [20, 10, 10, 10, 20]
    with pytest.raises(UnknownProfile):
        counts.under("default")


def test_counts_out_of_order_are_refused() -> None:
    with pytest.raises(CountsOutOfOrder):
        Counts(deep=25, ci=26)
    with pytest.raises(CountsOutOfOrder):
        Steps(deep=5, ci=0)
    with pytest.raises(CountsOutOfOrder):
        examples(deep=25, ci=50)
    with pytest.raises(CountInOptions):
        examples(deep=25, ci=25, max_examples=100)


def test_the_loaded_profile_sizes_the_property() -> None:
    profile = settings.get_current_profile_name()
    assert examples(deep=300, ci=40).max_examples == Counts(deep=300, ci=40).under(profile)
    machine = examples(deep=30, ci=10, steps=Steps(deep=50, ci=20))
    assert machine.stateful_step_count == Steps(deep=50, ci=20).under(profile)
