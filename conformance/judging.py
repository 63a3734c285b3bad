"""How a scenario's outcome is judged against its expectation and the port's capabilities.

A pytest plugin of ``conformance run``: a ``skip`` entry marks the scenario skipped before it
runs; after each phase, the raw outcome (PASS, FAIL, ERROR) meets the scenario's entry and
becomes the report's status (UNSUPPORTED for an undeclared operation or a primitive the port's
platform lacks: :class:`~conformance.capabilities.Unsupported`). pytest's own outcome is set to
agree, so its exit code and terminal say what the report says (an expected failure is pytest's ``xfailed``, a strict
unexpected pass ``failed``). Only PASS, XFAIL, SKIP and UNSUPPORTED are expected.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator, Mapping
from typing import Final

import pytest

from conformance.capabilities import Unsupported, unknown_operations
from conformance.expectations import Expectation, Expected, Manifest
from conformance.protocol import ImplInfo
from conformance.row_status import failure_text
from conformance.statuses import Status

EXPECTED: Final = frozenset({Status.PASS, Status.XFAIL, Status.SKIP, Status.UNSUPPORTED})
ALLOWED_LABELS: Final = {Status.XFAIL: "expected failures", Status.SKIP: "skipped",
                         Status.UNSUPPORTED: "unsupported"}
RowId = Callable[[pytest.Item], str | None]


def is_conformant(counts: Mapping[str, int], *, with_expectations: bool = False) -> bool:
    """Every status is an expected one, and at least one scenario ran and passed or xfailed; or,
    when the run was given the implementation's own expectations manifest (``with_expectations``),
    at least one row was reported: a new port's first run, every row UNSUPPORTED, is conformant with
    what its author expects (issue 27), while the same run without a manifest is not."""
    unexpected = sum(n for status, n in counts.items() if status not in EXPECTED)
    if unexpected:
        return False
    if with_expectations:
        return sum(counts.values()) > 0
    return counts.get(Status.PASS, 0) + counts.get(Status.XFAIL, 0) > 0


def verdict_line(total: int, counts: Mapping[str, int], conformant: bool, interrupted: str | None = None) -> str:
    """The last line of a run: what happened, what of it the expectations allowed, the verdict
    (and which signal or failure ended the run early, if one did)."""
    happened = ", ".join(f"{n} {s.lower()}" for s, n in sorted(counts.items()) if s not in ALLOWED_LABELS)
    allowed = ", ".join(f"{counts.get(s, 0)} {label}" for s, label in ALLOWED_LABELS.items())
    verdict = "conformant" if conformant else "NOT conformant"
    if interrupted:
        verdict = f"interrupted ({interrupted}): {verdict}"
    return f"{total} scenarios: {happened or 'none passed'}; expected: {allowed} -> {verdict}"


def _raw_status(report: pytest.TestReport) -> Status:
    return Status.FAIL if report.when == "call" else Status.ERROR


def _expected_failure(report: pytest.TestReport, expectation: Expectation | None) -> str | None:
    """Why this failed phase was expected to fail, or None when the failure counts."""
    if expectation is None:
        return None
    if expectation.status is Expected.XFAIL:
        return f"expected failure: {expectation.reason}"
    if expectation.status is Expected.FLAKY and _raw_status(report) in expectation.outcomes:
        return f"flaky (allowed: {', '.join(expectation.outcomes)}): {expectation.reason}"
    return None


def _unexpected_pass(expectation: Expectation | None) -> str | None:
    if expectation is None or expectation.status is Expected.SKIP:
        return None
    if expectation.status is Expected.FLAKY and Status.PASS in expectation.outcomes:
        return None
    return f"[XPASS(strict)] passed, but expected to fail: {expectation.reason}"


def _mark(report: pytest.TestReport, status: Status, message: str) -> None:
    """The judgement the reporter reads (``rr_status``, ``rr_message``): a report's own attributes,
    so it travels wherever the report does."""
    report.rr_status, report.rr_message = status, message  # type: ignore[attr-defined]


def judge(report: pytest.TestReport, excinfo: pytest.ExceptionInfo[BaseException] | None,
          expectation: Expectation | None) -> None:
    """Set ``report.rr_status``/``rr_message`` (read by the reporter) and pytest's own outcome."""
    if report.failed and excinfo is not None and isinstance(excinfo.value, Unsupported):
        message = f"UNSUPPORTED: {excinfo.value}"
        report.outcome, report.longrepr = "skipped", (str(report.fspath), 0, message)
        _mark(report, Status.UNSUPPORTED, message)
        report.rr_unsupported = excinfo.value.missing  # type: ignore[attr-defined]  # the row's "unsupported"
    elif report.failed and (why := _expected_failure(report, expectation)):
        message = f"{why}\n{failure_text(report)}"[-4000:]
        report.outcome, report.wasxfail = "skipped", why
        _mark(report, Status.XFAIL, message)
    elif report.passed and report.when == "call" and (why := _unexpected_pass(expectation)):
        report.outcome, report.longrepr = "failed", why
        _mark(report, Status.XPASS, why)
    elif report.skipped and expectation is not None and expectation.status is Expected.SKIP:
        _mark(report, Status.SKIP, expectation.reason)


class ExpectationsPlugin:
    """Applies one manifest (possibly empty) to the collected scenarios and their outcomes."""

    def __init__(self, config: pytest.Config, manifest: Manifest, row_id: RowId) -> None:
        self.config = config
        self.manifest = manifest
        self.row_id = row_id

    def warn(self, message: str) -> None:
        """One warning line on the real stderr, past pytest's capture."""
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        if capture is None:
            print(f"recall-rebase: warning: {message}", file=sys.stderr)
            return
        with capture.global_and_fixture_disabled():
            print(f"recall-rebase: warning: {message}", file=sys.stderr)

    def greet(self, info: ImplInfo) -> None:
        """Warning lines on the handshake: a manifest for another implementation, unknown operations."""
        if self.manifest.implementation and self.manifest.implementation != info.name:
            self.warn(f"the expectations are for {self.manifest.implementation!r}, "
                      f"the implementation is {info.name!r}")
        if unknown := unknown_operations(info):
            self.warn(f"the implementation declares operations protocol version {info.protocol_version} "
                      f"does not have: {', '.join(unknown)}")

    def expectation_of(self, item: pytest.Item) -> Expectation | None:
        row = self.row_id(item)
        return self.manifest.expectation_for(row) if row else None

    @pytest.hookimpl(tryfirst=True)  # before any selection: an id is unknown to the suite, not to the run
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        rows = [row for row in map(self.row_id, items) if row]
        for unknown in self.manifest.unknown_ids(rows):
            self.warn(f"expectation {unknown!r} matches no scenario")
        for item in items:
            expectation = self.expectation_of(item)
            if expectation is not None and expectation.status is Expected.SKIP:
                item.add_marker(pytest.mark.skip(reason=f"expected skip: {expectation.reason}"))

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        """pytest's own terminal says UNSUPPORTED too (counted with the skips)."""
        if getattr(report, "rr_status", None) == Status.UNSUPPORTED:
            return "skipped", "u", "UNSUPPORTED"
        return None

    @pytest.hookimpl(wrapper=True, trylast=True)  # inside the reporter's wrapper: it reads the judgement
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        judge(report, call.excinfo, self.expectation_of(item))
        return report
