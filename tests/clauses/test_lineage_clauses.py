"""Clauses of contract §8.3 (project-scope quirks) that no scenario can reach through the adapter
protocol on every host (issue 26)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from reference.primitives.codes import Code
from reference.recall import project_scope


def test_a_folder_that_cannot_be_listed_replaces_the_warnings_collected_so_far(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """§8.3 (C8.3-19): a discovery failure replaces the warnings, it does not add to them."""
    session = tmp_path / "current.jsonl"
    session.write_text("")

    def refuse(_folder: Any) -> Any:
        raise PermissionError("the folder cannot be listed")

    monkeypatch.setattr(os, "scandir", refuse)
    warnings = [Code.SOURCE_COVERAGE_PARTIAL.value, Code.LINEAGE_SOURCE_UNAVAILABLE.value]
    assert project_scope.sibling_files(str(session), warnings) is None
    assert warnings == [Code.PROJECT_DISCOVERY_UNAVAILABLE]


def test_a_listed_folder_keeps_the_warnings_and_gives_the_siblings_newest_name_first(tmp_path: Path) -> None:
    session = tmp_path / "current.jsonl"
    for name in ("current.jsonl", "alpha.jsonl", "zeta.jsonl", "notes.txt"):
        (tmp_path / name).write_text("")
    warnings = [Code.SOURCE_COVERAGE_PARTIAL.value]
    siblings = project_scope.sibling_files(str(session), warnings)
    assert siblings == [str(tmp_path / "zeta.jsonl"), str(tmp_path / "alpha.jsonl")]
    assert warnings == [Code.SOURCE_COVERAGE_PARTIAL]
