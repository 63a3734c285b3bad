"""``recall-rebase audit``: the checks on a clean project, and on a project with one defect each.

The planted-disagreement corpus (features/audit, fixtures/audit) holds every check against a
defect through the adapter; these tests hold the command itself: exit codes, the JSON document
against its schema, ``--report``, ``--show-content``, ``--project`` and the default index, and
that the audit changes no byte of anything it reads.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

import pytest
from testkit.audit_projects import Project, make_project

from conformance import schemas
from conformance.audit.checks import CHECKS
from conformance.audit.cli import main as audit_main
from conformance.audit.engine import run_audit
from conformance.audit.inputs import AuditInputs
from conformance.audit.mapping import reference_mapping
from conformance.audit.pi_locations import agent_dir, project_folder_name, project_sessions

FINDINGS_SCHEMA = "audit/findings.schema.json"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path)


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def audit_json(project: Project, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = audit_main(["--sessions", str(project.sessions), "--index", str(project.index), "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def found_ids(project: Project) -> set[str]:
    result = run_audit(AuditInputs.of([project.sessions], project.index), reference_mapping())
    return {finding.check.id for finding in result.findings}


def execute(index: Path, statement: str) -> None:
    with closing(sqlite3.connect(index, isolation_level=None)) as connection:
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute(statement)


def test_a_clean_project_is_clean_and_not_one_byte_changes(project: Project,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(project.root)
    code, document = audit_json(project, capsys)
    assert code == 0
    assert schemas.errors(document, FINDINGS_SCHEMA) == []
    assert document["summary"] == {"clean": True, "checks": len(CHECKS), "findings": 0, "rows": 0,
                                   "notApplicable": 0, "sessionFiles": 4, "journals": 1}
    assert tree(project.root) == before


def test_a_defect_is_exit_1_with_its_check_and_samples_without_content(project: Project,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    execute(project.index, "UPDATE entries SET content_hash = '0' || substr(content_hash, 2) "
                           "WHERE entry_key = (SELECT min(entry_key) FROM entries WHERE entry_type = 'message')")
    code, document = audit_json(project, capsys)
    assert code == 1
    assert schemas.errors(document, FINDINGS_SCHEMA) == []
    [finding] = document["findings"]  # type: ignore[misc]
    assert (finding["id"], finding["count"], finding["severity"]) == ("AUDIT-004", 1, "error")
    assert set(finding["samples"][0]) == {"entry_key", "session_file", "line_no", "line_start", "line_end", "stored_hash", "line_hash"}
    assert "text " not in json.dumps(document)  # no message text without --show-content


def test_show_content_adds_the_line_text(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    execute(project.index, "UPDATE entries SET content_hash = 'x' WHERE entry_key LIKE 'beta:%' "
                           "AND entry_id = 'beta-2'")
    code, document = audit_json(project, capsys, "--show-content")
    assert code == 1
    [finding] = document["findings"]  # type: ignore[misc]
    content = finding["samples"][0]["content"]
    assert json.loads(content)["id"] == "beta-2" and content.endswith("}")  # the line, without its LF


def test_the_report_is_the_json_document_and_owner_only(project: Project, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "out" / "audit.json"
    code, document = audit_json(project, capsys, "--report", str(report))
    assert code == 0
    assert json.loads(report.read_text()) == document
    if os.name == "posix":
        assert stat.S_IMODE(report.stat().st_mode) == 0o600


def test_readable_output_lists_every_check_and_the_verdict(project: Project,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    os.chmod(project.index, 0o644)
    code = audit_main(["--sessions", str(project.sessions), "--index", str(project.index)])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert [line.split()[0] for line in out[1:] if line.startswith("AUDIT-")] == [c.id for c in CHECKS]
    assert any(line.startswith("AUDIT-017") and " 1 " in line for line in out)
    assert "mode=0644" in "\n".join(out)
    assert out[-1] == f"{len(CHECKS)} checks: 1 check with findings (1 row)"


@pytest.mark.parametrize(("statement", "check"), [
    ("DELETE FROM entries WHERE entry_key = (SELECT max(entry_key) FROM entries WHERE entry_type = 'message')",
     "AUDIT-001"),
    ("UPDATE entry_source_locations SET start_offset = start_offset + 1, end_offset = end_offset + 1 "
     "WHERE entry_key = (SELECT min(entry_key) FROM entry_source_locations)", "AUDIT-003"),
    ("UPDATE entries SET role = 'assistant' WHERE role = 'user' AND entry_key = "
     "(SELECT min(entry_key) FROM entries WHERE role = 'user')", "AUDIT-005"),
    ("UPDATE session_index_state SET checkpoint_hash = '00' || substr(checkpoint_hash, 3) "
     "WHERE session_id = 'gamma'", "AUDIT-007"),
    ("DELETE FROM entries_fts_keys WHERE entry_key = (SELECT min(entry_key) FROM entries_fts_keys)", "AUDIT-008"),
    ("UPDATE rebase_operations SET phase = 'Activated'", "AUDIT-016"),
])
def test_one_planted_defect_is_one_check(project: Project, statement: str, check: str) -> None:
    execute(project.index, statement)
    assert found_ids(project) == {check}


def test_only_the_named_checks_run(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    os.chmod(project.index, 0o644)
    code, document = audit_json(project, capsys, "--check", "audit-001")
    assert (code, document["findings"]) == (0, [])


def test_an_unknown_check_is_one_line_and_exit_2(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    code = audit_main(["--sessions", str(project.sessions), "--index", str(project.index), "--check", "AUDIT-999"])
    assert code == 2
    assert capsys.readouterr().err == "recall-rebase: audit-input: no check AUDIT-999 (there are AUDIT-001 to AUDIT-017)\n"


@pytest.mark.parametrize("args", [[], ["--samples", "-1"], ["--sessions", "x", "--project", "y"]])
def test_bad_arguments_exit_2_with_one_usage_line(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert audit_main(args) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("recall-rebase: usage: ")
    assert err.rstrip().endswith("(see recall-rebase audit check --help)")


def test_project_and_the_default_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    cwd = tmp_path / "project"
    agent = tmp_path / "agent"
    made = make_project(tmp_path, sessions=agent / "sessions" / project_folder_name(str(cwd)))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    code = audit_main(["--project", str(cwd), "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["summary"]["sessionFiles"] == 4
    assert made.index == agent / "recall-rebase" / "index.sqlite"


@pytest.mark.parametrize(("cwd", "name"), [
    ("/home/user/projects/demo", "--home-user-projects-demo--"), ("/home/user/my.proj/", "--home-user-my.proj--"),
    ("/a/b/../c", "--a-c--"), ("/srv/x:y", "--srv-x-y--"), ("/", "----"),
])
def test_pi_folder_names_are_the_session_models(cwd: str, name: str) -> None:
    assert project_sessions(cwd, {"PI_CODING_AGENT_DIR": "/agent"}, "/home/u", "/").name == name


def test_the_agent_dir_is_the_environments_or_home() -> None:
    assert agent_dir({}, "/home/u", "/") == Path("/home/u/.pi/agent")
    assert agent_dir({"PI_CODING_AGENT_DIR": "~/pi"}, "/home/u", "/") == Path("/home/u/pi")
    assert agent_dir({"PI_CODING_AGENT_DIR": ""}, "/home/u", "/") == Path("/home/u/.pi/agent")
    assert project_sessions("/p", {"PI_CODING_AGENT_SESSION_DIR": "/s"}, "/h", "/") == Path("/s")


def test_docs_audit_lists_every_check_with_its_severity_and_title() -> None:
    text = (Path(__file__).resolve().parents[3] / "docs" / "audit.md").read_text(encoding="utf-8")
    documented = [line.removesuffix(" |").split(" | ") for line in text.splitlines() if line.startswith("| AUDIT-")]
    assert documented == [[f"| {c.id}", c.severity.value, c.title] for c in CHECKS]


def test_every_check_has_its_sql_file_and_no_other_file_is_there() -> None:
    folder = Path(__file__).resolve().parents[3] / "conformance" / "audit" / "sql" / "checks"
    assert sorted(path.name for path in folder.iterdir()) == sorted(f"{c.id}.sql" for c in CHECKS)


def test_a_journal_naming_files_outside_the_audit_is_not_followed(project: Project) -> None:
    """A journal (hostile or from another machine) names /dev/zero and a terabyte: nothing is read
    of it, so the audit ends at once; the prefix it names in an audited file is judged."""
    (journal_file,) = sorted(project.journals.glob("*.json"))
    journal = json.loads(journal_file.read_bytes())
    journal_file.write_text(json.dumps({**journal, "sourceSessionFile": "/dev/zero", "sourceSize": 10**12}),
                            encoding="utf-8")
    os.chmod(journal_file, 0o600)
    result = run_audit(AuditInputs.of([project.sessions], project.index), reference_mapping())
    assert {finding.check.id for finding in result.findings} == {"AUDIT-016"}  # the projection still says otherwise
    journal_file.write_text(json.dumps({**journal, "targetSize": journal["targetSize"] + 10**9}), encoding="utf-8")
    result = run_audit(AuditInputs.of([project.sessions], project.index), reference_mapping())
    by_id = {finding.check.id: finding for finding in result.findings}
    assert by_id["AUDIT-013"].samples[0]["problem"] == "target-shorter"


def test_hostile_cursor_values_are_findings_not_errors(project: Project) -> None:
    execute(project.index, "UPDATE session_index_state SET checkpoint_hash_start = -5 WHERE session_id = 'beta'")
    execute(project.index, "UPDATE session_index_state SET checkpoint_offset = 10000000, file_size = 10000000 "
                           "WHERE session_id = 'gamma'")
    result = run_audit(AuditInputs.of([project.sessions], project.index), reference_mapping())
    (finding,) = result.findings
    assert finding.check.id == "AUDIT-007"
    assert {(s["session_id"], s["problem"]) for s in finding.samples} == {("beta", "stale-hash"), ("gamma", "ahead")}
