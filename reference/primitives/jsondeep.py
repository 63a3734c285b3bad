"""``JSON.parse`` of a value nested deeper than Python's C decoder goes, without recursion.

V8's ``JSON.parse`` is iterative: Pi 0.84.3 reads a session line nested 100,000 levels deep as an
entry (checked by the oracle, ``tests/oracle/test_hostile_lines_on_pi.py``).  Python's C scanner
raises ``RecursionError`` near 1,000 levels, so :func:`reference.primitives.jsonbytes.js_parse`
falls back to this parser then: the same grammar and the same value hooks as the decoder it
replaces, with an explicit stack.  It is slow (pure Python) and only runs for such lines.
"""

from __future__ import annotations

import json.decoder
import re
from collections.abc import Callable
from typing import Any, Final, NamedTuple

_NUMBER: Final = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WS: Final = re.compile(r"[ \t\n\r]*")
_CONSTANTS: Final = {"null": None, "true": True, "false": False}
#: The decoder's own string scanner (C-accelerated): the same escapes, lone surrogates and errors.
_scanstring: Final[Callable[[str, int, bool], tuple[str, int]]] = getattr(json.decoder, "scanstring")  # noqa: B009


class DeepParseError(ValueError):
    """A syntax error at ``pos`` (0-based), with the decoder's wording in ``msg``."""

    def __init__(self, msg: str, pos: int) -> None:
        super().__init__(f"{msg}: char {pos}")
        self.msg = msg
        self.pos = pos


class Hooks(NamedTuple):
    """How one decoder builds numbers and objects (the hooks of a ``json.JSONDecoder``)."""

    parse_int: Callable[[str], Any]
    parse_float: Callable[[str], Any]
    parse_constant: Callable[[str], Any]
    make_object: Callable[[list[tuple[str, Any]]], Any]  # ``object_pairs_hook``, or ``dict``


def skip_ws(text: str, pos: int) -> int:
    """The index after the JSON whitespace at ``pos`` (the pattern always matches)."""
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def _scalar(text: str, pos: int, hooks: Hooks) -> tuple[Any, int]:
    """A string, number or constant at ``pos`` (not ``[`` or ``{``)."""
    char = text[pos:pos + 1]
    if char == '"':
        try:
            return _scanstring(text, pos + 1, True)
        except json.JSONDecodeError as exc:
            raise DeepParseError(exc.msg, exc.pos) from None
    for word, value in _CONSTANTS.items():
        if text.startswith(word, pos):
            return value, pos + len(word)
    for word in ("NaN", "Infinity", "-Infinity"):
        if text.startswith(word, pos):
            constant: Any = hooks.parse_constant(word)
            return constant, pos + len(word)
    match = _NUMBER.match(text, pos)
    if match is None:
        raise DeepParseError("Expecting value", pos)
    integer, fraction, exponent = match.groups()
    if fraction or exponent:
        return hooks.parse_float(integer + (fraction or "") + (exponent or "")), match.end()
    return hooks.parse_int(integer), match.end()


def parse(text: str, pos: int, hooks: Hooks) -> tuple[Any, int]:
    """The JSON value at ``pos`` (after whitespace) and the index after it; iterative."""
    # Each open container is [is_object, items, pending_key]; items are values or (key, value) pairs.
    stack: list[list[Any]] = []
    pos = skip_ws(text, pos)
    while True:
        char = text[pos:pos + 1]
        if char == "[" or char == "{":
            is_object = char == "{"
            pos = skip_ws(text, pos + 1)
            closing = "}" if is_object else "]"
            if text[pos:pos + 1] == closing:
                value: Any = hooks.make_object([]) if is_object else []
                pos += 1
            else:
                stack.append([is_object, [], None])
                if is_object:
                    pos = _key(text, pos, stack[-1])
                continue
        else:
            value, pos = _scalar(text, pos, hooks)
        # A value is complete: attach it to its container, closing containers as they end.
        while True:
            if not stack:
                return value, pos
            frame = stack[-1]
            frame[1].append((frame[2], value) if frame[0] else value)
            pos = skip_ws(text, pos)
            char = text[pos:pos + 1]
            if char == ",":
                pos = skip_ws(text, pos + 1)
                if frame[0]:
                    pos = _key(text, pos, frame)
                break
            if char == ("}" if frame[0] else "]"):
                stack.pop()
                value = hooks.make_object(frame[1]) if frame[0] else frame[1]
                pos += 1
                continue
            raise DeepParseError("Expecting ',' delimiter", pos)


def _key(text: str, pos: int, frame: list[Any]) -> int:
    """Read ``"key" :`` into the frame; the index of the value after it."""
    if text[pos:pos + 1] != '"':
        raise DeepParseError("Expecting property name enclosed in double quotes", pos)
    try:
        key, pos = _scanstring(text, pos + 1, True)
    except json.JSONDecodeError as exc:
        raise DeepParseError(exc.msg, exc.pos) from None
    pos = skip_ws(text, pos)
    if text[pos:pos + 1] != ":":
        raise DeepParseError("Expecting ':' delimiter", pos)
    frame[2] = key
    return skip_ws(text, pos + 1)
