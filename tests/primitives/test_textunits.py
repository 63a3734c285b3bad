"""UTF-16 lengths, chars-v1 tokens and surrogate-safe slicing (D3)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.primitives.textunits import chars_v1_tokens, slice_utf16, utf8_length, utf16_length


def test_lengths() -> None:
    assert utf16_length("") == 0
    assert utf16_length("abc") == 3
    assert utf16_length("😀") == 2
    assert utf16_length("é漢") == 2
    assert utf8_length("é😀") == 6
    assert chars_v1_tokens("") == 0
    assert chars_v1_tokens("a") == 1
    assert chars_v1_tokens("abcd") == 1
    assert chars_v1_tokens("abcde") == 2


@examples(deep=200, ci=200)
@given(st.text())
def test_utf16_length_matches_the_encoding(text: str) -> None:
    assert utf16_length(text) == len(text.encode("utf-16-le", "surrogatepass")) // 2
    assert chars_v1_tokens(text) == math.ceil(utf16_length(text) / 4)


@examples(deep=200, ci=200)
@given(st.text(), st.integers(0, 40))
def test_slice_is_the_longest_prefix_that_fits_and_never_splits_a_pair(text: str, units: int) -> None:
    cut = slice_utf16(text, units)
    assert text.startswith(cut)
    assert utf16_length(cut) <= units
    rest = text[len(cut) :]
    if rest:
        assert utf16_length(cut) + utf16_length(rest[0]) > units
