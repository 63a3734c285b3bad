"""The expectations manifest: its schema, and which entry covers which scenario row."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

from conformance.expectations import Expected, Manifest, ManifestError, load_manifest, parse_manifest
from conformance.suite_scenarios import scenario_rows


def manifest(*entries: dict[str, object]) -> Manifest:
    return parse_manifest({"implementation": "p", "expectation": list(entries)}, where="test")


def xfail(entry_id: str, reason: str = "r") -> dict[str, object]:
    return {"id": entry_id, "status": "xfail", "reason": reason}


def test_a_scenario_id_covers_every_row_and_a_row_id_only_its_own() -> None:
    found = manifest(xfail("READER-021"), xfail("PRIM-003[cjk]"))
    assert found.expectation_for("READER-021") is not None
    assert found.expectation_for("READER-021[any-case]") is not None
    assert found.expectation_for("READER-022") is None
    assert found.expectation_for("PRIM-003[cjk]") is not None
    assert found.expectation_for("PRIM-003[ascii]") is None
    assert found.expectation_for("PRIM-003") is None


def test_globs_use_star_and_question_mark_and_a_bracket_is_literal() -> None:
    found = manifest(xfail("READER-0*"), xfail("TREE-00?"), xfail("PRIM-003[c]"))
    assert found.expectation_for("READER-021[case]") is not None
    assert found.expectation_for("TREE-004") is not None
    assert found.expectation_for("TREE-010") is None
    assert found.expectation_for("PRIM-003c") is None  # not a character class
    assert found.expectation_for("PRIM-003[c]") is not None


def test_the_most_specific_entry_wins() -> None:
    found = manifest(xfail("READER-*", "glob"), xfail("READER-021", "scenario"), xfail("READER-021[a]", "row"))
    assert found.expectation_for("READER-021[a]").reason == "row"  # type: ignore[union-attr]
    assert found.expectation_for("READER-021[b]").reason == "scenario"  # type: ignore[union-attr]
    assert found.expectation_for("READER-022").reason == "glob"  # type: ignore[union-attr]


def test_unknown_ids_are_the_entries_that_match_no_row() -> None:
    found = manifest(xfail("READER-021"), xfail("NOPE-*"), xfail("PRIM-003[gone]"))
    assert found.unknown_ids(["READER-021[a]", "PRIM-003[cjk]"]) == ["NOPE-*", "PRIM-003[gone]"]


def test_statuses_are_typed_and_flaky_keeps_its_outcomes() -> None:
    found = manifest({"id": "TREE-001", "status": "flaky", "reason": "r", "outcomes": ["PASS", "FAIL"]},
                     {"id": "TREE-002", "status": "skip", "reason": "later", "issue": "https://x.invalid/1"})
    flaky, skip = found.expectations
    assert flaky.status is Expected.FLAKY and flaky.outcomes == ("PASS", "FAIL")
    assert skip.status is Expected.SKIP and skip.issue == "https://x.invalid/1"


@pytest.mark.parametrize("entry", [
    {"id": "TREE-001", "status": "skip"},  # no reason
    {"id": "TREE-001", "status": "skip", "reason": ""},
    {"id": "TREE-001", "status": "flaky", "reason": "r"},  # no outcomes
    {"id": "TREE-001", "status": "flaky", "reason": "r", "outcomes": ["PASS"]},
    {"id": "TREE-001", "status": "xfail", "reason": "r", "outcomes": ["PASS", "FAIL"]},
    {"id": "TREE-001", "status": "broken", "reason": "r"},
    {"id": "tree-001", "status": "xfail", "reason": "r"},
    {"id": "TREE-001", "status": "xfail", "reason": "r", "typo": 1},
], ids=["no-reason", "empty-reason", "flaky-no-outcomes", "one-outcome", "xfail-outcomes", "status", "id", "key"])
def test_a_malformed_entry_is_refused(entry: dict[str, object]) -> None:
    with pytest.raises(ManifestError) as refused:
        manifest(entry)
    assert refused.value.code == "expectations-invalid"
    assert "\n" not in refused.value.message


def test_two_entries_for_one_id_are_refused() -> None:
    with pytest.raises(ManifestError, match="two entries"):
        manifest(xfail("TREE-001"), xfail("TREE-001"))


def test_a_file_that_is_not_toml_or_not_there_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('implementation = "p"\n[[expectation]\n', encoding="utf-8")
    with pytest.raises(ManifestError, match="not TOML"):
        load_manifest(bad)
    with pytest.raises(ManifestError, match="cannot read"):
        load_manifest(tmp_path / "missing.toml")
    with pytest.raises(ManifestError, match="implementation"):
        bad.write_text("[[expectation]]\nid = 'TREE-001'\nstatus = 'xfail'\nreason = 'r'\n", encoding="utf-8")
        load_manifest(bad)


def test_the_example_of_interpreting_md_is_a_valid_manifest_of_known_ids() -> None:
    page = (REPO_ROOT / "docs" / "INTERPRETING.md").read_text(encoding="utf-8")
    example = page.split("```toml\n", 1)[1].split("```", 1)[0]
    found = parse_manifest(tomllib.loads(example), where="INTERPRETING.md")
    assert {e.status for e in found.expectations} == set(Expected)
    assert found.unknown_ids(scenario_rows()) == []
