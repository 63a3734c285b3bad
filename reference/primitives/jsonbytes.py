"""JSON bytes exactly as JavaScript's ``JSON.stringify`` writes them (decisions D2).

Every hash, fingerprint and output budget of the contract is measured on this serialization, so
one module owns it.  Python values map to JavaScript ones as ``json.loads`` produces them; the
``UNDEFINED`` sentinel stands for JavaScript ``undefined`` (dropped from objects, ``null`` in
arrays), which Pi's message builders produce for absent optional fields.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any, Final, TypeAlias

from reference.primitives.jsondeep import DeepParseError, Hooks, skip_ws
from reference.primitives.jsondeep import parse as parse_iteratively

#: A JSON object whose bytes are the contract: a Pi entry, a journal record, a checkpoint, a link,
#: a configuration file.  It stays a ``dict`` rather than a typed value because its key order is
#: the order ``JSON.stringify`` writes (D2): a key set later goes last, a key read from a file keeps
#: its place, so the same object must reach the serializer, not a record converted back in order.
JsonObject: TypeAlias = dict[str, Any]


class _Undefined(Enum):
    """JavaScript ``undefined``: a key holding it is omitted from objects (one value, kept by a copy)."""

    UNDEFINED = "undefined"

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = _Undefined.UNDEFINED

_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
_NEEDS_ESCAPE: Final = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_ARRAY_INDEX: Final = re.compile(r"^(?:0|[1-9][0-9]*)$")
_MAX_ARRAY_INDEX: Final = 2**32 - 2


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    return _ESCAPES.get(ch) or f"\\u{ord(ch):04x}"


def quote_string(value: str) -> str:
    """A JSON string literal as JavaScript writes it: raw non-ASCII, escaped lone surrogates."""
    if _SURROGATE.search(value):
        # Pair up surrogate code points the way a UTF-16 string would; what stays alone is lone.
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    if not _NEEDS_ESCAPE.search(value):
        return f'"{value}"'
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, value) + '"'


def format_number(value: float | int) -> str:
    """ECMAScript ``Number::toString`` for a finite double; ``null`` for NaN and infinities."""
    if isinstance(value, int) and abs(value) < 2**53:
        return str(value)
    try:
        number = float(value)
    except OverflowError:
        return "null"
    if not math.isfinite(number):
        return "null"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    # repr() gives the shortest round-trip digits, the same digits ECMAScript chooses.
    mantissa, _, exp_text = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    all_digits = whole + fraction
    point = len(whole) + (int(exp_text) if exp_text else 0)
    significant = all_digits.lstrip("0")
    point -= len(all_digits) - len(significant)
    digits = significant.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        sign_e = "+" if e >= 0 else "-"
        head = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = f"{head}e{sign_e}{abs(e)}"
    return sign + text


def property_order(obj: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """JavaScript property order: array-index keys ascending first, then insertion order."""
    items = list(obj.items())
    index_keys = [
        (int(k), k, v) for k, v in items if _ARRAY_INDEX.match(k) and int(k) <= _MAX_ARRAY_INDEX
    ]
    if not index_keys:
        return items
    rest = [(k, v) for k, v in items if not (_ARRAY_INDEX.match(k) and int(k) <= _MAX_ARRAY_INDEX)]
    return [(k, v) for _, k, v in sorted(index_keys)] + rest


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(quote_string(value))
    elif isinstance(value, (int, float)):
        out.append(format_number(value))
    elif isinstance(value, Mapping):
        out.append("{")
        first = True
        for key, item in property_order(value):
            if item is UNDEFINED:
                continue
            if not first:
                out.append(",")
            first = False
            out.append(quote_string(str(key)))
            out.append(":")
            _write(item, out)
        out.append("}")
    elif isinstance(value, Sequence):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            if item is UNDEFINED:
                out.append("null")
            else:
                _write(item, out)
        out.append("]")
    elif value is UNDEFINED:
        out.append("null")
    else:
        raise TypeError(f"cannot serialize {type(value).__name__} as JSON")


class _Token(str):
    """Literal JSON text queued by :func:`_write_iteratively` (never a value to quote)."""


def _write_iteratively(value: Any, out: list[str]) -> None:
    """:func:`_write` with an explicit stack, for a value nested deeper than Python recurses."""
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if type(item) is _Token:
            out.append(item)
        elif isinstance(item, Mapping):
            parts: list[Any] = []
            for key, member in property_order(item):
                if member is not UNDEFINED:
                    parts += [_Token(("," if parts else "") + quote_string(str(key)) + ":"), member]
            todo += [_Token("}"), *reversed(parts), _Token("{")]
        elif isinstance(item, Sequence) and not isinstance(item, str):
            parts = []
            for index, member in enumerate(item):
                parts += [_Token("," if index else ""), None if member is UNDEFINED else member]
            todo += [_Token("]"), *reversed(parts), _Token("[")]
        else:
            _write(item, out)


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` (compact). A top-level ``undefined`` gives ``"null"`` here."""
    out: list[str] = []
    try:
        _write(value, out)
    except RecursionError:
        out = []
        _write_iteratively(value, out)
    return "".join(out)


def js_stringify_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of :func:`js_stringify`; always encodable (lone surrogates are escaped)."""
    return js_stringify(value).encode("utf-8")


def js_stringify_pretty(value: Any, indent: str = "  ") -> str:
    """``JSON.stringify(value, null, 2)``: one member per line, ``": "`` after keys."""
    out: list[str] = []
    _write_pretty(value, "", indent, out)
    return "".join(out)


def _write_pretty(value: Any, current: str, indent: str, out: list[str]) -> None:
    inner = current + indent
    if isinstance(value, Mapping):
        items = [(k, v) for k, v in property_order(value) if v is not UNDEFINED]
        if not items:
            out.append("{}")
            return
        out.append("{\n")
        for index, (key, item) in enumerate(items):
            out.append(f"{inner}{quote_string(str(key))}: ")
            _write_pretty(item, inner, indent, out)
            out.append(",\n" if index < len(items) - 1 else "\n")
        out.append(current + "}")
    elif isinstance(value, list):
        if not value:
            out.append("[]")
            return
        out.append("[\n")
        for index, item in enumerate(value):
            out.append(inner)
            _write_pretty(None if item is UNDEFINED else item, inner, indent, out)
            out.append(",\n" if index < len(value) - 1 else "\n")
        out.append(current + "]")
    else:
        _write(value, out)


class JsonParseError(ValueError):
    """The text is not JSON that JavaScript's ``JSON.parse`` accepts.

    ``line`` and ``column`` (1-based) locate a syntax error; they are 0 when the text is JSON in
    shape but not to JavaScript (``NaN``, ``Infinity``).
    """

    def __init__(self, message: str, *, reason: str = "", line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.reason = reason or message
        self.line = line
        self.column = column


def _reject_constant(name: str) -> Any:
    raise JsonParseError(f"{name} is not JSON")


_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)
_BOM: Final = "\ufeff"


def _js_int(text: str) -> int | float:
    """A JSON integer literal as JavaScript holds it: a double once it passes 2^53."""
    if len(text.lstrip("-")) <= 15:
        return int(text)
    number = float(text)
    if abs(number) <= 2**53:
        return int(text)
    return number


def _js_float(text: str) -> int | float:
    # Integral values become ints so that 6.0 and 6 are the same number, as in JavaScript.
    number = float(text)
    if math.isfinite(number) and number.is_integer() and abs(number) <= 2**53:
        return int(number)
    return number


def _js_object(pairs: list[tuple[str, Any]]) -> JsonObject:
    # A duplicate key keeps its first position and its last value; array-index keys come first.
    return dict(property_order(dict(pairs)))


_JS_NUMBER_DECODER: Final = json.JSONDecoder(
    parse_constant=_reject_constant, object_pairs_hook=_js_object, parse_int=_js_int, parse_float=_js_float
)


def js_parse(text: str, *, strip_bom: bool = False, js_numbers: bool = False, deep: bool = True) -> Any:
    """``JSON.parse``: the JSON grammar only (no NaN/Infinity), JSON whitespace around the value.

    ``strip_bom`` drops one leading U+FEFF first, as Node's ``stripBom`` does for the files Pi
    reads with it (settings, trust store); a session line keeps it and is refused.
    ``js_numbers`` holds values as JavaScript does where Python would differ: integers past 2^53
    become doubles, integral doubles become ints, array-index keys come first. Session lines
    keep Python's exact integers because their bytes are re-hashed, never re-serialized.
    ``deep=False`` lets ``RecursionError`` out for a value nested deeper than the C scanner goes,
    for a reader that refuses such a value rather than walk it (the configuration).
    """
    if strip_bom and text.startswith(_BOM):
        text = text[1:]
    decoder = _JS_NUMBER_DECODER if js_numbers else _DECODER
    try:
        value, end = decoder.raw_decode(text, skip_ws(text, 0))
    except json.JSONDecodeError as exc:
        raise JsonParseError(str(exc), reason=exc.msg, line=exc.lineno, column=exc.colno) from None
    except JsonParseError:  # NaN or Infinity: refused as it is, the slow parser would refuse it too
        raise
    except (RecursionError, ValueError) as exc:
        if not deep and isinstance(exc, RecursionError):
            raise
        # Nested deeper than the C scanner goes, or an integer of more digits than int() takes:
        # V8 reads both (an integer that long is Infinity), so the iterative parser does too.
        value, end = _parse_deep(text, js_numbers)
    end = skip_ws(text, end)
    if end != len(text):
        raise JsonParseError("unexpected data after the JSON value", reason="Extra data", **_located(text, end))
    return value


def _int_or_double(text: str) -> int | float:
    """``int(text)``, or the double JavaScript holds for an integer past ``int()``'s digit limit."""
    try:
        return int(text)
    except ValueError:
        return float(text)


_DEEP_HOOKS: Final = Hooks(_int_or_double, float, _reject_constant, dict)
_DEEP_JS_HOOKS: Final = Hooks(_js_int, _js_float, _reject_constant, _js_object)


def _parse_deep(text: str, js_numbers: bool) -> tuple[Any, int]:
    try:
        return parse_iteratively(text, 0, _DEEP_JS_HOOKS if js_numbers else _DEEP_HOOKS)
    except DeepParseError as exc:
        raise JsonParseError(str(exc), reason=exc.msg, **_located(text, exc.pos)) from None


def _located(text: str, pos: int) -> dict[str, int]:
    """The 1-based ``line`` and ``column`` of ``pos`` in ``text``."""
    return {"line": text.count("\n", 0, pos) + 1, "column": pos - text.rfind("\n", 0, pos)}

