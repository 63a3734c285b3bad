"""``conformance run --expectations``: strict xfail, skip, flaky, UNSUPPORTED and bad manifests.

The port is :mod:`testkit.partial_port`: the reference with ``--break`` operations that answer
``{}`` (their scenarios fail) and a hello that ``--declare`` may cut down. PRIM-005 is the one
scenario that calls ``text.slice``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit.conformance_runs import Outcome, conformance, run_partial_port, write_manifest

from conformance import schemas

ONLY = "PRIM-*"
BROKEN = ("--break", "text.slice")


def assert_report_is_valid(outcome: Outcome) -> None:
    assert outcome.lines, outcome.stderr
    for line in outcome.lines:
        assert [schemas.describe(e) for e in schemas.errors(line, "report/v1/report-line.schema.json")] == []


def others_pass(outcome: Outcome, row: str) -> None:
    statuses = outcome.statuses()
    assert len(statuses) == 47
    assert {status for key, status in statuses.items() if key != row} == {"PASS"}


def test_an_expected_failure_is_xfail_and_the_run_is_conformant(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "m.toml", 'id = "PRIM-005"\nstatus = "xfail"\nreason = "slice not done"')
    outcome = run_partial_port(tmp_path, *BROKEN, only=ONLY, manifest=manifest)
    assert outcome.code == 0, outcome.stdout + outcome.stderr
    assert outcome.result("PRIM-005")["status"] == "XFAIL"
    assert "slice not done" in outcome.result("PRIM-005")["message"]
    others_pass(outcome, "PRIM-005")
    assert outcome.lines[-1]["conformant"] is True
    assert "expected: 1 expected failures, 0 skipped, 0 unsupported -> conformant" in outcome.stdout
    assert_report_is_valid(outcome)


def test_an_unexpected_pass_is_xpass_and_fails_the_run(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "m.toml", 'id = "PRIM-005"\nstatus = "xfail"\nreason = "slice not done"')
    outcome = run_partial_port(tmp_path, only=ONLY, manifest=manifest)
    assert outcome.code == 1, outcome.stdout + outcome.stderr
    assert outcome.result("PRIM-005")["status"] == "XPASS"
    others_pass(outcome, "PRIM-005")
    assert outcome.lines[-1]["conformant"] is False
    assert "NOT conformant" in outcome.stdout
    assert_report_is_valid(outcome)


def test_a_failure_the_manifest_does_not_name_still_fails(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "m.toml", 'id = "PRIM-004"\nstatus = "xfail"\nreason = "not this one"')
    outcome = run_partial_port(tmp_path, "--break", "text.slice,text.measure", only="PRIM-004,PRIM-005",
                               manifest=manifest)
    assert outcome.code == 1
    assert outcome.statuses() == {"PRIM-004": "XFAIL", "PRIM-005": "FAIL"}


def test_a_skip_is_reported_with_its_reason_and_not_run(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "m.toml", 'id = "PRIM-005"\nstatus = "skip"\nreason = "no slicing yet"')
    outcome = run_partial_port(tmp_path, *BROKEN, only=ONLY, manifest=manifest)  # it would fail if it ran
    assert outcome.code == 0, outcome.stdout + outcome.stderr
    skipped = outcome.result("PRIM-005")
    assert (skipped["status"], skipped["message"]) == ("SKIP", "no slicing yet")
    others_pass(outcome, "PRIM-005")
    assert "0 expected failures, 1 skipped, 0 unsupported" in outcome.stdout
    assert_report_is_valid(outcome)


@pytest.mark.parametrize(("port", "status"), [(BROKEN, "XFAIL"), ((), "PASS")], ids=["fails", "passes"])
def test_a_flaky_scenario_may_have_any_of_its_outcomes(tmp_path: Path, port: tuple[str, ...], status: str) -> None:
    manifest = write_manifest(tmp_path / "m.toml",
                              'id = "PRIM-005"\nstatus = "flaky"\nreason = "r"\noutcomes = ["PASS", "FAIL"]')
    outcome = run_partial_port(tmp_path, *port, only=ONLY, manifest=manifest)
    assert outcome.code == 0, outcome.stdout + outcome.stderr
    assert outcome.result("PRIM-005")["status"] == status
    others_pass(outcome, "PRIM-005")


def test_a_flaky_scenario_without_pass_among_its_outcomes_must_not_pass(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "m.toml",
                              'id = "PRIM-005"\nstatus = "flaky"\nreason = "r"\noutcomes = ["FAIL", "ERROR"]')
    outcome = run_partial_port(tmp_path, only=ONLY, manifest=manifest)
    assert outcome.code == 1
    assert outcome.result("PRIM-005")["status"] == "XPASS"


def test_a_scenario_needing_an_undeclared_operation_is_unsupported_not_fail(tmp_path: Path) -> None:
    declared = ("json.canonicalize,text.measure,path.canonical,path.sessionDirName,"
                "session.inspect,session.records,session.node")
    outcome = run_partial_port(tmp_path, "--declare", declared, only=ONLY)
    assert outcome.code == 0, outcome.stdout + outcome.stderr
    unsupported = outcome.result("PRIM-005")
    assert unsupported["status"] == "UNSUPPORTED"
    assert "'text.slice'" in unsupported["message"]
    others_pass(outcome, "PRIM-005")
    assert "0 expected failures, 0 skipped, 1 unsupported -> conformant" in outcome.stdout
    assert_report_is_valid(outcome)


def test_a_port_that_declares_nothing_is_not_conformant(tmp_path: Path) -> None:
    outcome = run_partial_port(tmp_path, "--declare", "", only=ONLY)
    assert outcome.code == 1
    assert set(outcome.statuses().values()) == {"UNSUPPORTED"}
    assert outcome.lines[-1]["conformant"] is False


def test_a_port_that_declares_nothing_is_conformant_with_its_own_manifest(tmp_path: Path) -> None:
    """A new port's first run: every row UNSUPPORTED and nothing unexpected by the manifest it
    gave (issue 27: `conformance new-port`'s port passes a full run); the header records it."""
    manifest = write_manifest(tmp_path / "m.toml")
    outcome = run_partial_port(tmp_path, "--declare", "", only=ONLY, manifest=manifest)
    assert outcome.code == 0, outcome.stdout
    assert set(outcome.statuses().values()) == {"UNSUPPORTED"}
    assert outcome.lines[0]["expectations"] == {"implementation": "partial-port", "entries": 0}
    assert outcome.lines[-1]["conformant"] is True
    failing = write_manifest(tmp_path / "f.toml", 'id = "PRIM-005"\nstatus = "xfail"\nreason = "not yet"')
    outcome = run_partial_port(tmp_path, "--declare", "", only=ONLY, manifest=failing)
    assert outcome.lines[0]["expectations"]["entries"] == 1


def test_an_id_that_matches_no_scenario_is_a_warning_line_in_a_run(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "m.toml", 'id = "NOPE-001"\nstatus = "xfail"\nreason = "stale"')
    outcome = run_partial_port(tmp_path, only="PRIM-005", manifest=manifest)
    assert outcome.code == 0
    warnings = [line for line in outcome.stderr.splitlines() if "warning" in line]
    assert warnings == ["recall-rebase: warning: expectation 'NOPE-001' matches no scenario"]


def test_a_manifest_for_another_implementation_is_a_warning_line(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "m.toml", implementation="go-port")
    outcome = run_partial_port(tmp_path, only="PRIM-005", manifest=manifest)
    assert outcome.code == 0
    assert ("recall-rebase: warning: the expectations are for 'go-port', the implementation is 'partial-port'"
            in outcome.stderr.splitlines())


def test_a_declared_operation_the_protocol_lacks_is_a_warning_line(tmp_path: Path) -> None:
    outcome = run_partial_port(tmp_path, "--declare", "text.slice,text.slise", only="PRIM-005")
    assert outcome.code == 0
    assert ("recall-rebase: warning: the implementation declares operations protocol version 1 does not have: "
            "text.slise" in outcome.stderr.splitlines())


@pytest.mark.parametrize("text", [
    'implementation = "p"\n[[expectation]\n',
    'implementation = "p"\n[[expectation]]\nid = "PRIM-005"\nstatus = "skip"\n',
    'implementation = "p"\n[[expectation]]\nid = "PRIM-005"\nstatus = "flaky"\nreason = "r"\n',
    '[[expectation]]\nid = "PRIM-005"\nstatus = "xfail"\nreason = "r"\n',
], ids=["not-toml", "skip-without-reason", "flaky-without-outcomes", "no-implementation"])
def test_a_malformed_manifest_is_one_line_and_exit_2(tmp_path: Path, text: str) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text(text, encoding="utf-8")
    for command in (["run", "--only", "PRIM-005"], ["check"]):
        outcome = conformance(*command, "--expectations", manifest, timeout=60)
        assert outcome.code == 2
        assert outcome.stderr.count("\n") == 1 and "Traceback" not in outcome.stderr
        assert outcome.stderr.startswith("recall-rebase: expectations-invalid: ")


def test_check_fails_on_an_expectation_that_names_an_unknown_id(tmp_path: Path) -> None:
    good = write_manifest(tmp_path / "good.toml", 'id = "PRIM-003[cjk]"\nstatus = "xfail"\nreason = "r"',
                          'id = "READER-0*"\nstatus = "skip"\nreason = "r"')
    assert conformance("check", "--expectations", good, timeout=60).code == 0
    bad = write_manifest(tmp_path / "bad.toml", 'id = "PRIM-003[nope]"\nstatus = "xfail"\nreason = "r"',
                         'id = "NOPE-*"\nstatus = "skip"\nreason = "r"', 'id = "PRIM-005"\nstatus = "skip"\nreason = "r"')
    outcome = conformance("check", "--expectations", bad, timeout=60)
    assert outcome.code == 1
    problems = [line for line in outcome.stdout.splitlines() if line.startswith("problem:")]
    assert problems == [f"problem: {bad}: expectation 'PRIM-003[nope]' matches no scenario",
                        f"problem: {bad}: expectation 'NOPE-*' matches no scenario"]
