"""Tool exchange analysis (contract §6.4): assistant ``toolCall`` ids against ``toolResult``s.

An issue is an assistant tool call with no result in the list, or a result with no call in the
list; issues are de-duplicated by kind and id.  Active issues are those of the compaction-aware
context; historical ones are found over the whole branch and are not active.  Only counts ever
leave this module's callers: ids, arguments and bodies are private to the session.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from reference.primitives.jsonbytes import js_stringify
from reference.primitives.jsvalues import get


def exchange_key(value: Any) -> str:
    """A comparable key for a tool-call id of any JSON type (``UNDEFINED`` when absent)."""
    return value if isinstance(value, str) else "json:" + js_stringify(value)


def exchange_issues(messages: Iterable[Any]) -> set[str]:
    """The de-duplicated issue strings of a list of context messages."""
    calls: set[str] = set()
    results: set[str] = set()
    for message in messages:
        role = get(message, "role")
        if role == "assistant":
            content = get(message, "content")
            if isinstance(content, list):
                for block in content:
                    if get(block, "type") == "toolCall":
                        calls.add(exchange_key(get(block, "id")))
        elif role == "toolResult":
            results.add(exchange_key(get(message, "toolCallId")))
    return _issues(calls, results)


def _issues(calls: set[str], results: set[str]) -> set[str]:
    issues = {f"missing-result:{call}" for call in calls - results}
    issues |= {f"orphan-result:{result}" for result in results - calls}
    return issues


@dataclass(frozen=True)
class ToolExchangeDiagnostics:
    """Counts only: what blocks a rebase and what stays archived."""

    active_issue_count: int
    historical_issue_count: int

    def to_json(self) -> dict[str, int]:
        return {
            "activeIssueCount": self.active_issue_count,
            "historicalIssueCount": self.historical_issue_count,
        }


def analyse(context_messages: Sequence[Any], branch_messages: Sequence[Any]) -> ToolExchangeDiagnostics:
    """Active issues from the compaction-aware context; historical ones from the whole branch."""
    active = exchange_issues(context_messages)
    historical = exchange_issues(branch_messages) - active
    return ToolExchangeDiagnostics(len(active), len(historical))
