"""Searchable text (contract §3.4), index roles and token estimates of entries."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.primitives.jsonbytes import js_stringify
from reference.recall.searchable import _safe_json, entry_role, index_fields, searchable_text, token_estimate


def message(role: str, content: Any = None, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"role": role, **fields}
    if content is not None:
        body["content"] = content
    return {"type": "message", "id": "e1", "parentId": None, "timestamp": "2025-06-01T12:00:00.000Z", "message": body}


def entry(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": "e1", "parentId": None, "timestamp": "2025-06-01T12:00:00.000Z", **fields}


TEXT = {"type": "text", "text": "first"}
IMAGE = {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}
THINKING = {"type": "thinking", "thinking": "secret reasoning"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # user and custom roles: string content as is, text blocks joined, the rest dropped
        (message("user", "hello"), "hello"),
        (message("user", "\nLastExportUtc\n"), "\nLastExportUtc\n"),
        (message("user", [TEXT, IMAGE, {"type": "text", "text": "second"}]), "first\nsecond"),
        (message("user", [TEXT, {"type": "text", "text": ""}, {"type": "text", "text": "third"}]), "first\nthird"),
        (message("user", [TEXT, {"type": "text", "text": "\n\nkept\n"}]), "first\n\n\nkept\n"),
        (message("user", [{"type": "text", "text": 5}, "loose string", 7, None, {"type": "opaque"}]), ""),
        (message("user", ""), ""),
        (message("user"), ""),
        (message("custom", "from an extension"), "from an extension"),
        # assistant: texts, tool calls as name + JSON.stringify(arguments); no thinking or images
        (
            message("assistant", [THINKING, TEXT, {"type": "toolCall", "id": "t1", "name": "read",
                                                   "arguments": {"path": "a.ts", "n": 1.0, "é": [True, None]}}, IMAGE]),
            'first\nread\n{"path":"a.ts","n":1,"é":[true,null]}',
        ),
        (message("assistant", [{"type": "toolCall", "name": "bash", "arguments": {"b": 1, "1": 2}}]),
         'bash\n{"1":2,"b":1}'),
        (message("assistant", [{"type": "toolCall", "name": "noargs"}]), "noargs"),
        (message("assistant", [{"type": "toolCall", "arguments": {}}]), "{}"),
        (message("assistant", [{"type": "toolCall", "name": "x", "arguments": "raw"}]), 'x\n"raw"'),
        # recursion guard: history tool calls vanish, the rest of the message stays
        (
            message("assistant", [TEXT, {"type": "toolCall", "name": "context_history_recall",
                                         "arguments": {"query": "secret"}}]),
            "first",
        ),
        (message("assistant", [{"type": "toolCall", "name": "context_history_read", "arguments": {}}]), ""),
        # toolResult: the tool name, then the text blocks joined (empty ones inside kept)
        (message("toolResult", [TEXT, IMAGE, {"type": "text", "text": ""}, {"type": "text", "text": "b"}],
                 toolName="read", toolCallId="t1"), "read\nfirst\n\nb"),
        (message("toolResult", "plain", toolName="bash"), "bash\nplain"),
        (message("toolResult", [TEXT]), "first"),
        (message("toolResult", [IMAGE], toolName="read"), "read"),
        (message("toolResult", [TEXT], toolName="context_history_recall"), ""),
        (message("toolResult", "x", toolName="context_history_status"), ""),
        # bashExecution
        (message("bashExecution", command="ls -la", output="a\nb\n"), "Command: ls -la\na\nb\n"),
        (message("bashExecution", command="true", output=""), "Command: true"),
        (message("bashExecution"), "Command: "),
        # odd messages
        ({"type": "message", "message": "not an object"}, ""),
        ({"type": "message"}, ""),
        (message("system", "sys text"), "sys text"),
        (message(None, [TEXT]), "first"),  # type: ignore[arg-type]
    ],
)
def test_message_rendering(value: Any, expected: str) -> None:
    assert searchable_text(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (entry("custom_message", customType="note", content="remember", display=True), "remember"),
        (entry("custom_message", customType="note", content=[TEXT, IMAGE]), "first"),
        (entry("custom_message", customType="note"), ""),
        (entry("custom_message", customType="ds4-rebase-handoff-v1", content="handoff body"), ""),
        (entry("custom_message", customType="ds4-rebase-handoff-v1", content=[TEXT]), ""),
        (entry("compaction", summary="## Goal\n\nsummary", firstKeptEntryId="x", tokensBefore=5), "## Goal\n\nsummary"),
        (entry("compaction", summary=12), ""),
        (entry("branch_summary", fromId="abc", summary="went elsewhere"), "abc\nwent elsewhere"),
        (entry("branch_summary", fromId="root", summary=""), "root"),
        (entry("model_change", provider="anthropic", modelId="claude"), "anthropic\nclaude"),
        (entry("model_change", modelId="claude"), "claude"),
        (entry("thinking_level_change", thinkingLevel="high"), "high"),
        (entry("label", targetId="t1", label="start"), "t1\nstart"),
        (entry("label", targetId="t1"), "t1"),
        (entry("session_info", name="Cache work"), "Cache work"),
        (entry("custom", customType="ds4-context-pin-v1", data={"text": "private"}), ""),
        (entry("something_new", summary="not rendered"), ""),
        ({"no": "type"}, ""),
        (None, ""),
        ([1, 2], ""),
        ("string", ""),
    ],
)
def test_entry_rendering(value: Any, expected: str) -> None:
    assert searchable_text(value) == expected


@pytest.mark.parametrize(
    ("value", "role"),
    [
        (message("user", "x"), "user"),
        (message("assistant", "x"), "assistant"),
        (message("toolResult", "x", toolName="read"), "toolResult"),
        (message("bashExecution", command="ls"), "bashExecution"),
        (message("custom", "x"), "custom"),
        (message("branchSummary", summary="x"), "branchSummary"),
        (message("", "x"), None),
        ({"type": "message", "message": {"role": 3}}, None),
        ({"type": "message", "message": None}, None),
        (entry("custom_message", customType="note", content="x"), "custom"),
        (entry("custom_message", customType="ds4-rebase-handoff-v1", content="x"), "custom"),
        (entry("compaction", summary="x"), "summary"),
        (entry("branch_summary", summary="x"), "summary"),
        (entry("model_change", provider="p"), None),
        (entry("label", targetId="t"), None),
        (entry("custom"), None),
        (None, None),
    ],
)
def test_entry_role(value: Any, role: str | None) -> None:
    assert entry_role(value) == role


@pytest.mark.parametrize(
    ("value", "tokens"),
    [
        # 8 per message + chars-v1 of the role + the content
        (message("user", "hello world!"), 8 + 1 + 3),
        (message("user", [{"type": "text", "text": "abcd"}, IMAGE]), 8 + 1 + (1 + 4) + (1024 + 4)),
        (message("assistant", [{"type": "thinking", "thinking": "abcde"}, {"type": "toolCall", "name": "ab",
                                                                         "arguments": {"a": 1}}]),
         # role "assistant" = 3; thinking 2+4; toolCall ceil(len('ab{"a":1}')/4)=3, +4
         8 + 3 + (2 + 4) + (3 + 4)),
        (message("toolResult", [{"type": "text", "text": "abcd"}], toolName="read"), 8 + 3 + (1 + 4) + 1),
        (message("bashExecution", command="ls", output="12345"), 8 + 4 + 1 + 2),
        (message("user", [7, {"type": "other"}]), 8 + 1 + 1 + (4 + 4)),  # JSON of the odd blocks
        (message("user", "😀"), 8 + 1 + 1),  # one astral character is two UTF-16 units
        (message("user"), 8 + 1),
        ({"type": "message", "message": "x"}, 8),
        (entry("custom_message", customType="note", content="abcdefgh"), 8 + 2 + 2),
        (entry("custom_message", customType="note"), 8 + 2),
        (entry("custom_message", customType="ds4-rebase-handoff-v1", content="long text here"), 0),
        (entry("compaction", summary="abcdefghi"), 3),
        (entry("label", targetId="t1", label="start"), 2),
        (entry("custom"), 0),
    ],
)
def test_token_estimate(value: Any, tokens: int) -> None:
    assert token_estimate(value, searchable_text(value)) == tokens


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "toolCall", "image", "thinking", "other"])},
    optional={"text": json_values, "name": st.text(max_size=20) | json_values, "arguments": json_values,
              "thinking": json_values},
)
messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "toolResult", "bashExecution", "custom", "system"]) | json_values},
    optional={"content": st.text() | st.lists(block | json_values, max_size=5) | json_values,
              "toolName": st.text(max_size=20) | json_values, "command": json_values, "output": json_values},
)
entries = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "custom_message", "compaction", "branch_summary", "model_change",
                              "thinking_level_change", "label", "session_info", "custom"]) | json_values},
    optional={"message": messages | json_values, "content": json_values, "summary": json_values,
              "customType": st.sampled_from(["note", "ds4-rebase-handoff-v1"]), "fromId": json_values,
              "provider": json_values, "modelId": json_values, "name": json_values, "label": json_values},
)


@examples(deep=200, ci=165)
@given(entries)
def test_total_over_any_parsed_value(value: dict[str, Any]) -> None:
    """Any parsed line renders, estimates and gets a role without raising."""
    value = json.loads(json.dumps(value))  # what a JSON parser can actually produce
    text = searchable_text(value)
    assert isinstance(text, str)
    tokens = token_estimate(value, text)
    assert isinstance(tokens, int) and tokens >= 0
    role = entry_role(value)
    assert role is None or (isinstance(role, str) and role)


@examples(deep=200, ci=200)
@given(st.lists(st.text(), max_size=6))
def test_user_text_blocks_are_joined_without_empty_ones(texts: list[str]) -> None:
    value = message("user", [{"type": "text", "text": text} for text in texts])
    assert searchable_text(value) == "\n".join(text for text in texts if text)


@examples(deep=200, ci=200)
@given(st.text(min_size=1))
def test_tool_results_of_history_tools_are_never_searchable(suffix: str) -> None:
    assert searchable_text(message("toolResult", "anything", toolName="context_history_" + suffix)) == ""


#: Strings with lone surrogates (what the JavaScript-faithful parser can yield) and array-index keys.
odd_text = st.text(alphabet=st.characters(codec=None, categories=None), max_size=6) | st.sampled_from(
    ["\ud800", "a\udfff", "0", "12", "01", "4294967294", "-1", "\u2028", "\x7f", "é"])
odd_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | odd_text
    | st.integers() | st.sampled_from([2**53 - 1, 2**53, -(2**53), 0, -0.0, 1e21, 1.5e-7]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(odd_text, children, max_size=4),
    max_leaves=20,
)


@examples(deep=200, ci=200)
@given(odd_values)
def test_fast_serialization_is_json_stringify(value: Any) -> None:
    """The ``msgspec`` shortcut of ``JSON.stringify`` gives its exact text, or is not taken."""
    assert _safe_json(value) == js_stringify(value)


@examples(deep=200, ci=200)
@given(entries | st.fixed_dictionaries({"type": st.just("message"), "message": messages}))
def test_index_fields_are_the_three_functions(value: dict[str, Any]) -> None:
    """The one-pass rendering the indexer uses equals text, role and estimate computed apart."""
    value = json.loads(json.dumps(value))
    text = searchable_text(value)
    assert index_fields(value) == (text, entry_role(value), token_estimate(value, text))


@examples(deep=200, ci=200)
@given(st.lists(st.fixed_dictionaries({"type": st.just("toolCall"), "name": odd_text, "arguments": odd_values}),
                max_size=3))
def test_index_fields_of_odd_tool_calls(blocks: list[dict[str, Any]]) -> None:
    value = message("assistant", blocks)
    text = searchable_text(value)
    assert index_fields(value) == (text, entry_role(value), token_estimate(value, text))
