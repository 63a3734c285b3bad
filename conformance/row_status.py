"""How the phases of one scenario, a port fault and an interruption make its report status.

A row is NOTRUN until its call phase has passed: a scenario that was interrupted, or never
reached, is never PASS. A failed setup or teardown is ERROR, a failed call FAIL; a port fault
(a hang, a crash, a desync, see :mod:`conformance.faults`) overrides both with TIMEOUT or CRASH
and the port's message; a port that could not be (re)started leaves the row NOTRUN. A message off
the schema (:mod:`conformance.message_checks`) is FAIL when the port answered it, ERROR when the
harness sent it, in any phase. Last, the judgement of the
expectations and capabilities (:mod:`conformance.judging`) decides: an expected failure of any
kind is XFAIL, an unexpected pass XPASS, an undeclared operation or a primitive the port's
platform lacks UNSUPPORTED (the row's ``unsupported`` names it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import pytest

from conformance import row_clauses
from conformance.faults import PortFault, PortStartFailed
from conformance.message_checks import MessageOffSchema
from conformance.row_clauses import CitedClause
from conformance.statuses import Status

MESSAGE_CHARS: Final = 4000
NOT_RUN: Final = "not run"


#: Frames of the harness's own machinery, which say nothing about the port (pytest, pytest-bdd, pluggy).
HARNESS_FRAME: Final = re.compile(r"[\\/](?:_pytest|pytest_bdd|pluggy)[\\/]")
NOISE_LINE: Final = re.compile(r"E\s+Use -v to get more diff")


def drop_harness_frames(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Cut pytest's own frames from a failure's traceback, so its text starts at the step that failed."""
    kept = excinfo.traceback.filter(lambda entry: HARNESS_FRAME.search(str(entry.path)) is None)
    if len(kept):
        excinfo.traceback = kept


def failure_text(report: pytest.TestReport) -> str:
    """pytest's traceback of a failed phase, without its advice to rerun with ``-v``."""
    return "\n".join(line for line in str(report.longreprtext).splitlines() if not NOISE_LINE.fullmatch(line.strip()))


#: An Examples column named in an outline's title: ``<case>``.
OUTLINE_PARAMETER: Final = re.compile(r"<([^<>]+)>")


def filled_title(title: str, example: Mapping[str, Any] | None) -> str:
    """An outline's title with each ``<name>`` its Examples row fills replaced by the row's value
    (a name the row lacks stays as written); a plain scenario's title as it is."""
    if not example:
        return title
    return OUTLINE_PARAMETER.sub(lambda found: str(example.get(found.group(1), found.group(0))), title)


def new_row(scenario: str, feature: str, title: str, line: int | None = None,
            clauses: Sequence[CitedClause] = ()) -> dict[str, Any]:
    """The row of a collected scenario, before it runs (``line``: where it stands in ``feature``;
    ``clauses``: the spec clauses it checks, :mod:`conformance.row_clauses`)."""
    where = {"feature": feature} if line is None else {"feature": feature, "line": line}
    return {"id": scenario, **where, "title": title, "status": Status.NOTRUN, "message": NOT_RUN,
            "duration_ms": 0.0, "clauses": row_clauses.as_json(clauses)}


def after_phase(row: dict[str, Any], report: pytest.TestReport, error: BaseException | None,
                fault: PortFault | None) -> None:
    """Fold one phase (setup, call, teardown) of the scenario into its row."""
    row["duration_ms"] = round(row["duration_ms"] + report.duration * 1000, 3)
    if isinstance(error, PortStartFailed):
        row["status"], row["message"] = Status.NOTRUN, f"not run: {error.code}: {error.message}"
        return
    if report.failed:
        row["status"] = Status.FAIL if report.when == "call" else Status.ERROR
        row["message"] = failure_text(report)[-MESSAGE_CHARS:]
        if isinstance(error, MessageOffSchema):  # --validate-messages: FAIL (the port's answer) or ERROR (ours)
            row["status"], row["message"] = error.status, error.report_message()[-MESSAGE_CHARS:]
    elif report.skipped and row["status"] in (Status.NOTRUN, Status.PASS):
        row["status"], row["message"] = Status.SKIP, str(report.longreprtext)[-1000:]
    elif report.when == "call" and report.passed and row["status"] == Status.NOTRUN:
        row["status"], row["message"] = Status.PASS, ""
    if fault is not None:
        row["status"], row["message"] = fault.status, fault.report_message()[-MESSAGE_CHARS:]
    judged = getattr(report, "rr_status", None)  # conformance.judging: the expectations and capabilities
    if judged is not None:
        told = str(getattr(report, "rr_message", ""))
        row["status"] = Status(judged)
        row["message"] = (f"{told}\n{row['message']}" if fault is not None else told)[-MESSAGE_CHARS:]
    if (missing := getattr(report, "rr_unsupported", None)) is not None:
        row["unsupported"] = missing  # what the port lacks: an operation, or its platform's primitives


def interrupted_while_running(row: dict[str, Any], reason: str) -> None:
    """The scenario that was running when the run was interrupted stays NOTRUN, and says why."""
    if row["status"] == Status.NOTRUN:
        row["message"] = f"not run to its end: the run was interrupted ({reason}) while this scenario ran"
