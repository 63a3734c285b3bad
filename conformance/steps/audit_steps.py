"""Steps of the AUDIT scenarios: a project the implementation indexed and rebased, audited through
the mapping it declares (docs/audit.md), clean and with each defect of the corpus planted alone.

The project is built through the adapter only: ``history.open`` and a recall on every session (so
the implementation catches them up into its index), ``rebase.open`` and ``rebase.run`` on the
current one (so it writes a target, a journal and its projections), then a lineage recall on the
target. The audit (:func:`conformance.audit.engine.run_audit`) reads the session folder, its
journals and the index the scenario gave the implementation. A defect is planted as
``fixtures/audit/defects.toml`` says (:mod:`conformance.audit.defects`). An implementation that
declares no audit mapping makes these scenarios UNSUPPORTED, as an undeclared operation does.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from conformance.audit.declared import declared_mapping
from conformance.audit.defects import AuditProject, defect_named, plant
from conformance.audit.engine import AuditResult, run_audit
from conformance.audit.inputs import AuditInputs
from conformance.audit.mapping import ProjectionMapping
from conformance.capabilities import OperationNotDeclared
from conformance.protocol import Adapter, ImplInfo
from conformance.steps.history_calls import call_tool, open_history
from conformance.steps.rebase_calls import open_rebase, run_rebase
from conformance.world import RebaseWorld

#: What the implementation's hello must carry for an audit (docs/audit.md).
AUDIT_MAPPING: str = "auditMapping"


class AuditMappingNotDeclared(OperationNotDeclared):
    """The implementation's hello names no audit mapping: its AUDIT scenarios are UNSUPPORTED."""

    def __init__(self) -> None:
        Exception.__init__(self, f"needs an audit mapping (the hello's {AUDIT_MAPPING!r}), "
                                 "which the implementation did not declare")
        self.operation = AUDIT_MAPPING


@dataclass
class AuditWorld:
    """An AUDIT scenario: the mapping, the files as remembered, and the last audit's result."""

    mapping: ProjectionMapping | None = None
    remembered: dict[str, tuple[str, int]] | None = None
    results: list[AuditResult] = field(default_factory=list)

    @property
    def last(self) -> AuditResult:
        assert self.results, "the project was not audited"
        return self.results[-1]


@pytest.fixture
def audit_world() -> AuditWorld:
    return AuditWorld()


def _mapping(adapter: Adapter, audit_world: AuditWorld) -> ProjectionMapping:
    """The mapping the implementation's hello declares (loaded once per scenario)."""
    if audit_world.mapping is None:
        info = getattr(adapter, "info", None)
        mapping = declared_mapping(info) if isinstance(info, ImplInfo) else None
        if mapping is None:
            raise AuditMappingNotDeclared
        audit_world.mapping = mapping
    return audit_world.mapping


def _project(rebase: RebaseWorld) -> AuditProject:
    return AuditProject(sessions=Path(os.path.realpath(rebase.history.project.folder)),
                        index=rebase.history.project.index_path)


def _files(rebase: RebaseWorld) -> dict[str, tuple[str, int]]:
    """Every file of the session folder (journals included) and of the index's folder: hash and mode."""
    project = _project(rebase)
    found: dict[str, tuple[str, int]] = {}
    for folder in (project.sessions, project.index.parent):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                info = path.stat()
                found[str(path)] = (hashlib.sha256(path.read_bytes()).hexdigest(), stat.S_IMODE(info.st_mode))
    return found


@given("the implementation has indexed every session and rebased the current one")
def given_indexed_and_rebased(adapter: Adapter, rebase: RebaseWorld, audit_world: AuditWorld) -> None:
    """Recall on every session (the current one last), a verified rebase of the current session,
    then a lineage recall on its target: the index holds all three and the rebase's rows."""
    _mapping(adapter, audit_world)
    history = rebase.history
    for name, path in sorted(history.sessions.items(), key=lambda item: item[0] == "current"):
        open_history(adapter, history, provider="openai", sessionFile=str(path))
        call_tool(adapter, history, "history.recall", {"query": f"export {name}"})
    open_rebase(adapter, rebase)
    result = run_rebase(adapter, rebase, {"mode": "run"})
    assert result["status"] == "verified" and result["phase"] == "Verified", result
    open_history(adapter, history, provider="openai", sessionFile=str(rebase.target))
    recalled = call_tool(adapter, history, "history.recall", {"query": "export", "scope": "current-lineage"})
    assert recalled["status"] == "complete", recalled


@given("the project's files are remembered")
@when("the project's files are remembered")
def when_remembered(rebase: RebaseWorld, audit_world: AuditWorld) -> None:
    audit_world.remembered = _files(rebase)


@given("the project is audited through the implementation's declared mapping")
@when("the project is audited through the implementation's declared mapping")
def when_audited(adapter: Adapter, rebase: RebaseWorld, audit_world: AuditWorld) -> None:
    project = _project(rebase)
    inputs = AuditInputs.of([project.sessions], project.index)
    audit_world.results.append(run_audit(inputs, _mapping(adapter, audit_world)))


@when(parsers.parse('the corpus defect "{name}" is planted'))
def when_planted(rebase: RebaseWorld, name: str) -> None:
    plant(_project(rebase), defect_named(name))


def _found(result: AuditResult) -> dict[str, int]:
    return {finding.check.id: finding.count for finding in result.findings}


@then("the audit has no finding")
def then_clean(audit_world: AuditWorld) -> None:
    result = audit_world.last
    assert result.clean, f"the audit found {_found(result)}: {[finding.to_json() for finding in result.findings]}"
    assert not result.not_applicable or os.name != "posix", [item.to_json() for item in result.not_applicable]


@then(parsers.parse("the audit read {files:d} session files and {journals:d} journal"))
@then(parsers.parse("the audit read {files:d} session files and {journals:d} journals"))
def then_read(audit_world: AuditWorld, files: int, journals: int) -> None:
    result = audit_world.last
    assert (result.session_files, result.journals) == (files, journals), result.to_json()["summary"]


@then("no byte of a session file, a journal or the index changed, and no file came or went")
def then_unchanged(rebase: RebaseWorld, audit_world: AuditWorld) -> None:
    assert audit_world.remembered is not None, "the project's files were not remembered"
    now = _files(rebase)
    assert sorted(now) == sorted(audit_world.remembered), \
        {"came": sorted(set(now) - set(audit_world.remembered)), "went": sorted(set(audit_world.remembered) - set(now))}
    changed = sorted(path for path, facts in now.items() if facts != audit_world.remembered[path])
    assert not changed, f"the audit changed {changed}"


@then(parsers.parse('the audit\'s findings are exactly {check} with {count:d} rows'))
@then(parsers.parse('the audit\'s findings are exactly {check} with {count:d} row'))
def then_exactly(audit_world: AuditWorld, check: str, count: int) -> None:
    found = _found(audit_world.last)
    assert found == {check: count}, f"the audit found {found}: {[f.to_json() for f in audit_world.last.findings]}"


@then(parsers.parse('the corpus says "{name}" is {check} with {count:d} rows'))
@then(parsers.parse('the corpus says "{name}" is {check} with {count:d} row'))
def then_corpus_agrees(name: str, check: str, count: int) -> None:
    defect = defect_named(name)
    assert (defect.check, defect.count) == (check, count), \
        f"fixtures/audit/defects.toml says {name} is {defect.check} with {defect.count}"
