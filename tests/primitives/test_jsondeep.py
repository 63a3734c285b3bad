"""The iterative ``JSON.parse`` fallback and the iterative ``js_stringify`` (issue 12).

Each must give exactly what the C decoder and the recursive writer give wherever those work,
and keep going where they raise ``RecursionError`` or ``int()``'s digit limit.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.primitives import jsonbytes
from reference.primitives.jsonbytes import JsonParseError, js_parse, js_stringify
from reference.primitives.jsondeep import DeepParseError, Hooks, parse

_PLAIN = Hooks(int, float, jsonbytes._reject_constant, dict)
_JS = jsonbytes._DEEP_JS_HOOKS

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=30,
)


@examples(deep=300, ci=300, deadline=None)
@given(values, st.sampled_from(["", " ", "\n\t "]))
def test_the_iterative_parser_agrees_with_the_c_decoder(value: Any, space: str) -> None:
    text = json.dumps(value, indent=1 if space else None).replace("\n", "\n" + space)
    assert parse(space + text, 0, _PLAIN)[0] == json.loads(text)
    assert parse(text, 0, _JS)[0] == js_parse(text, js_numbers=True)


@examples(deep=300, ci=300, deadline=None)
@given(values)
def test_the_iterative_writer_agrees_with_the_recursive_one(value: Any) -> None:
    out: list[str] = []
    jsonbytes._write_iteratively(value, out)
    assert "".join(out) == js_stringify(value)


@pytest.mark.parametrize("depth", [990, 5_000, 100_000])
def test_deep_arrays_and_objects_parse_and_stringify(depth: int) -> None:
    text = '{"a":' * depth + '[1,"x",null,{},[]]' + "}" * depth
    value = js_parse(text)
    assert js_stringify(value) == text
    inner = value
    for _ in range(depth):
        inner = inner["a"]
    assert inner == [1, "x", None, {}, []]


def test_integers_past_the_digit_limit_are_the_doubles_javascript_holds() -> None:
    assert js_parse("9" * 4300) == int("9" * 4300)  # at the limit: exact, as before
    assert js_parse("9" * 4301) == math.inf  # past it: what JSON.parse gives
    assert js_parse("-" + "9" * 5000) == -math.inf
    assert js_parse("[" + "1" * 5000 + "]", js_numbers=True) == [math.inf]
    assert js_stringify(js_parse("9" * 5000)) == "null"  # JSON.stringify(Infinity)


@pytest.mark.parametrize(("text", "line", "column"), [
    ("[" * 3000 + "1,]" + "]" * 2999, 1, 3003),
    ("[" * 3000 + "\n  x" + "]" * 3000, 2, 3),
    ('{"a":' * 3000 + "1" + "}" * 2999 + "]", 1, 18001),
    ("[" * 3000 + "1" + "]" * 2999, 1, 6001),  # the end of the text
])
def test_a_deep_syntax_error_is_a_json_parse_error_with_its_place(text: str, line: int, column: int) -> None:
    with pytest.raises(JsonParseError) as info:
        js_parse(text)
    assert (info.value.line, info.value.column) == (line, column)


def test_constants_javascript_rejects_stay_rejected_deep_down() -> None:
    for constant in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(JsonParseError):
            js_parse("[" * 3000 + constant + "]" * 3000)


def test_trailing_data_after_a_deep_value_is_refused() -> None:
    with pytest.raises(JsonParseError, match="unexpected data"):
        js_parse("[" * 3000 + "]" * 3000 + " x")


def test_deep_false_lets_the_recursion_error_out() -> None:
    with pytest.raises(RecursionError):
        js_parse("[" * 100_000 + "]" * 100_000, deep=False)


def test_the_deep_parser_refuses_a_bad_key_and_a_missing_colon() -> None:
    with pytest.raises(DeepParseError, match="property name"):
        parse("{1:2}", 0, _PLAIN)
    with pytest.raises(DeepParseError, match="':' delimiter"):
        parse('{"a" 2}', 0, _PLAIN)
    with pytest.raises(DeepParseError, match="Unterminated"):
        parse('["abc', 0, _PLAIN)
