"""The rebase host as the rebase steps call it: ``rebase.open`` and ``rebase.run``.

A plain helper module (no ``_steps`` suffix).  Every ``rebase.run`` response is checked against
the operations schema, so every ``RebaseResult`` against
``schemas/rebase/rebase-result.schema.json``, and becomes the scenario's last result.
"""

from __future__ import annotations

from typing import Any, Final

from conformance import schemas
from conformance.protocol import Adapter, ContractError, JsonObject
from conformance.world import RebaseWorld

RUN_SCHEMA: Final = "adapter/v1/operations.schema.json#/$defs/rebase.run/properties/result"
CRASH_SCHEMA: Final = "adapter/v1/operations.schema.json#/$defs/rebase.crash/properties/result"
#: Ids the host hands out for new targets, so that a scenario can name them (a dry run draws one too).
TARGET_IDS: Final = [f"7a2e0c1d-0000-4000-8000-{n:012d}" for n in range(1, 9)]


def open_rebase(adapter: Adapter, rebase: RebaseWorld, session_file: str | None = None, **facts: Any) -> None:
    """``rebase.open`` on the current session (or ``session_file``), every host fact settable."""
    data = rebase.source.read_bytes()
    if rebase.source_bytes is None:
        rebase.source_bytes = data
    if "leaf" in facts:
        rebase.leaf = facts["leaf"]
    project = rebase.history.project
    params = {**project.host_params(), "sessionFile": session_file or str(rebase.source),
              "indexPath": str(project.index_path), "targetSessionIds": list(TARGET_IDS), **facts}
    adapter.request("rebase.open", params)


def run_rebase(adapter: Adapter, rebase: RebaseWorld, params: dict[str, Any]) -> JsonObject:
    """``rebase.run`` in one of its modes; its ``RebaseResult`` becomes the last result."""
    try:
        response = adapter.request("rebase.run", params)
    except ContractError as exc:  # a rebase answers with a RebaseResult, never with a protocol error
        raise AssertionError(f"rebase.run refused at the protocol level: {exc.code}: {exc.message}") from None
    problems = [schemas.describe(e) for e in schemas.errors(response, RUN_SCHEMA)]
    assert not problems, (problems, response)
    result: JsonObject = response["result"]
    rebase.last_response = response
    rebase.last_result = result
    rebase.results.append(result)
    if result.get("operationId"):
        rebase.reported_operation = result["operationId"]
    return result
