"""conformance check holds the features and docs/errors.md to the code catalogue, both ways."""

from __future__ import annotations

import json
from pathlib import Path

from testkit.paths import REPO_ROOT

from conformance.codes import code_problems, documented_codes, feature_codes

CATALOGUE = REPO_ROOT / "schemas" / "codes" / "v1" / "codes.schema.json"
FEATURES = sorted((REPO_ROOT / "features").rglob("*.feature"))
ERRORS_DOC = REPO_ROOT / "docs" / "errors.md"


def test_the_suite_and_the_docs_agree_with_the_catalogue() -> None:
    assert code_problems(CATALOGUE, FEATURES, ERRORS_DOC) == []


def test_codes_are_found_in_steps_lists_and_example_tables(tmp_path: Path) -> None:
    feature = tmp_path / "a.feature"
    feature.write_text(
        "Feature: A\n  Scenario Outline: S\n"
        '    Then the result is unavailable with code "<code>"\n'
        '    And the result is partial with warnings "privacy-omitted,output-budget"\n'
        "    Examples:\n      | case | code              |\n      | one  | invalid-range     |\n"
        '      | two  | warnings "aborted" |\n'
    )
    assert set(feature_codes([feature])) == {"privacy-omitted", "output-budget", "invalid-range", "aborted"}


def _catalogue(tmp_path: Path, codes: list[str]) -> Path:
    path = tmp_path / "codes.schema.json"
    path.write_text(json.dumps({"$defs": {"g": {"title": "G", "enum": codes}}}))
    return path


def _doc(tmp_path: Path, codes: list[str]) -> Path:
    path = tmp_path / "errors.md"
    rows = "".join(f"| `{code}` | why |\n" for code in codes)
    path.write_text(f"# Codes\n\n| code | when |\n|---|---|\n{rows}\nProse `not-a-listed-code`.\n")
    return path


def test_a_scenario_code_outside_the_catalogue_fails(tmp_path: Path) -> None:
    feature = tmp_path / "a.feature"
    feature.write_text('Feature: A\n  Scenario: S\n    Then the request fails with code "invalid-rnage"\n')
    problems = code_problems(_catalogue(tmp_path, ["invalid-range"]), [feature], _doc(tmp_path, ["invalid-range"]))
    assert [p.code for p in problems] == ["invalid-rnage"]


def test_a_documented_code_outside_the_catalogue_fails(tmp_path: Path) -> None:
    problems = code_problems(_catalogue(tmp_path, ["a-code"]), [], _doc(tmp_path, ["a-code", "b-code"]))
    assert [(p.code, "docs/errors.md but not in the catalogue" in p.problem) for p in problems] == [("b-code", True)]


def test_a_catalogued_code_missing_from_the_docs_fails(tmp_path: Path) -> None:
    problems = code_problems(_catalogue(tmp_path, ["a-code", "b-code"]), [], _doc(tmp_path, ["a-code"]))
    assert [(p.code, "not listed in docs/errors.md" in p.problem) for p in problems] == [("b-code", True)]


def test_only_code_columns_count_as_documented(tmp_path: Path) -> None:
    assert documented_codes(_doc(tmp_path, ["a-code"])) == {"a-code"}
