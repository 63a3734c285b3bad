"""``recall-rebase conformance check`` passes on the packaged suite and catches each breakage."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.suite import suite_root


def check(suite: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if suite is not None:
        env["RECALL_REBASE_SUITE"] = str(suite)
    return subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "check", "--json"],
                          capture_output=True, text=True, env=env, timeout=120)


def test_the_packaged_suite_is_sound() -> None:
    done = check()
    report = json.loads(done.stdout)
    assert done.returncode == 0, report["problems"]
    assert report["counts"]["scenarios"] >= 100 and report["counts"]["fixtures"] >= 15


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def break_duplicate_id(root: Path) -> None:
    _append(root / "features/tree/tree.feature",
            "\n  @id:TREE-001\n  Scenario: A second scenario reusing an id\n    When the session is inspected\n")


def break_missing_id(root: Path) -> None:
    _append(root / "features/tree/tree.feature", "\n  Scenario: A scenario without an id\n    When the session is inspected\n")


def break_fixture_reference(root: Path) -> None:
    _append(root / "features/tree/tree.feature",
            '\n  @id:TREE-999\n  Scenario: Uses an unknown fixture\n    Given the fixture session "no-such-fixture"\n')


def break_timeout_tag(root: Path) -> None:
    _append(root / "features/tree/tree.feature",
            "\n  @id:TREE-998 @timeout:0\n  Scenario: A timeout tag of no time\n    When the session is inspected\n")


def break_planted_tag(root: Path) -> None:
    _append(root / "features/tree/tree.feature",
            "\n  @id:TREE-997 @planted:AUDIT-4\n  Scenario: A planted tag that names no check\n"
            "    When the session is inspected\n")


def break_schema_ref(root: Path) -> None:
    path = root / "schemas/inspect/session-inspect.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["properties"]["file"] = {"$ref": "nowhere.schema.json"}
    path.write_text(json.dumps(schema), encoding="utf-8")


def break_valid_fixture(root: Path) -> None:
    manifest_path = root / "fixtures/MANIFEST.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for item in manifest["fixtures"]:
        if item["id"] == "linear":
            lines = (root / "fixtures" / item["path"]).read_bytes().split(b"\n")
            entry = json.loads(lines[2])
            entry["parentId"] = "ffffffff"  # now a missing parent, while still declared valid
            lines[2] = json.dumps(entry, separators=(",", ":")).encode()
            (root / "fixtures" / item["path"]).write_bytes(b"\n".join(lines))


@pytest.mark.parametrize(
    ("breakage", "expected"),
    [
        (break_duplicate_id, "TREE-001 is also used"),
        (break_missing_id, "needs exactly one @id"),
        (break_fixture_reference, "no-such-fixture"),
        (break_schema_ref, "does not resolve"),
        (break_valid_fixture, "declared valid"),
        (break_timeout_tag, "@timeout:0 is not @timeout:N"),
        (break_planted_tag, "@planted:AUDIT-4 is not @planted:AUDIT-NNN"),
    ],
    ids=["duplicate-id", "missing-id", "fixture-reference", "schema-ref", "valid-fixture", "timeout-tag",
         "planted-tag"],
)
def test_each_breakage_is_reported(tmp_path: Path, breakage: Callable[[Path], None], expected: str) -> None:
    root = tmp_path / "suite"
    for folder in ("features", "schemas", "fixtures"):
        shutil.copytree(suite_root() / folder, root / folder)
    breakage(root)
    done = check(root)
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert any(expected in problem for problem in report["problems"]), report["problems"]
