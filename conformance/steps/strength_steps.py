"""Steps for the scenarios the mutation tool's survivors asked for (issue 14, ``strength.feature``).

They build history entries whose shape sits exactly at a bound of the classification floor walk
(contract §8.4: more than 10,000 visited values, or a value deeper than 64, fail closed), and
check that a hit field the contract omits when unknown is absent, not null.  Expected values come
from what the steps wrote, never from the implementation.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.common import js_json
from conformance.steps.history_calls import call_tool
from conformance.world import HistoryWorld, Response

#: The envelope's reserve (contract §3.3 step 10: chars-v1 of the envelope plus 96 within the budget).
RESERVE_TOKENS = 96
#: The leading hit fields that are also a read's ``source``, in order (contract §3.3).
_SOURCE_FIELDS = ("sourceRef", "projectId", "sessionId", "entryId", "kind", "role", "timestamp", "relation",
                  "classification")


def _values(node: Any) -> int:
    """Every JSON value of ``node``, itself included (object keys are not values)."""
    if isinstance(node, dict):
        return 1 + sum(_values(child) for child in node.values())
    if isinstance(node, list):
        return 1 + sum(_values(child) for child in node)
    return 1


def _message(history: HistoryWorld, entry_id: str, text: str) -> dict[str, Any]:
    """A user message whose parent is the file's last entry (so it becomes the default leaf)."""
    lines = [json.loads(line) for line in history.current.read_bytes().splitlines() if line.strip()]
    parent = next((line.get("id") for line in reversed(lines) if line.get("type") != "session"), None)
    second = len(lines)
    return {
        "type": "message", "id": entry_id, "parentId": parent,
        "timestamp": f"2026-01-01T00:{second // 60:02d}:{second % 60:02d}.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1767225600000 + second * 1000},
    }


def _append(history: HistoryWorld, entry: dict[str, Any]) -> None:
    with history.current.open("ab") as handle:
        handle.write((json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    history.texts[entry["id"]] = entry["message"]["content"]


@given(parsers.parse('the current history session gets a user message "{entry_id}" saying "{text}" '
                     'whose deepest value is at depth {depth:d}'))
def given_deep_message(history: HistoryWorld, entry_id: str, text: str, depth: int) -> None:
    """The entry is depth 0; its field ``nested`` (depth 1) holds arrays down to an empty one at ``depth``."""
    assert depth >= 2, "the message object itself is at depth 1, its fields at 2"
    nested: list[Any] = []
    for _ in range(depth - 1):
        nested = [nested]
    entry = _message(history, entry_id, text)
    entry["nested"] = nested
    _append(history, entry)


@given(parsers.parse('the current history session gets a user message "{entry_id}" saying "{text}" '
                     'of {count:d} JSON values in all'))
def given_wide_message(history: HistoryWorld, entry_id: str, text: str, count: int) -> None:
    """The entry object and every value inside it number ``count``; a field ``filler`` of zeros makes up the rest."""
    entry = _message(history, entry_id, text)
    entry["filler"] = []
    missing = count - _values(entry)
    assert missing >= 0, f"the message alone has {_values(entry)} values"
    entry["filler"] = [0] * missing
    assert _values(entry) == count
    _append(history, entry)


@then(parsers.parse('the first hit has no "{field}" field'))
def then_first_hit_lacks(history: HistoryWorld, field: str) -> None:
    hit = history.last["hits"][0]
    assert field not in hit, hit


@given(parsers.parse('the current history session ends with a user message "{entry_id}" of {count:d} '
                     'one-character lines, the first saying "{first}"'))
def given_narrow_lines(history: HistoryWorld, entry_id: str, count: int, first: str) -> None:
    """Lines of one character (three in the JSON envelope with the ``\\n`` escape), so that one
    token more or less of room always changes how many lines a read fills."""
    lines = [first] + ["x"] * (count - 1)
    entry = _message(history, entry_id, "\n".join(lines))
    _append(history, entry)
    history.messages[entry_id] = lines


@when(parsers.parse('the sibling history session "{name}" is renamed to "{new_name}"'))
def when_sibling_renamed(history: HistoryWorld, name: str, new_name: str) -> None:
    """The same session (same header id) now lives in another file of the same folder."""
    old = history.sessions.pop(name)
    new = old.with_name(f"{new_name}.jsonl")
    old.rename(new)
    history.sessions[new_name] = new


@given(parsers.parse('the current history session ends with a user message "{entry_id}" of {count:d} '
                     'lines saying "{line}", the first saying "{first}"'))
def given_repeated_lines(history: HistoryWorld, entry_id: str, count: int, line: str, first: str) -> None:
    lines = [first] + [line] * (count - 1)
    _append(history, _message(history, entry_id, "\n".join(lines)))
    history.messages[entry_id] = lines


@when(parsers.parse('the first hit is read with one token less than lines 1 to {last:d} of "{entry_id}" need'))
def when_read_one_token_short(adapter: Adapter, history: HistoryWorld, last: int, entry_id: str) -> None:
    """The budget is the cost of the envelope holding lines 1 to ``last`` (``nextLine`` ``last + 1``),
    less one token, computed from the hit's own source fields: those lines must not all fit."""
    hit = history.recall["hits"][0]
    lines = history.messages[entry_id]
    envelope = {
        "schema": "ds4-history-result-v1", "quotedData": True, "status": "complete", "coverage": "complete",
        "warnings": [], "source": {key: hit[key] for key in _SOURCE_FIELDS if key in hit},
        "text": "\n".join(lines[:last]), "startLine": 1, "truncated": last < len(lines), "nextLine": last + 1,
    }
    units = len(js_json(envelope).encode("utf-16-le")) // 2
    budget = math.ceil(units / 4) + RESERVE_TOKENS - 1
    call_tool(adapter, history, "history.read",
              {"sourceRef": hit["sourceRef"], "maxLines": 200, "maxOutputTokens": budget})


@when(parsers.parse('a JSON value of {depth:d} nested arrays around {inner} is parsed and serialized again'))
def when_canonicalize_deep(adapter: Adapter, response: Response, depth: int, inner: str) -> None:
    response.call(adapter, "json.canonicalize", {"text": "[" * depth + inner + "]" * depth})


@then(parsers.parse('its serialization is {depth:d} nested arrays around {inner}'))
def then_serialized_deep(response: Response, depth: int, inner: str) -> None:
    text = response.value()["text"]
    assert text == "[" * depth + inner + "]" * depth, text[:80] + "..." + text[-80:]
