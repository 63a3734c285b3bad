"""Given and When steps for the bounds of the history tools: queries of an exact length in UTF-16
units, and long messages that show which query terms a recall kept.

A recall cuts its excerpt around the earliest query term in the entry's text (contract §2.7), so
an entry that holds the term one past a cap first, the term at the cap further on and a term
the engine surely matches at the end shows, by what its excerpt holds, whether the term at the
cap was kept and the one past it was dropped.
"""

from __future__ import annotations

import json

from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.history_calls import call_tool
from conformance.steps.history_read_steps import append_message
from conformance.world import HistoryWorld


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@when(parsers.parse('recall is asked for "{text}" padded with "{pad}" to {units:d} UTF-16 units'))
def when_recall_padded(adapter: Adapter, history: HistoryWorld, text: str, pad: str, units: int) -> None:
    missing = units - utf16_units(text)
    assert missing >= 0 and missing % utf16_units(pad) == 0, "the pad cannot reach that length exactly"
    query = text + pad * (missing // utf16_units(pad))
    assert utf16_units(query) == units
    history.last_recall = call_tool(adapter, history, "history.recall", {"query": query})


@when(parsers.parse("recall is asked for the query {query}"))
def when_recall_query(adapter: Adapter, history: HistoryWorld, query: str) -> None:
    history.last_recall = call_tool(adapter, history, "history.recall", {"query": query})


@given(parsers.parse('the current history session ends with a user message "{entry_id}" that says "{first}", '
                     '"{second}" and "{third}", {gap:d} characters apart'))
def given_spread_message(history: HistoryWorld, entry_id: str, first: str, second: str, third: str, gap: int) -> None:
    """One line: ``first``, ``gap`` filler characters, ``second``, ``gap`` more, ``third``."""
    filler = ("zz " * gap)[:gap]
    append_message(history, entry_id, [f"{first} {filler} {second} {filler} {third}"])


@then(parsers.parse('the hits come from the sessions "{ids}" in this order'))
def then_hit_sessions(history: HistoryWorld, ids: str) -> None:
    assert [hit["sessionId"] for hit in history.last["hits"]] == ids.split(), history.last


def _append_entry(history: HistoryWorld, entry_id: str, text: str, extra: object) -> dict[str, object]:
    """A user message child of the file's last entry, carrying ``extra`` under the key ``extra``."""
    path = history.current
    lines = [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    parent = next((line.get("id") for line in reversed(lines) if line.get("type") != "session"), None)
    entry: dict[str, object] = {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:30.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1767225630000}, "extra": extra,
    }
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))
    return entry


def json_values(value: object) -> int:
    """How many JSON values ``value`` holds, itself included (object keys are not values)."""
    if isinstance(value, dict):
        return 1 + sum(json_values(item) for item in value.values())
    if isinstance(value, list):
        return 1 + sum(json_values(item) for item in value)
    return 1


@given(parsers.parse('the current history session gets a user message "{entry_id}" saying "{text}" with a value '
                     '{depth:d} levels below the entry'))
def given_deep_message(history: HistoryWorld, entry_id: str, text: str, depth: int) -> None:
    """The entry is level 0, its ``extra`` field level 1, and a string sits ``depth`` levels down."""
    extra: object = "leaf"
    for _ in range(depth - 1):
        extra = [extra]
    _append_entry(history, entry_id, text, extra)


@given(parsers.parse('the current history session gets a user message "{entry_id}" saying "{text}" with {count:d} '
                     'JSON values in all'))
def given_wide_message(history: HistoryWorld, entry_id: str, text: str, count: int) -> None:
    """The entry, every value in it and the zeros of its ``extra`` list add up to ``count``."""
    bare = json_values(_entry_shape(entry_id, text))
    assert count >= bare + 1
    entry = _append_entry(history, entry_id, text, [0] * (count - bare - 1))
    assert json_values(entry) == count


def _entry_shape(entry_id: str, text: str) -> dict[str, object]:
    return {"type": "message", "id": entry_id, "parentId": "p", "timestamp": "t",
            "message": {"role": "user", "content": text, "timestamp": 0}}


@given(parsers.parse('the current history session ends with a user message "{entry_id}" of exactly {units:d} UTF-16 '
                     'units starting "{head}"'))
def given_exact_message(history: HistoryWorld, entry_id: str, units: int, head: str) -> None:
    """One line: ``head``, a space, then ``x`` up to ``units`` UTF-16 units in all."""
    text = head + " " + "x" * (units - utf16_units(head) - 1)
    assert utf16_units(text) == units
    append_message(history, entry_id, [text])
