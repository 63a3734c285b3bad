"""``conformance run --audit``: the history project a scenario leaves, audited after its Then steps.

A pytest plugin of the run (``--rr-audit``). After a scenario's steps have all passed, the
sessions folder and index of its history project (recall and rebase scenarios) are audited
(:func:`conformance.audit.engine.run_audit`) through the mapping the implementation declares in
its hello (``auditMapping``). Any finding fails the scenario with one line per check (id, title,
how many rows), and the row carries the findings as its ``actual`` against none ``expected``; the
expectations then judge it like any other failure. A scenario whose steps failed is not
audited (its own failure stands), nor one whose project has no index file. The audit only reads.
A scenario whose steps plant a disagreement themselves (they edit a session line, a journal or a
checkpoint behind the implementation's back) says which checks find it, ``@planted:AUDIT-013,...``
(``AUDIT-*``: every check): those findings are the scenario's doing, not the implementation's.

Before the run, :func:`mapping_headline` greets the implementation once to learn its mapping:
one it declares but that cannot be used stops the run before any scenario (``audit-mapping``,
exit 2); none declared is said once in the run's headline, and then nothing is audited.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, Final

import pytest

from conformance.audit.checks import Finding
from conformance.audit.declared import declared_mapping
from conformance.audit.mapping import MappingError, ProjectionMapping
from conformance.commandline import OneLineError
from conformance.failure_details import AFTER_STEPS, Comparison
from conformance.faults import PortStartFailed
from conformance.implementations import DEFAULT_ADAPTER, AdapterNotFound, adapter_class
from conformance.protocol import ImplInfo
from conformance.supervisor import PortSupervisor

#: The samples of each finding a row's ``actual`` carries (the audit command shows more).
ROW_SAMPLES: Final = 1
#: The fixture of the scenario's history world (:class:`conformance.world.HistoryWorld`).
HISTORY_FIXTURE: Final = "history"
#: ``@planted:AUDIT-*``: the steps plant what any check may find; the scenario is not audited.
ALL_CHECKS: Final = "AUDIT-*"


def finding_line(finding: Finding) -> str:
    """``audit: AUDIT-004 a stored content hash is not the SHA-256 of its line (1)``."""
    return f"audit: {finding.check.id} {finding.check.title} ({finding.count})"


class ScenarioAudit:
    """Audits each scenario's history project after its steps, through the port's declared mapping."""

    def __init__(self, port: PortSupervisor) -> None:
        self.port = port
        self._declared: tuple[ProjectionMapping | None, str | None] | None = None

    def mapping(self) -> ProjectionMapping | None:
        """The declared mapping (read once, from the hello); an unusable one fails each audit with its line."""
        if self._declared is None:
            info = self.port.info
            if info is None:  # not started: nothing to ask yet
                return None
            try:
                self._declared = (declared_mapping(info), None)
            except MappingError as error:
                self._declared = (None, f"audit: {error.code}: {error.message}")
        mapping, refusal = self._declared
        if refusal is not None:
            pytest.fail(refusal, pytrace=False)
        return mapping

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Generator[None, object, object]:
        """The scenario's steps, then (when they all passed) the audit of what they left."""
        __tracebackhide__ = True  # a step's failure reads as it does without --audit
        result = yield
        self.audit(pyfuncitem)
        return result

    def audit(self, item: pytest.Function) -> None:
        """Fail ``item`` when its history project's index disagrees with its session files."""
        request = item.funcargs.get("request")  # pytest-bdd's scenario function takes it
        if not isinstance(request, pytest.FixtureRequest) or HISTORY_FIXTURE not in request.fixturenames:
            return
        project = request.getfixturevalue(HISTORY_FIXTURE).setup
        if project is None or not project.index_path.is_file():
            return
        planted = planted_checks(item)
        if ALL_CHECKS in planted:  # every finding would be the scenario's own
            return
        mapping = self.mapping()
        if mapping is None:
            return
        findings = [finding for finding in _findings(project.folder, project.index_path, mapping)
                    if finding.check.id not in planted]
        if findings:
            item.stash[AFTER_STEPS] = Comparison(actual=[_row_value(f) for f in findings], expected=[])
            pytest.fail("\n".join(finding_line(finding) for finding in findings), pytrace=False)


def planted_checks(item: pytest.Item) -> tuple[str, ...]:
    """The check ids (or ``AUDIT-*``) the scenario's ``@planted:`` tag names, if it has one."""
    marker = item.get_closest_marker("planted")
    return tuple(str(pattern) for pattern in marker.args) if marker is not None else ()


def _findings(folder: Any, index: Any, mapping: ProjectionMapping) -> tuple[Finding, ...]:
    """The audit's findings on one project; inputs it cannot read fail the scenario with their line."""
    from conformance.audit.engine import run_audit  # DuckDB: loaded only by a run that audits
    from conformance.audit.inputs import AuditInputs

    try:
        return run_audit(AuditInputs.of([folder], index), mapping, samples=ROW_SAMPLES).findings
    except OneLineError as error:
        pytest.fail(f"audit: {error.code}: {error.message}", pytrace=False)
    except Exception as exc:  # the audit's own failure: said in one line, not a traceback
        pytest.fail(f"audit: the audit could not run: {type(exc).__name__}: {exc}", pytrace=False)


def _row_value(finding: Finding) -> dict[str, Any]:
    """A finding as a row's ``actual`` shows it: the check, its count and its first sample."""
    return {"id": finding.check.id, "count": finding.count, "samples": [dict(s) for s in finding.samples]}


def _hello(stdio_command: Sequence[str] | None, start_timeout: float | None) -> ImplInfo | None:
    """The implementation's hello, from a start and a stop of its own; ``None`` when it does not
    start (the run then reports that as it always does)."""
    from conformance.stdio import DEFAULT_START_TIMEOUT, SubprocessAdapter

    if stdio_command:
        seconds = DEFAULT_START_TIMEOUT if start_timeout is None else start_timeout
        command = list(stdio_command)
        port = PortSupervisor(lambda: SubprocessAdapter(command, start_timeout=seconds or None),
                              request_timeout=None)
    else:
        try:
            port = PortSupervisor(adapter_class(DEFAULT_ADAPTER), request_timeout=None)
        except AdapterNotFound:  # no such adapter: the run itself says so
            return None
    try:
        return port.start()
    except PortStartFailed:
        return None
    finally:
        port.stop()


def mapping_headline(stdio_command: Sequence[str] | None, start_timeout: float | None) -> str:
    """What the run's headline says of ``--audit``; raises :class:`MappingError` for a declared
    mapping that cannot be used (the run then stops before any scenario)."""
    info = _hello(stdio_command, start_timeout)
    if info is None:
        return "--audit: the implementation did not start to say its audit mapping"
    mapping = declared_mapping(info)
    if mapping is None:
        return (f"--audit: {info.name} declares no audit mapping (auditMapping in its hello), "
                "so nothing is audited")
    return f"--audit: each history project audited through {mapping.source}"
