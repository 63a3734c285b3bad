"""The main job: the packaged features pass in-process and over ``host --stdio``, every message checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testkit.conformance_runs import Outcome

from conformance import schemas


def conformance_run(tmp_path: Path, name: str, *extra: str) -> tuple[int, list[dict[str, object]], str]:
    report = tmp_path / f"{name}.ndjson"
    done = subprocess.run(
        [sys.executable, "-m", "reference.cli", "conformance", "run", "--report", str(report), *extra],
        capture_output=True, text=True, timeout=900,
    )
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()] if report.exists() else []
    return done.returncode, lines, done.stdout + done.stderr


def test_in_process_and_stdio_runs_agree_and_pass(tmp_path: Path, reference_run: Outcome) -> None:
    # in process: every message checked too (-V), with the reference's (empty) manifest
    code_a, in_process, out_a = reference_run.code, reference_run.lines, reference_run.stdout + reference_run.stderr
    code_b, over_stdio, out_b = conformance_run(
        tmp_path, "stdio", "--validate-messages", "--stdio", "--", sys.executable, "-m", "reference.cli", "host",
        "--stdio"
    )
    assert code_a == 0, out_a
    assert code_b == 0, out_b
    for line in in_process + over_stdio:
        assert [schemas.describe(e) for e in schemas.errors(line, "report/v1/report-line.schema.json")] == []
    results_a = {r["id"]: r["status"] for r in in_process if r["type"] == "result"}
    results_b = {r["id"]: r["status"] for r in over_stdio if r["type"] == "result"}
    assert len(results_a) >= 100
    assert results_a == results_b
    assert set(results_a.values()) == {"PASS"}
    listed = subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "list", "--json"],
                            capture_output=True, text=True, timeout=120, check=True)
    assert sorted(results_a) == [row["id"] for row in json.loads(listed.stdout)]  # list shows the rows a run reports
    areas = {scenario_id.split("-")[0] for scenario_id in results_a}
    assert {"READER", "TREE", "CONTEXT", "TOOLX", "CONFIG", "HOST", "PRIM", "INDEX", "RECALL", "SCOPE", "PRIVACY",
            "REF", "READ", "STATUS", "REBASE", "ATOMIC", "CHECKPOINT", "JOURNAL", "LOCK", "RECOVER", "LINEAGE",
            "CRASH"} <= areas
    assert "conformant" in out_a and "--stdio" in out_b


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
