"""Typed values between modules (docs/architecture.md, rule 6), held as a ratchet.

A value with fields crosses a module boundary as a frozen dataclass or msgspec Struct, and a JSON
document whose bytes are the contract is a ``JsonObject``: a bare ``dict[str, Any]`` annotation is
counted per package and may not grow past the count below (lower it when a package sheds more).
A function of six or more parameters is one whose parameters want grouping into a value: the ones
left are listed by name, each a known debt, and a new one fails.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

TREES = ("reference", "conformance", "tools")
BARE_MAPPING = re.compile(r"\bdict\[str, Any\]")

#: The most bare ``dict[str, Any]`` annotations each package may hold (issue 25: 354 in all before it, 199 after;
#: artifacts, config and privacy hold none). A package not named here may hold none.
MOST_BARE_MAPPINGS: dict[str, int] = {
    "conformance": 74,  # 73, and read_entries moved in from tools/mutation (issue 26)
    "conformance/audit": 21,
    "conformance/steps": 25,
    "reference/adapter": 1,
    "reference/cli": 17,
    "reference/fixturegen": 2,
    "reference/lineage": 4,
    "reference/pi": 24,
    "reference/primitives": 1,
    "reference/rebase": 17,
    "reference/recall": 7,
    "tools/mutation": 1,
}

#: The functions that still take six or more parameters (``self``/``cls`` not counted; pytest-bdd fixes the
#: signature of a step and of ``pytest_bdd_step_error``). Issue 25 started with 43 in reference/.
LONG_SIGNATURES: frozenset[str] = frozenset({
    "conformance/audit/engine.py::run_audit",
    "conformance/audit/projection.py::_load_mapped",
    "conformance/failure_details.py::pytest_bdd_step_error",
    "conformance/stdio.py::serve",
    "conformance/steps/history_bound_steps.py::given_spread_message",
    "conformance/steps/session_file_steps.py::given_hostile_value",
    "reference/artifacts/checkpoint.py::build_checkpoint",
    "reference/lineage/chain.py::load_rebase_state",
    "reference/pi/context_messages.py::_proven_run",
    "reference/pi/exact/inspection.py::diagnostics_json",
    "reference/pi/session_inspect.py::_describe_context",
    "reference/privacy/entry.py::classify_entry",
    "reference/rebase/host.py::build_rebase_host",
    "reference/rebase/target.py::existing_target",
    "reference/recall/catchup.py::catch_up",
    "reference/recall/read_window.py::_lines_that_fit",
    "reference/recall/read_window.py::read_envelope",
    "reference/recall/source_verify.py::verify_source",
})


def _package(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).parts
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def _sources() -> list[Path]:
    return sorted(p for tree in TREES for p in (REPO_ROOT / tree).rglob("*.py")
                  if "_suite" not in p.parts and "__pycache__" not in p.parts)


def bare_mappings() -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in _sources():
        counts[_package(path)] += len(BARE_MAPPING.findall(path.read_text(encoding="utf-8")))
    return counts


def long_signatures() -> set[str]:
    found: set[str] = set()
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args
                names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                if names[:1] in (["self"], ["cls"]):
                    names = names[1:]
                if len(names) >= 6:
                    found.add(f"{path.relative_to(REPO_ROOT).as_posix()}::{node.name}")
    return found


@pytest.mark.parametrize("package", sorted({_package(p) for p in _sources()}))
def test_bare_mappings_do_not_grow(package: str) -> None:
    count = bare_mappings()[package]
    most = MOST_BARE_MAPPINGS.get(package, 0)
    assert count <= most, (f"{package} has {count} bare dict[str, Any] annotations (at most {most}): "
                           "a typed value, or JsonObject for a JSON document (docs/architecture.md, rule 6)")


def test_no_new_function_takes_six_parameters() -> None:
    new = sorted(long_signatures() - LONG_SIGNATURES)
    assert not new, f"group the parameters of one concept into a value: {new}"


def test_the_lists_name_no_debt_already_paid() -> None:
    """A ratchet only turns one way: a count or name that no longer applies is taken out."""
    paid = sorted(LONG_SIGNATURES - long_signatures())
    assert not paid, f"take these out of LONG_SIGNATURES: {paid}"
    counts = bare_mappings()
    loose = {package: (most, counts[package]) for package, most in MOST_BARE_MAPPINGS.items() if counts[package] < most}
    assert not loose, f"lower MOST_BARE_MAPPINGS to today's counts: {loose}"
