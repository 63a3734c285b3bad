"""``--cucumber-json PATH``: pytest-bdd's Cucumber JSON, one file for -j 1 and -j N alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.cucumber import merge_features

RUN = [sys.executable, "-m", "reference.cli", "conformance", "run"]
SECONDS = 120


def element(line: int, row: str) -> dict[str, Any]:
    return {"line": line, "name": row, "tags": [{"name": f"id:{row}", "line": line - 1}]}


def test_merging_keys_features_by_uri_and_orders_their_elements_by_line() -> None:
    first = [{"uri": "b.feature", "name": "B", "elements": [element(9, "B-002")]},
             {"uri": "a.feature", "name": "A", "elements": [element(20, "A-003"), element(4, "A-001")]}]
    second = [{"uri": "a.feature", "name": "A again", "elements": [element(12, "A-002")]}]
    merged = merge_features([first, second])
    assert [feature["uri"] for feature in merged] == ["a.feature", "b.feature"]
    assert merged[0]["name"] == "A"  # the first copy's fields
    assert [e["name"] for e in merged[0]["elements"]] == ["A-001", "A-002", "A-003"]
    assert merge_features([]) == []


def cucumber_run(tmp_path: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    path = tmp_path / "out" / "cucumber.json"
    done = subprocess.run([*RUN, "--area", "PRIM", "--no-progress", "--cucumber-json", str(path), *options],
                          capture_output=True, text=True, timeout=SECONDS, check=False)
    return done, path


def elements_of(path: Path) -> list[tuple[str, int, str]]:
    features = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for feature in features:
        for item in feature["elements"]:
            (tag,) = [t["name"] for t in item["tags"] if t["name"].startswith("id:")]
            rows.append((feature["uri"], item["line"], tag))
    return sorted(rows)


def test_one_process_and_two_workers_write_the_same_elements_each_tagged_with_its_id(tmp_path: Path) -> None:
    single, single_path = cucumber_run(tmp_path / "one")
    double, double_path = cucumber_run(tmp_path / "two", "-j", "2")
    assert single.returncode == 0 and double.returncode == 0, single.stderr + double.stderr
    elements = elements_of(single_path)
    assert len(elements) >= 20 and all(tag.startswith("id:PRIM-") for _, _, tag in elements)
    assert elements_of(double_path) == elements


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_unwritable_path_is_refused_before_the_run(tmp_path: Path, jobs: str) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    done = subprocess.run([*RUN, "--area", "PRIM", "-j", jobs, "--cucumber-json", str(folder)],
                          capture_output=True, text=True, timeout=SECONDS, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"recall-rebase: output-unwritable: cannot write the Cucumber JSON to "
                                        f"{folder}: it is a folder"]
