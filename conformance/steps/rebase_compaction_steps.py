"""Steps of the COMPACT scenarios: Pi's ``session_before_compact`` asked of the implementation's
rebase host, outside a rebase and while one runs (contract §6.16, §6.12's in-process guard).

``rebase.beforeCompact {signalAborted?}`` is the hook as Pi calls it; its answer cancels when it
holds ``cancel: true`` (anything else lets the compaction run, as Pi reads ``result?.cancel``).
``rebase.run`` with ``compactDuringActivation`` has the host ask the hook while Pi's
``switchSession`` awaits, and returns those answers as ``compactionAnswers``.  Nothing here
imports the reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pytest
from pytest_bdd import parsers, then, when

from conformance import schemas
from conformance.capabilities import OperationNotDeclared
from conformance.protocol import Adapter, JsonObject
from conformance.steps.rebase_calls import run_rebase
from conformance.world import RebaseWorld

ANSWER_SCHEMA: Final = "adapter/v1/operations.schema.json#/$defs/rebase.beforeCompact/properties/result"
HOOK: Final = "rebase.beforeCompact"


@dataclass
class CompactionWorld:
    """The hook's last answer outside a rebase."""

    answer: JsonObject | None = None


@pytest.fixture
def compaction() -> CompactionWorld:
    return CompactionWorld()


def _cancels(answer: JsonObject) -> bool:
    return answer.get("cancel") is True


def _require_hook(adapter: Adapter) -> None:
    """``compactDuringActivation`` belongs to the hook's operation: a port that does not declare
    ``rebase.beforeCompact`` is UNSUPPORTED here, not failed for ignoring the parameter."""
    declared = getattr(adapter, "declared", None)
    if declared is not None and HOOK not in declared:
        raise OperationNotDeclared(HOOK)


def _ask(adapter: Adapter, compaction: CompactionWorld, params: JsonObject) -> None:
    answer = adapter.request(HOOK, params)
    problems = [schemas.describe(e) for e in schemas.errors(answer, ANSWER_SCHEMA)]
    assert not problems, (problems, answer)
    compaction.answer = answer


@when("Pi asks the before-compaction hook")
def when_ask(adapter: Adapter, compaction: CompactionWorld) -> None:
    _ask(adapter, compaction, {})


@when(parsers.parse("Pi asks the before-compaction hook with its abort signal {state}"))
def when_ask_signal(adapter: Adapter, compaction: CompactionWorld, state: str) -> None:
    assert state in ("fired", "live"), state
    _ask(adapter, compaction, {"signalAborted": state == "fired"})


@when("a rebase is asked while Pi asks the before-compaction hook during the session switch")
def when_run_probing(adapter: Adapter, rebase: RebaseWorld) -> None:
    _require_hook(adapter)
    run_rebase(adapter, rebase, {"mode": "run", "compactDuringActivation": True})


@when("the rebase operation is recovered while Pi asks the before-compaction hook during the session switch")
def when_recover_probing(adapter: Adapter, rebase: RebaseWorld) -> None:
    _require_hook(adapter)
    run_rebase(adapter, rebase, {"mode": "recover", "operationId": rebase.operation_id,
                                 "compactDuringActivation": True})


@then("the before-compaction hook answered cancel")
def then_cancel(compaction: CompactionWorld) -> None:
    assert compaction.answer is not None, "Pi did not ask the before-compaction hook"
    assert _cancels(compaction.answer), compaction.answer


@then("the before-compaction hook did not cancel")
def then_no_cancel(compaction: CompactionWorld) -> None:
    assert compaction.answer is not None, "Pi did not ask the before-compaction hook"
    assert not _cancels(compaction.answer), compaction.answer


@then("the before-compaction hook was asked once during the rebase and answered cancel")
def then_cancel_during(rebase: RebaseWorld) -> None:
    answers = rebase.response.get("compactionAnswers")
    assert isinstance(answers, list) and len(answers) == 1, rebase.response
    assert _cancels(answers[0]), answers


@then("the before-compaction hook was not asked during the rebase")
def then_not_asked(rebase: RebaseWorld) -> None:
    assert rebase.response.get("compactionAnswers", []) == [], rebase.response
