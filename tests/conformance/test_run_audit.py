"""``conformance run --audit``: each history project a scenario leaves, audited after its steps.

A handful of history and rebase rows each: the reference is clean (in process, and over
``--stdio`` with ``-j 2``); a port whose index has a wrong content hash fails the rows that left
one with AUDIT-004, and the expectations judge that as any failure; a port without a mapping is
said once; a mapping that cannot be used is one line and exit 2 before anything runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.conformance_runs import write_manifest
from testkit.paths import REPO_ROOT
from testkit.ports import RUNNER, Run, read_report, run_plugin_in_process

from conformance import schemas
from conformance.audit.checks import CHECKS_BY_ID
from conformance.scenario_audit import ALL_CHECKS
from conformance.selection import tags_by_scenario

AUDIT_PORT = [sys.executable, str(REPO_ROOT / "tests" / "testkit" / "ports" / "audit_port.py")]
HOST = [sys.executable, "-m", "reference.cli", "host", "--stdio"]
#: History and rebase rows whose projects keep an index, two whose steps plant a disagreement
#: (``@planted:``), and a TREE row that has none.
CLEAN_ROWS = "RECALL-001,INDEX-004,READ-002,REBASE-001,LINEAGE-001,RECOVER-001,INDEX-005,JOURNAL-008,TREE-001"
#: RECALL-001 and RECALL-012 pass their steps on a wrong hash; RECALL-005's own Then step fails on it.
BROKEN_ROWS = "RECALL-001,RECALL-005,RECALL-012,TREE-001"
WRONG_HASH = f"audit: AUDIT-004 {CHECKS_BY_ID['AUDIT-004'].title} (1)"


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tests")])}


def audited_run(tmp_path: Path, *options: str, port: list[str] | None = None) -> Run:
    """``conformance run --audit OPTIONS`` (over ``--stdio -- PORT`` when given), to its end."""
    report = tmp_path / "report.ndjson"
    command = [*RUNNER, "--report", str(report), "--no-progress", "--audit", *options]
    command += ["--stdio", "--", *port] if port is not None else []
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, env=environment())
    return Run(done.returncode, done.stdout, done.stderr, read_report(report))


def assert_valid(run: Run) -> None:
    for line in run.lines:
        assert [schemas.describe(e) for e in schemas.errors(line, "report/v1/report-line.schema.json")] == []


@pytest.mark.parametrize("over", ["in-process", "stdio -j 2"])
def test_the_reference_is_clean_after_history_and_rebase_scenarios(tmp_path: Path, over: str) -> None:
    options, port = (["-j", "2"], HOST) if over != "in-process" else ([], None)
    run = audited_run(tmp_path, "--id", CLEAN_ROWS, *options, port=port)
    assert run.code == 0, run.stdout + run.stderr
    assert {row: line["status"] for row, line in run.rows.items()} == dict.fromkeys(CLEAN_ROWS.split(","), "PASS")
    assert "--audit: each history project audited through conformance/audit/mappings/reference.toml" in run.stderr
    assert_valid(run)


def test_a_wrong_hash_fails_the_rows_that_left_it_with_its_check_id(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "expectations.toml",
                              'id = "RECALL-012"\nstatus = "xfail"\nreason = "the hash of its first entry is wrong"',
                              implementation="recall-rebase-reference")
    run = audited_run(tmp_path, "--id", BROKEN_ROWS, "-j", "2", "--expectations", str(manifest),
                      port=[*AUDIT_PORT, "--wrong-hash"])
    assert run.code == 1, run.stdout + run.stderr
    rows = run.rows
    assert {row: line["status"] for row, line in rows.items()} == {
        "RECALL-001": "FAIL", "RECALL-005": "FAIL", "RECALL-012": "XFAIL", "TREE-001": "PASS"}
    failed = rows["RECALL-001"]
    assert failed["message"] == WRONG_HASH
    assert failed["expected"] == [] and [(f["id"], f["count"]) for f in failed["actual"]] == [("AUDIT-004", 1)]
    assert failed["actual"][0]["samples"][0]["stored_hash"] == "0" * 64
    assert "step" not in failed  # no step failed: the audit after them did
    assert rows["RECALL-012"]["message"].endswith(WRONG_HASH)
    own = rows["RECALL-005"]  # its own Then step failed first: that failure stands, no audit
    assert own["step"]["keyword"] == "Then" and "audit:" not in own["message"]
    assert WRONG_HASH in run.stdout  # the summary shows the row's message
    assert_valid(run)


def test_an_in_process_port_with_a_wrong_hash_fails_the_same_way(tmp_path: Path) -> None:
    run = run_plugin_in_process(tmp_path, "testkit.ports.audit_port:WrongHash", "--rr-audit",
                                "--rr-only", "RECALL-001,TREE-001")
    assert {row: line["status"] for row, line in run.rows.items()} == {"RECALL-001": "FAIL", "TREE-001": "PASS"}
    assert run.rows["RECALL-001"]["message"] == WRONG_HASH


def test_a_port_without_a_mapping_is_said_once_and_nothing_is_audited(tmp_path: Path) -> None:
    run = audited_run(tmp_path, "--id", "RECALL-001,RECALL-012", "-j", "2",
                      port=[*AUDIT_PORT, "--wrong-hash", "--mapping", ""])
    assert run.code == 0, run.stdout + run.stderr  # the wrong hash is there, but nothing says how to find it
    note = "--audit: recall-rebase-reference declares no audit mapping (auditMapping in its hello), so nothing is audited"
    assert (run.stdout + run.stderr).count(note) == 1
    assert set(line["status"] for line in run.rows.values()) == {"PASS"}


def test_an_in_process_port_without_a_mapping_passes(tmp_path: Path) -> None:
    run = run_plugin_in_process(tmp_path, "testkit.ports.audit_port:NoMapping", "--rr-audit", "--rr-only", "RECALL-001")
    assert {row: line["status"] for row, line in run.rows.items()} == {"RECALL-001": "PASS"}


@pytest.mark.parametrize(("mapping", "says"), [
    ("nonsense", "recall-rebase: audit-mapping: the hello's auditMapping 'nonsense' is neither a shipped mapping "
                 "(reference) nor an absolute path"),
    ("/nonexistent/mapping.toml", "recall-rebase: audit-mapping: /nonexistent/mapping.toml: cannot read the mapping: "),
])
def test_a_mapping_that_cannot_be_used_is_one_line_and_exit_2_before_any_scenario(
        tmp_path: Path, mapping: str, says: str) -> None:
    run = audited_run(tmp_path, "--id", "RECALL-001", port=[*AUDIT_PORT, "--mapping", mapping])
    assert run.code == 2
    assert run.stdout == "" and len(run.stderr.splitlines()) == 1 and run.stderr.startswith(says), run.stderr
    assert run.lines == []  # nothing ran: no report


def test_every_planted_tag_names_checks_of_the_catalogue() -> None:
    planted = {scenario: tag.removeprefix("planted:").split(",")
               for scenario, tags in tags_by_scenario().items() for tag in tags if tag.startswith("planted:")}
    assert len(planted) >= 10  # the scenarios that edit a session line, a journal or a checkpoint on purpose
    assert [(scenario, check) for scenario, checks in planted.items() for check in checks
            if check not in CHECKS_BY_ID and check != ALL_CHECKS] == []
