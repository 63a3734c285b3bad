"""Tool exchange analysis (contract §6.4): assistant ``toolCall`` ids against ``toolResult``s.

An issue is an assistant tool call with no result in the list, or a result with no call in the
list; issues are de-duplicated by kind and id.  Active issues are those of the compaction-aware
context; historical ones are found over the whole branch and are not active.  Only counts ever
leave this module's callers: ids, arguments and bodies are private to the session.
"""

from __future__ import annotations

import enum
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from reference.pi.model.blocks import Message
from reference.pi.exact.context import UnbuildableContext
from reference.pi.exact.reader import defined
from reference.primitives.jsonbytes import js_stringify
from reference.primitives.jsvalues import get


def _key(value: Any) -> str:
    """A comparable key for a tool-call id of any JSON type."""
    return value if isinstance(value, str) else "json:" + js_stringify(value)


def exchange_key(value: Any) -> str:
    """The key ``exchange_issues`` gives a tool-call id read by the typed decode."""
    return _key(defined(value))


class ExchangeFact(enum.Enum):
    """What one ``message`` entry gives the exchange analysis."""

    CALL = enum.auto()  # an assistant tool call, with its key
    RESULT = enum.auto()  # a tool result, with the key of the call it answers
    MESSAGELESS = enum.auto()  # no message at all: Pi cannot build a context over it


def exchange_facts(messages: Iterable[tuple[int, Message | msgspec.UnsetType | None]]) -> Iterator[
        tuple[int, ExchangeFact, str]]:
    """What ``exchange_issues`` collects from the messages of ``message`` entries, given as
    (entry number, typed message) pairs: ``(entry number, fact, key)``, the key ``""`` for
    :attr:`ExchangeFact.MESSAGELESS`."""
    for number, message in messages:
        if message.__class__ is not Message:  # null or absent
            yield number, ExchangeFact.MESSAGELESS, ""
            continue
        role = message.role
        if role == "assistant":
            content = message.content
            if content.__class__ is list:
                for block in content:
                    if block.type == "toolCall":
                        yield number, ExchangeFact.CALL, exchange_key(block.id)
        elif role == "toolResult":
            yield number, ExchangeFact.RESULT, exchange_key(message.toolCallId)


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
                        calls.add(_key(get(block, "id")))
        elif role == "toolResult":
            results.add(_key(get(message, "toolCallId")))
    return _issues(calls, results)


def _issues(calls: set[str], results: set[str]) -> set[str]:
    issues = {f"missing-result:{call}" for call in calls - results}
    issues |= {f"orphan-result:{result}" for result in results - calls}
    return issues


@dataclass
class Exchanges:
    """The tool-exchange facts of a file's ``message`` entries, read with its entries, kept only
    for the entries that have one: the keys of assistant tool calls and of tool results by entry
    number, and the message entries without a message (Pi cannot build a context over them)."""

    call_numbers: array[int] = field(default_factory=lambda: array("q"))
    call_keys: list[str] = field(default_factory=list)
    result_numbers: array[int] = field(default_factory=lambda: array("q"))
    result_keys: list[str] = field(default_factory=list)
    messageless: array[int] = field(default_factory=lambda: array("q"))

    def add(self, messages: Iterable[tuple[int, Message | msgspec.UnsetType | None]]) -> None:
        """The :func:`exchange_facts` of these (entry number, typed message) pairs."""
        for number, fact, key in exchange_facts(messages):
            if fact is ExchangeFact.CALL:
                self.call_numbers.append(number)
                self.call_keys.append(key)
            elif fact is ExchangeFact.RESULT:
                self.result_numbers.append(number)
                self.result_keys.append(key)
            else:
                self.messageless.append(number)

    def extend(self, offset: int, call_numbers: bytes, call_keys: list[str], result_numbers: bytes,
               result_keys: list[str], messageless: bytes) -> None:
        """Another run of entries' facts (as bytes of arrays and lists of keys), numbered from
        ``offset``: the facts of a file read in parts, in file order."""
        for numbers, data in ((self.call_numbers, call_numbers), (self.result_numbers, result_numbers),
                              (self.messageless, messageless)):
            more = array("q")
            more.frombytes(data)
            numbers.extend(number + offset for number in more)
        self.call_keys += call_keys
        self.result_keys += result_keys

    def issues(self, marks: bytearray) -> set[str]:
        """``exchange_issues`` of the entries marked in ``marks`` (by entry number)."""
        if any(marks[number] for number in self.messageless):
            raise UnbuildableContext("a message entry has no message")
        calls = {key for number, key in zip(self.call_numbers, self.call_keys, strict=True) if marks[number]}
        results = {key for number, key in zip(self.result_numbers, self.result_keys, strict=True) if marks[number]}
        return _issues(calls, results)



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
