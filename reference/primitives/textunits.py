"""Lengths as JavaScript counts them, the ``chars-v1`` token estimate (decisions D3), and the
bytes Node hashes for a string.

Every character limit of the contract counts UTF-16 code units; byte limits count UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Final

_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def utf16_length(text: str) -> int:
    """``text.length`` in JavaScript: astral characters count twice."""
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def utf8_length(text: str) -> int:
    """UTF-8 byte length; a lone surrogate counts as the 3 bytes of its escape-free encoding."""
    return len(text.encode("utf-8", "surrogatepass"))


def chars_v1_tokens(text: str) -> int:
    """``chars-v1``: 0 for the empty string, otherwise ceil(UTF-16 units / 4)."""
    units = utf16_length(text)
    return 0 if units == 0 else math.ceil(units / 4)


def slice_utf16(text: str, max_units: int) -> str:
    """The longest prefix of at most ``max_units`` UTF-16 units that never splits a surrogate pair.

    This improves on the TypeScript implementation, which can cut a pair in half (D3).
    """
    if max_units <= 0:
        return ""
    if utf16_length(text) <= max_units:
        return text
    units = 0
    for index, char in enumerate(text):
        width = 2 if ord(char) > 0xFFFF else 1
        if units + width > max_units:
            return text[:index]
        units += width
    return text


def encodes_as_utf8(text: str) -> bool:
    """Whether the string has a UTF-8 form: a lone surrogate (from a JSON escape, or a file
    name's undecodable bytes) has none, so SQLite cannot take it and a path with one cannot be
    opened by Pi."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(path: str) -> str:
    """A path as it can be printed: bytes that are not UTF-8 shown as ``\\xNN``."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def node_utf8(text: str) -> bytes:
    """The bytes Node hashes for a JavaScript string: paired surrogates joined, lone ones U+FFFD."""
    if _LONE_SURROGATE.search(text):
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.encode("utf-8")


def sha256_text(text: str) -> str:
    """Lower-case hex SHA-256 of a JavaScript string (the upstream ``sha256`` helper)."""
    return hashlib.sha256(node_utf8(text)).hexdigest()
