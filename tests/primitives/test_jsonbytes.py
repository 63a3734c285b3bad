"""JavaScript JSON.stringify bytes (D2); the Node differential lives in tests/oracle."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.primitives.jsonbytes import UNDEFINED, JsonParseError, format_number, js_parse, js_stringify

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (123.456, "123.456"),
        (5e-324, "5e-324"),
        (2**60, "1152921504606847000"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (float("nan"), "null"),
        (float("inf"), "null"),
        (10**400, "null"),
    ],
)
def test_numbers_print_as_javascript_does(value: float, expected: str) -> None:
    assert format_number(value) == expected


def test_strings_keep_non_ascii_and_escape_controls_and_lone_surrogates() -> None:
    assert js_stringify("é😀/\u2028\x7f") == '"é😀/\u2028\x7f"'
    assert js_stringify("\x00\x1f\b\f\n\r\t\"\\") == '"\\u0000\\u001f\\b\\f\\n\\r\\t\\"\\\\"'
    assert js_stringify("\ud800") == '"\\ud800"'
    assert js_stringify("\udc00\ud800") == '"\\udc00\\ud800"'
    # A high and a low surrogate next to each other are one character in UTF-16.
    assert js_stringify("\ud83d\ude00") == '"😀"'


def test_array_index_keys_come_first_then_insertion_order() -> None:
    value = {"b": 1, "10": 2, "2": 3, "01": 4, "4294967295": 5, "4294967294": 6, "a": 7}
    assert js_stringify(value) == '{"2":3,"10":2,"4294967294":6,"b":1,"01":4,"4294967295":5,"a":7}'


def test_undefined_is_dropped_from_objects_and_null_in_arrays() -> None:
    assert js_stringify({"a": UNDEFINED, "b": None, "c": [UNDEFINED]}) == '{"b":null,"c":[null]}'


def test_parse_rejects_what_json_parse_rejects() -> None:
    for text in ["NaN", "[Infinity]", "{'a':1}", "[1,]", "\ufeff{}", "01", "{} x"]:
        with pytest.raises(JsonParseError):
            js_parse(text)
    assert js_parse(' \t{"a":1}\r\n') == {"a": 1}


@examples(deep=200, ci=200)
@given(json_values)
def test_output_is_json_that_parses_back_to_the_same_value(value: object) -> None:
    text = js_stringify(value)
    as_floats = {"parse_int": float, "parse_float": float}
    assert json.loads(text, **as_floats) == json.loads(json.dumps(value), **as_floats)


@examples(deep=200, ci=200)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_numbers_round_trip_exactly(number: float) -> None:
    assert float(format_number(number)) == number or (number == 0 and math.copysign(1, number) < 0)


@examples(deep=200, ci=200)
@given(json_values)
def test_compact_output_matches_python_where_the_rules_agree(value: object) -> None:
    """Without floats, index-like keys or surrogates, JS and Python compact output are identical."""
    if _has_index_keys(value) or _has_float(value) or "\\ud" in json.dumps(value):
        return
    assert js_stringify(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _has_index_keys(value: object) -> bool:
    if isinstance(value, dict):
        return any(k.isdigit() for k in value) or any(_has_index_keys(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_index_keys(v) for v in value)
    return False


def _has_float(value: object) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False
