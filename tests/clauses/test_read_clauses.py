"""Clauses of contract §3.1 and §4 that only the interactive host's ``/context history`` command
line shows (not a tool call of the adapter protocol): how it parses a read, and what status and
search run (issue 26: each clause is checked by a scenario or, as here, by a test)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from reference.cli.interactive import _history_command
from reference.config.defaults import default_config
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.recall.request import validate_recall
from reference.recall.service import HistoryService

REF = "hist_0123456789abcdef0123456789abcdef"


@dataclass
class _Answer:
    body: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return self.body


@dataclass
class _Service:
    """Records what each command asked the history service for."""

    calls: list[tuple[str, Any]] = field(default_factory=list)

    def status(self) -> _Answer:
        self.calls.append(("status", None))
        return _Answer({"tool": "status"})

    def recall(self, arguments: dict[str, Any]) -> _Answer:
        self.calls.append(("recall", arguments))
        return _Answer({"tool": "recall"})

    def read(self, arguments: dict[str, Any]) -> _Answer:
        self.calls.append(("read", arguments))
        return _Answer({"tool": "read"})


def _run(rest: str) -> _Service:
    service = _Service()
    _history_command(cast(HistoryService, service), rest)
    return service


def test_the_read_command_refuses_a_fourth_token() -> None:
    """C3.1-6: the arguments are split on whitespace and a 4th token is refused."""
    assert _run(f"read {REF} 2 3").calls == [("read", {"sourceRef": REF, "startLine": 2, "maxLines": 3})]
    assert _run(f"read   {REF}\t2  3 ").calls[0][1] == {"sourceRef": REF, "startLine": 2, "maxLines": 3}
    service = _Service()
    with pytest.raises(ContractViolation) as refused:
        _history_command(cast(HistoryService, service), f"read {REF} 2 3 4")
    assert refused.value.code == Code.INVALID_RANGE and service.calls == []


@pytest.mark.parametrize("token", ["x", "1e", "two"])
def test_the_read_command_turns_non_numeric_text_into_invalid_range(token: str) -> None:
    """C3.1-7: Number() of text is NaN, which the read's range check refuses (invalid-range)."""
    arguments = _run(f"read {REF} {token}").calls[0][1]
    assert arguments["sourceRef"] == REF and arguments["startLine"] != arguments["startLine"]  # NaN


def test_the_read_command_cannot_set_max_output_tokens() -> None:
    """C3.1-8: only sourceRef, startLine and maxLines come from the command line."""
    for rest in (f"read {REF}", f"read {REF} 1", f"read {REF} 1 5"):
        assert "maxOutputTokens" not in _run(rest).calls[0][1]


def test_the_history_command_defaults_to_status_and_searches_with_defaults() -> None:
    """C4-7: ``/context history`` is status; search passes the raw remaining text as the only
    parameter; an empty query is invalid-query."""
    assert _run("").calls == [("status", None)]
    assert _run("status").calls == [("status", None)]
    assert _run("search `LastExportUtc`  scope: project").calls == [
        ("recall", {"query": "`LastExportUtc`  scope: project"})]
    assert _run("search").calls == [("recall", {"query": ""})]
    history = cast(dict[str, Any], default_config()["historyTools"])
    with pytest.raises(ContractViolation) as refused:
        validate_recall({"query": ""}, history)
    assert refused.value.code == Code.INVALID_QUERY
