"""The audit's defect corpus (fixtures/audit/defects.toml): valid against its schema, one defect or more
for every check, and each defect, planted alone in a real reference project, reported by exactly its
check with its count.

The project is testkit's (three generated sessions, one rebased, all caught up into one index), not
the scenarios' (features/audit/defects.feature builds its own through the adapter), so the corpus
is held against two different projects.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from testkit.audit_projects import make_project
from testkit.ports import run_plugin_in_process

from conformance import schemas
from conformance.audit.checks import CHECKS
from conformance.audit.defects import (
    CORPUS_PATH,
    CORPUS_SCHEMA,
    AuditProject,
    CorpusError,
    Defect,
    load_corpus,
    plant,
)
from conformance.audit.engine import run_audit
from conformance.audit.inputs import AuditInputs
from conformance.audit.mapping import reference_mapping
from conformance.suite import features_dir, fixtures_dir

CORPUS = load_corpus()


def test_the_corpus_is_valid_against_its_schema() -> None:
    document = tomllib.loads((fixtures_dir() / CORPUS_PATH).read_text(encoding="utf-8"))
    assert not [schemas.describe(error) for error in schemas.errors(document, CORPUS_SCHEMA)]


def test_a_corpus_the_schema_refuses_is_one_error(tmp_path: Path) -> None:
    bad = tmp_path / "defects.toml"
    bad.write_text('schema = "recall-rebase/audit-defects/1"\n[[defect]]\nname = "x"\ncheck = "AUDIT-1"\n'
                   'count = 1\ndescription = "d"\nsql = ["SELECT 1"]\n', encoding="utf-8")
    with pytest.raises(CorpusError, match="check"):
        load_corpus.__wrapped__(bad)


def test_every_check_has_a_defect_and_every_defect_a_check() -> None:
    ids = {check.id for check in CHECKS}
    assert {defect.check for defect in CORPUS} == ids
    assert len({defect.name for defect in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("defect", CORPUS, ids=lambda defect: defect.name)
def test_a_planted_defect_is_reported_by_exactly_its_check(tmp_path: Path, defect: Defect) -> None:
    project = make_project(tmp_path)
    inputs = AuditInputs.of([project.sessions], project.index)
    assert run_audit(inputs, reference_mapping()).clean
    plant(AuditProject(project.sessions.resolve(), project.index), defect)
    found = run_audit(AuditInputs.of([project.sessions], project.index), reference_mapping())
    assert {finding.check.id: finding.count for finding in found.findings} == {defect.check: defect.count}, \
        [finding.to_json() for finding in found.findings]


def test_a_statement_that_changes_nothing_is_refused_and_rolled_back(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    [deleted] = [defect for defect in CORPUS if defect.name == "entry-row-deleted"]
    missing = Defect("nothing", "AUDIT-001", 1, "d", (), (*deleted.sql, "DELETE FROM entries WHERE 0"))
    before = project.index.read_bytes()
    with pytest.raises(CorpusError, match="changed no row"):
        plant(AuditProject(project.sessions.resolve(), project.index), missing)
    assert run_audit(AuditInputs.of([project.sessions], project.index), reference_mapping()).clean
    assert project.index.read_bytes() == before


def _audit_rows(tmp_path: Path, adapter: str) -> dict[str, dict[str, Any]]:
    """AUDIT-101's row when the suite runs against ``adapter`` in process."""
    return run_plugin_in_process(tmp_path, adapter, "--rr-only", "AUDIT-101").rows


def test_an_implementation_without_an_audit_mapping_is_unsupported(tmp_path: Path) -> None:
    rows = _audit_rows(tmp_path, "testkit.ports.audit_ports:NoAuditMapping")
    assert rows["AUDIT-101"]["status"] == "UNSUPPORTED", rows
    assert "auditMapping" in str(rows["AUDIT-101"].get("message")), rows


def test_a_port_that_projects_a_wrong_phase_fails_the_clean_scenario(tmp_path: Path) -> None:
    rows = _audit_rows(tmp_path, "testkit.ports.audit_ports:PhaseInLowerCase")
    assert rows["AUDIT-101"]["status"] == "FAIL", rows
    assert "AUDIT-016" in str(rows["AUDIT-101"].get("message")), rows


def test_the_outline_has_a_row_for_every_defect_of_the_corpus() -> None:
    """AUDIT-102's rows are the corpus in its order (each row's step checks its check and count)."""
    text = (features_dir() / "audit" / "audit.feature").read_text(encoding="utf-8")
    rows = [cells[0] for line in text.split("Examples:", 1)[1].splitlines()
            if (cells := [cell.strip() for cell in line.strip().strip("|").split("|")]) and cells[0]]
    assert rows[0] == "case"
    assert rows[1:] == [defect.name for defect in CORPUS]
