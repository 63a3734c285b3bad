"""Lexical matching as the recall engine checks it (contract §2.6): the upstream
``lexicalMatchText`` folding, whole-token containment and the dedup key.

FTS tokenization can return rows that only look like a match; every kept row must contain a
verified match by these rules (``retrieval.retrieve``).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from typing import Final

from reference.primitives.jsvalues import JS_WHITESPACE, trim
from reference.recall.query_terms import js_lower

#: ``\p{Script=Latin}`` as Node 24 (ICU, Unicode 17) reports it: inclusive code point ranges.
_LATIN_RANGES: Final = (
    (0x41, 0x5A), (0x61, 0x7A), (0xAA, 0xAA), (0xBA, 0xBA), (0xC0, 0xD6), (0xD8, 0xF6),
    (0xF8, 0x2B8), (0x2E0, 0x2E4), (0x1D00, 0x1D25), (0x1D2C, 0x1D5C), (0x1D62, 0x1D65),
    (0x1D6B, 0x1D77), (0x1D79, 0x1DBE), (0x1E00, 0x1EFF), (0x2071, 0x2071), (0x207F, 0x207F),
    (0x2090, 0x209C), (0x212A, 0x212B), (0x2132, 0x2132), (0x214E, 0x214E), (0x2160, 0x2188),
    (0x2C60, 0x2C7F), (0xA722, 0xA787), (0xA78B, 0xA7DC), (0xA7F1, 0xA7FF), (0xAB30, 0xAB5A),
    (0xAB5C, 0xAB64), (0xAB66, 0xAB69), (0xFB00, 0xFB06), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A),
    (0x10780, 0x10785), (0x10787, 0x107B0), (0x107B2, 0x107BA), (0x1DF00, 0x1DF1E),
    (0x1DF25, 0x1DF2A),
)  # fmt: skip
_LATIN_STARTS: Final = tuple(start for start, _ in _LATIN_RANGES)
_NON_ASCII_RUN: Final = re.compile(r"[^\x00-\x7f]+")
_JS_SPACE_RUN: Final = re.compile("[" + "".join(f"\\u{ord(char):04x}" for char in JS_WHITESPACE) + "]+")



def fold_for_match(text: str) -> str:
    """The upstream ``lexicalMatchText``: NFD, drop marks after a Latin letter, lower-case.

    It approximates the index's ``unicode61 remove_diacritics 2`` folding so that an FTS row
    can be checked for the term it was returned for (gaps: docs/retrieval.md).  Only the
    non-ASCII runs are walked character by character: an ASCII character is never a mark, and
    is Latin exactly when it is a letter.
    """
    if text.isascii():  # NFD leaves ASCII alone and it holds no marks
        return js_lower(text)
    decomposed = unicodedata.normalize("NFD", text)
    kept: list[str] = []
    after_latin = False
    last = 0
    for run in _NON_ASCII_RUN.finditer(decomposed):
        start, end = run.span()
        if start > last:
            kept.append(decomposed[last:start])
            after_latin = decomposed[start - 1].isalpha()
        for char in run.group():
            if after_latin and unicodedata.category(char)[0] == "M":
                continue
            kept.append(char)
            after_latin = _is_latin(char)
        last = end
    kept.append(decomposed[last:])
    return js_lower("".join(kept))


def contains_token(folded_text: str, needle: str) -> bool:
    """Whether the folded ``needle`` occurs in ``folded_text`` between non-token characters.

    Token characters are letters, numbers, marks and private-use characters, as in the upstream
    pattern ``(?:^|[^\\p{L}\\p{N}\\p{M}\\p{Co}])term(?=$|[^...])``.
    """
    start = folded_text.find(needle)
    while start >= 0:
        end = start + len(needle)
        before_ok = start == 0 or not _is_token_char(folded_text[start - 1])
        after_ok = end == len(folded_text) or not _is_token_char(folded_text[end])
        if before_ok and after_ok:
            return True
        start = folded_text.find(needle, start + 1)
    return False


def dedup_key(text: str) -> str:
    """Trimmed, whitespace runs collapsed to one space, lower-cased (JavaScript ``\\s`` set)."""
    return js_lower(_JS_SPACE_RUN.sub(" ", trim(text)))


def _is_latin(char: str) -> bool:
    code = ord(char)
    index = bisect.bisect_right(_LATIN_STARTS, code) - 1
    return index >= 0 and code <= _LATIN_RANGES[index][1]


def _is_token_char(char: str) -> bool:
    """``[\\p{L}\\p{N}\\p{M}\\p{Co}]``."""
    category = unicodedata.category(char)
    return category[0] in "LNM" or category == "Co"
