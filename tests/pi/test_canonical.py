"""``canonical_text`` says yes only when ``js_stringify(js_parse(text))`` is the text itself."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.pi.model.blocks import Fields, NotOrdinary, _decode, _one
from reference.pi.model.canonical_json import canonical_text
from reference.primitives.jsonbytes import JsonParseError, format_number, js_parse, js_stringify, quote_string

_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=16,
)


def _check(text: bytes) -> None:
    proven = canonical_text(text)
    if proven is None:
        return
    value, data = proven
    assert data == text
    exact = js_parse(text.decode("utf-8", "replace"))
    assert js_stringify(exact).encode() == text
    assert js_stringify(value) == js_stringify(exact)


@examples(deep=200, ci=200)
@given(_values)
def test_what_javascript_writes_is_proven_or_refused_never_wrong(value: Any) -> None:
    text = js_stringify(value).encode("utf-8")
    _check(text)
    _check(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))
    _check(json.dumps(value).encode())


@pytest.mark.parametrize("text", [
    b'{"a":1}', b'{"a":"\\u0041"}', b'{"a":"\\/"}', b'{"a":"\\u001F"}', b'{"a":"\\u001f"}', b'{"a": 1}',
    b'{"a":1,"a":2}', b'{"1":1,"0":2}', b'{"b":1,"10":2}', b'[9007199254740993]', b"9007199254740993",
    b"[12345678901234567890]", b"[-12345678901234567890]", b"[1.0]", b"[-0]", b"[-0.0]", b"[1e400]", b"[1E5]",
    b"[1e5]", b"[5e-7]", b"[0.0000005]", b"[1e21]", b"[1e+21]", b"[100000000000000000000]", b"[0.1]",
    b"[1.5e300]", b"[0.30000000000000004]", b"[0.3000000000000000444]", b'"\\ud800"', b'"\\ud83d\\ude00"',
    b'"\xff"', b'"\xed\xa0\x80"', b"[" * 2000 + b"]" * 2000, b'{"a":"\t"}', b"\t[1]", b"[1] ",
    b'{"x":"a\\"1\\":"}', b'{"x":"9\\":1"}',
])
def test_the_cases_msgspec_and_javascript_write_differently(text: bytes) -> None:
    try:
        js_parse(text.decode("utf-8", "replace"))
    except JsonParseError:
        assert canonical_text(text) is None
        return
    _check(text)


@examples(deep=200, ci=200)
@given(st.text())
def test_msgspec_escapes_strings_as_javascript_does(text: str) -> None:
    try:
        written = msgspec.json.encode(text).decode()
    except UnicodeEncodeError:  # a lone surrogate: never reaches msgspec's writer in a proven text
        return
    assert written == quote_string(text)


@examples(deep=200, ci=200)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_is_proven_only_in_javascripts_form(number: float) -> None:
    for text in {repr(number), format_number(number), json.dumps(number)}:
        _check(f"[{text}]".encode())


_lines = st.lists(st.sampled_from([
    b'{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"x"}]}}',
    b'{"type":"message","id":"b","message":{"role":"user","content":"\\ud800"}}',
    b'{"type":"message","id":"c","message":{"role":"assistant","content":[1]}}',
    b'{"type":"message","id":"d","message":5}',
    b'{"type":"custom","id":"e","data":"\\udc00\\ud800"}',
    b'{"type":"custom","id":"f","data":[1,2]}',
    b'{"type":"custom","id":"\\ud800"}',
    b'{"type":"custom","id":"g","data":"\\ud83d\\ude00"}',  # a pair msgspec reads: one line alone all the same
    b'',  # blank and whitespace lines are never ordinary, in any block
    b' \t',
]), min_size=1, max_size=40)


@examples(deep=200, ci=200)
@given(_lines)
def test_a_block_with_refused_lines_decodes_as_line_by_line(lines: list[bytes]) -> None:
    try:
        expected: list[Fields] | type[NotOrdinary] = [_one(line) for line in lines]
    except NotOrdinary:
        expected = NotOrdinary
    try:
        assert _decode(lines) == expected
    except NotOrdinary:
        assert expected is NotOrdinary


@examples(deep=200, ci=200)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_msgspec_writes_a_float_as_javascript_does_unless_it_ends_in_point_zero_or_has_an_exponent(
        number: float) -> None:
    """What lets ``canonical_text`` skip the float hook: in ``msgspec``'s own text, only a float
    ending in ``.0`` or with an ``e`` can be one JavaScript writes otherwise."""
    written = msgspec.json.encode(number).decode()
    if not written.endswith(".0") and "e" not in written:
        assert written == format_number(number)


@pytest.mark.parametrize("text", [
    b"[" + b",".join([b'{"a":0.0256626,"b":"3e4f","c":"x.0,"}'] * 40) + b"]",
    b'[{"a":"1.0]"},{"b":0.1}]', b'[{"a":"x","b":1.5e-7}]', b'[{"a":"x","b":4.5e-6}]', b'[{"a":0.0000045}]',
    b'[{"a":[1e21]}]', b'[{"a":{"b":-2.0}}]', b"5.0", b"-1e-7", b"1e-7", b"0.5",
])
def test_a_block_of_lines_is_proven_as_one_text(text: bytes) -> None:
    """Whole arrays of lines (as ``session inspect`` proves a run of message lines): the floats
    that look odd are looked at one by one, the rest never wrongly."""
    _check(text)
    if b"e-7" in text or text == b"0.5":
        assert canonical_text(text) is not None
