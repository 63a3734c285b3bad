"""The main job: a run of the packaged features, its outputs and its verdicts (the suite over ``host --stdio``, sharded and merged, against the in-process run: test_shard_merge.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def conformance_run(tmp_path: Path, name: str, *extra: str) -> tuple[int, list[dict[str, object]], str]:
    report = tmp_path / f"{name}.ndjson"
    done = subprocess.run(
        [sys.executable, "-m", "reference.cli", "conformance", "run", "--report", str(report), *extra],
        capture_output=True, text=True, timeout=900,
    )
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()] if report.exists() else []
    return done.returncode, lines, done.stdout + done.stderr


def test_a_broken_implementation_is_reported_not_conformant(tmp_path: Path) -> None:
    """The suite must be able to fail: a mutant that drops the last path entry is caught."""
    mutant = tmp_path / "mutant.py"
    mutant.write_text(
        "import sys\n"
        "import reference.adapter.operations as a\n"
        "original = a.OPERATIONS['session.inspect']\n"
        "def broken(params):\n"
        "    result = original(params)\n"
        "    result['pathIds'] = result['pathIds'][:-1]\n"
        "    return result\n"
        "a.OPERATIONS['session.inspect'] = broken\n"
        "from reference.cli.interactive import run_host\n"
        "sys.exit(run_host(stdio=True))\n",
        encoding="utf-8",
    )
    code, lines, output = conformance_run(tmp_path, "mutant", "--only", "TREE-*", "--stdio", "--",
                                          sys.executable, str(mutant))
    assert code == 1, output
    summary = lines[-1]
    assert summary["type"] == "summary" and summary["conformant"] is False
    assert any(line.get("status") == "FAIL" for line in lines)
    assert "NOT conformant" in output


def test_a_selection_that_matches_nothing_is_a_usage_error(tmp_path: Path) -> None:
    code, lines, output = conformance_run(tmp_path, "empty", "--only", "NOPE-*")
    assert code == 2
    assert output.splitlines() == ["recall-rebase: usage: --id NOPE-* selects no scenario "
                                   "(see 'recall-rebase conformance list')"]
    assert lines == []
