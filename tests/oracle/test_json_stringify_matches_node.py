"""``reference.primitives.jsonbytes.js_stringify`` writes the same bytes as Node's ``JSON.stringify``.

Hashes and budgets in the contract are measured on this serialization, so any drift (number
spelling, escapes, property order of index-like keys, lone surrogates) is a contract bug.
Values travel to Node in a tagged encoding that keeps what JSON text would lose.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given
from hypothesis import strategies as st
from testkit import pi_oracle as _pi
from testkit.profiles import examples

from reference.primitives.jsonbytes import UNDEFINED, js_stringify

pytestmark = pytest.mark.oracle

SPECIAL_TEXT = [
    "", "\u2028", "\u2029", "\x7f", "\x00", "\x1f", "\b\f\n\r\t", '"', "\\", "/", "</script>",
    "\ud800", "\udfff", "\ud83d\ude00", "\ude00\ud83d", "😀", "𝔘", "é", "\u00a0", "\ufeff", "\uffff",
]
INDEX_LIKE_KEYS = [
    "0", "1", "10", "2", "01", "00", "-0", "-1", "1.5", "1e3", " 1", "4294967294", "4294967295",
    "4294967296", "9007199254740993", "__proto__", "constructor", "length",
]
SPECIAL_FLOATS = [
    0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
    1e21, 1e20, 9.999999999999999e20, 1e-7, 1e-6, 1.5e-7, 123e-20, 0.1, 0.1 + 0.2, 1 / 3, 100.0, 1.0,
    2.0**53, 2.0**53 + 2, 4294967295.0, 1e300, -1e-300, math.inf, -math.inf, math.nan,
]
SPECIAL_INTS = [0, -1, 2**31, 2**32, 2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**63, 2**64 + 1, 10**21, 10**22 + 1, 10**308, 10**309, -(10**400)]

characters = st.one_of(
    st.characters(),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),
    st.characters(min_codepoint=0x10000),
    st.characters(max_codepoint=0x7F),
)
texts = st.one_of(st.text(characters, max_size=24), st.sampled_from(SPECIAL_TEXT))
keys = st.one_of(texts, st.sampled_from(INDEX_LIKE_KEYS), st.integers(0, 2**33).map(str))
numbers = st.one_of(
    st.floats(),
    st.floats(allow_subnormal=True, min_value=-1e-300, max_value=1e-300),
    st.sampled_from(SPECIAL_FLOATS),
    st.integers(),
    # Integers beyond 2**53 (rounded by JSON.parse) up to past the double range (Infinity).
    st.builds(lambda bits, low, neg: (-1 if neg else 1) * ((1 << bits) + low), st.integers(53, 1100), st.integers(0, 2**64), st.booleans()),
    st.sampled_from(range(len(SPECIAL_INTS))).map(SPECIAL_INTS.__getitem__),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, texts)


def _js_key(key: str) -> str:
    """The key as JavaScript holds it: a surrogate pair written as two code points is one character.

    Python can hold both spellings as distinct keys, JavaScript cannot (and ``json.loads`` never
    produces the split spelling), so dictionaries are generated unique by this form.
    """
    return key.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    pairs = st.lists(st.tuples(keys, st.one_of(children, st.just(UNDEFINED))), max_size=8, unique_by=lambda kv: _js_key(kv[0]))
    return pairs.map(dict)


values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(st.one_of(children, st.just(UNDEFINED)), max_size=6), _objects(children)),
    max_leaves=40,
)


# Hypothesis warns while describing these nested strategies in its statistics; harmless here.
@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@examples(
    deep=600, ci=175,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(value=values)
@example(value={"b": 1, "10": 2, "2": 3, "01": 4, "4294967295": 5, "4294967294": 6, "a": UNDEFINED})
@example(value=[-0.0, 5e-324, 1e21, 1e-7, 2**53 + 1, math.nan, UNDEFINED, "\ud800", "\ud83d\ude00"])
@example(value={"__proto__": {"x": [1.0, 123e-20]}, "\ud800": "\u2028"})
def test_js_stringify_matches_node(value: Any, stringify_server: _pi.StringifyServer) -> None:
    expected = stringify_server.stringify(value)
    assert expected is not None, "JSON.stringify returned undefined for a non-undefined value"
    assert js_stringify(value) == expected
