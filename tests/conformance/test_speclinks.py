"""Every feature's ``Spec:`` line links to sections of the normative text that exist."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

from conformance.speclinks import anchors_of, heading_slug, spec_problems

FEATURES = sorted((REPO_ROOT / "features").rglob("*.feature"))


@pytest.mark.parametrize("feature", FEATURES, ids=lambda p: p.stem)
def test_every_spec_link_resolves(feature: Path) -> None:
    assert list(spec_problems(feature)) == []


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("2.5 Scope resolution (\"sources\")", "25-scope-resolution-sources"),
        ("2. `context_history_recall`", "2-context_history_recall"),
        ("6.11 Recovery algorithm (`--recover <operationId>`)", "611-recovery-algorithm---recover-operationid"),
        ("D6. Privacy", "d6-privacy"),
    ],
)
def test_heading_slugs_are_githubs(title: str, slug: str) -> None:
    assert heading_slug(title) == slug


def _feature(tmp_path: Path, spec_line: str) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "text.md").write_text("# Text\n\n## 1.2 A section\n\n```\n# not a heading\n```\n")
    folder = tmp_path / "features" / "area"
    folder.mkdir(parents=True)
    feature = folder / "a.feature"
    feature.write_text(f"Feature: A\n  {spec_line}\n\n  Scenario: S\n    Given nothing\n")
    return feature


def test_a_good_link_passes(tmp_path: Path) -> None:
    assert list(spec_problems(_feature(tmp_path, "Spec: [§1.2](../../docs/text.md#12-a-section)"))) == []


@pytest.mark.parametrize(
    ("spec_line", "problem"),
    [
        ("Spec: contract.md §1.2", "no link"),
        ("Spec: [§1.2](../../docs/missing.md#12-a-section)", "no file"),
        ("Spec: [§1.3](../../docs/text.md#13-a-section)", "no heading"),
        ("Spec: [code](../../docs/text.md#not-a-heading)", "no heading"),
        ("Spec: [web](https://example.org/text.md)", "relative"),
    ],
)
def test_a_bad_spec_line_is_reported(tmp_path: Path, spec_line: str, problem: str) -> None:
    problems = list(spec_problems(_feature(tmp_path, spec_line)))
    assert len(problems) == 1 and problem in problems[0].problem


def test_a_feature_without_spec_line_is_reported(tmp_path: Path) -> None:
    feature = _feature(tmp_path, "")
    assert [p.problem for p in spec_problems(feature)] == ["no 'Spec:' line"]


def test_repeated_headings_get_numbered_anchors(tmp_path: Path) -> None:
    document = tmp_path / "d.md"
    document.write_text("# A\n## Notes\n## Notes\n")
    assert anchors_of(document) == {"a", "notes", "notes-1"}
