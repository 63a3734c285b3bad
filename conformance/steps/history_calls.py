"""The history host and tools as the history, scope, read and rebase steps call them.

A plain helper module (no ``_steps`` suffix, so the plugin does not load it as steps): it writes
session lines with ``{cwd}`` standing for the project folder, opens a session in the
implementation's history host (``history.open``) and calls a tool, checking every envelope
against ``schemas/history/result.schema.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from conformance import schemas
from conformance.protocol import Adapter, ContractError, JsonObject
from conformance.world import HistoryWorld

RESULT_SCHEMA: Final = "history/result.schema.json"


def session_lines(docstring: str, cwd: Path) -> bytes:
    """The non-blank lines of a doc string, each ended by LF, ``{cwd}`` replaced by the project folder."""
    lines = [line.replace("{cwd}", json.dumps(str(cwd))[1:-1]) for line in docstring.splitlines() if line.strip()]
    return "".join(line + "\n" for line in lines).encode("utf-8")


def open_history(adapter: Adapter, history: HistoryWorld, **extra: Any) -> None:
    """``history.open`` on the current session (``extra`` overrides any parameter)."""
    project = history.project
    params = {**project.host_params(), "sessionFile": str(history.sessions.get("current", "")) or None,
              "indexPath": str(project.index_path), **extra}
    if history.remembered_bytes is None:
        history.remember()
    adapter.request("history.open", params)


def call_tool(adapter: Adapter, history: HistoryWorld, op: str, arguments: dict[str, Any]) -> JsonObject:
    """Call one history tool; its envelope becomes the last result."""
    try:
        result = adapter.request(op, {"arguments": arguments})
    except ContractError as exc:  # the tools answer with envelopes, never with protocol errors
        raise AssertionError(f"{op} refused at the protocol level: {exc.code}: {exc.message}") from None
    errors = schemas.errors(result, RESULT_SCHEMA)
    assert not errors, [schemas.describe(e) for e in errors]
    history.results.append(result)
    history.last_result = result
    return result
