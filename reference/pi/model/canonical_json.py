"""Whether a JSON text is already what JavaScript's ``JSON.stringify`` would write for it.

``session inspect --json`` prints each context message as ``js_stringify(js_parse(bytes))``; a
message Pi wrote is such bytes already (Pi writes its lines with ``JSON.stringify``), so the bytes
can be copied out instead of parsed and written again by Python.  :func:`canonical_text` proves it
with one ``msgspec`` decode and encode, byte-compared with the input (which rules out whitespace,
duplicate keys and every escape ``JSON.stringify`` does not write, since ``msgspec`` escapes
strings exactly as JavaScript does), plus what ``msgspec`` writes differently from JavaScript:
a number with a fraction or exponent must be the one JavaScript writes for its value
(:func:`reference.primitives.jsonbytes.format_number`), an integer must be below 2^53 in
magnitude, and an object must have no array-index key (JavaScript puts those first).  When any
of that fails, or ``msgspec`` refuses the text (a lone surrogate escape, invalid UTF-8, a number
out of range), the answer is None and the caller takes the JavaScript-faithful path.

Floats are looked at one by one only when the text may hold one ``msgspec`` writes otherwise: once
the bytes equal ``msgspec``'s, every float in them is in ``msgspec``'s form, and that form is
JavaScript's unless it ends in ``.0`` or has an exponent (tests/pi/test_canonical.py holds it).  A
text with neither (a ``.0`` before ``,``, ``}`` or ``]``; a ``:``, ``,`` or ``[`` followed by digits,
a point or a sign and then an ``e``) is proven without a Python call per float; any other is
decoded again with the float hook.  So a whole block of lines, written as one JSON array, is
proven by one decode, one encode and one compare.
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

from reference.primitives.jsonbytes import format_number

_odd_numbers: list[str] = []  # what the float hook saw that JavaScript would write otherwise


def _checked_float(text: str) -> float:
    value = float(text)
    fast = repr(value)
    if (fast != text or text.endswith(".0") or "e" in fast) and format_number(value) != text:
        _odd_numbers.append(text)
    return value


_CHECKED: Final = msgspec.json.Decoder(float_hook=_checked_float)
_DECODER: Final = msgspec.json.Decoder()
_ENCODER: Final = msgspec.json.Encoder()
# Digits, points and signs dropped, a byte that can start a value -> "p", an "e" kept, any other
# byte -> a space: ``pe`` is then where a number with an exponent may be.
_EXPONENTS: Final = bytes(ord("p") if c in b":,[" else ord("e") if c == 0x65 else ord(" ") for c in range(256))
_NUMBER_BYTES: Final = b"0123456789.-+"
_EXPONENT: Final = re.compile(b"pe")
_INTEGRAL_FLOAT: Final = re.compile(rb"\.0[,}\]]")
# Digits -> "d", a quote -> "q", a colon -> "k", the other bytes that can precede a number
# token -> "p", any other byte -> a space: a few substring searches then find what to look at.
_SHAPES: Final = bytes(
    ord("d") if 0x30 <= c <= 0x39 else ord("q") if c == 0x22 else ord("k") if c == 0x3A
    else ord("p") if c in b"[,-" else ord(" ") for c in range(256)
)
_DIGITS: Final = b"d" * 16  # an integer of 16 digits or more (2^53 has 16)
_DIGIT_KEY_END: Final = b"dqk"  # a key ending in a digit: `...9":`
_INDEX_KEY: Final = re.compile(rb'"(?:0|[1-9][0-9]*)":')


def canonical_text(text: bytes | memoryview | msgspec.Raw) -> tuple[Any, bytes] | None:
    """``(value, bytes)`` when ``js_stringify(js_parse(text))`` is provably ``text`` (``value``
    equals what ``js_parse`` gives), else None."""
    try:
        value = _DECODER.decode(text)
    except (msgspec.DecodeError, RecursionError, ValueError):
        return None
    data = _ENCODER.encode(value)
    if (text != data) if text.__class__ is bytes else (memoryview(text) != data):
        return None
    shapes = data.translate(_SHAPES)
    if ((_DIGITS in shapes and (b"k" + _DIGITS in shapes or b"p" + _DIGITS in shapes or shapes.startswith(_DIGITS)))
            or (_DIGIT_KEY_END in shapes and _INDEX_KEY.search(data))):
        return None
    if _may_hold_odd_floats(data) and not _floats_in_javascripts_form(data):
        return None
    return value, data


def _may_hold_odd_floats(data: bytes) -> bool:
    """Whether ``data`` (``msgspec``'s own text) may hold a float ending in ``.0`` or with an exponent."""
    return (_INTEGRAL_FLOAT.search(data) is not None or data[:1] in b"0123456789-"
            or _EXPONENT.search(data.translate(_EXPONENTS, _NUMBER_BYTES)) is not None)


def _floats_in_javascripts_form(data: bytes) -> bool:
    """Whether every float in ``data`` is written as JavaScript writes its value."""
    try:
        _CHECKED.decode(data)
    except (msgspec.DecodeError, RecursionError, ValueError):
        _odd_numbers.clear()
        return False
    odd = bool(_odd_numbers)
    _odd_numbers.clear()
    return not odd
