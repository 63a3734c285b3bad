"""Search terms of a recall query, extracted as the TypeScript engine's ``describeTask`` does.

The terms decide which rows the lexical engine looks at (contract §2.6.1), so they must be the
same as upstream's for the same query. The upstream runs JavaScript ``/u`` regular expressions:
``\\w`` and ``\\b`` are ASCII there (Python's are Unicode), ``\\s`` and ``trim`` use JavaScript's
whitespace set, ``/iu`` adds U+017F and U+212A to ``[a-z]`` and to the word characters, and
``\\p{L}``/``\\p{N}`` have no Python ``re`` spelling. Each pattern below spells out the JavaScript
meaning; ``docs/retrieval.md`` lists the remaining gaps (Unicode versions).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from reference.primitives.jsvalues import JS_WHITESPACE, trim
from reference.primitives.textunits import slice_utf16

#: The query is trimmed and cut to its first 20,000 UTF-16 units before terms are extracted
#: (contract §2.6, query terms).  Not the request's limit (``request.MAX_QUERY_UNITS``, 2000,
#: §2.3), which a validated query always meets: this cut guards the analysis on its own.
TERM_SCAN_UNITS: Final = 20_000
MAX_PHRASES: Final = 8
MAX_FILES: Final = 16
MAX_SYMBOLS: Final = 20
MAX_ERRORS: Final = 12
MAX_KEYWORDS: Final = 20
MAX_EXACT_IDENTIFIERS: Final = 24
MAX_TERMS: Final = 24

#: The upstream stopword list (task-descriptor.ts as of the feature snapshot: 81 English and Italian words).
STOPWORDS: Final = frozenset(
    (
        "about", "after", "again", "aggiungi", "allora", "anche", "ancora", "avere", "before", "come",
        "considerare", "continua", "continue", "could", "della", "delle", "degli", "detto", "devi",
        "dobbiamo", "does", "doing", "done", "dove", "essere", "fare", "fix", "from", "grazie", "have",
        "into", "just", "make", "molto", "nella", "nello", "okay", "ovvero", "perche", "pero", "please",
        "poco", "procedi", "procediamo", "proceed", "prosegui", "quale", "quella", "quelle", "quelli",
        "quello", "questo", "questa", "quindi", "should", "stato", "stata", "stati", "state", "than",
        "that", "thanks", "their", "them", "then", "there", "these", "this", "those", "tutta", "tutto",
        "voglio", "want", "were", "what", "when", "where", "which", "with", "would", "your",
    )
)  # fmt: skip

_JS_SPACE: Final = "".join(f"\\u{ord(char):04x}" for char in JS_WHITESPACE)
# Under /iu, [a-z] also matches the two characters whose simple case folding is ASCII.
_IU_ALNUM: Final = "A-Za-z0-9\u017f\u212a"
_IU_WORD: Final = _IU_ALNUM + "_"
_IU_BOUNDARY: Final = rf"(?:(?<=[{_IU_WORD}])(?![{_IU_WORD}])|(?<![{_IU_WORD}])(?=[{_IU_WORD}]))"

_BACKTICKED: Final = re.compile(r"`([^`\n]{2,160})`")
_DOUBLE_QUOTED: Final = re.compile(r'"([^"\n]{4,200})"')
_SINGLE_QUOTED: Final = re.compile(r"'([^'\n]{4,200})'")
_FILE_LIKE: Final = re.compile(
    r"((?:[A-Za-z]:)?(?:\.{0,2}[\\/])?(?:[\w.@+-]+[\\/])*[\w.@+-]+\.[A-Za-z0-9]{1,12})", re.ASCII
)
_QUALIFIED: Final = re.compile(r"\b([A-Za-z_$][\w$]*(?:(?:::|\.)[A-Za-z_$][\w$]*)+)\b", re.ASCII)
_FLAG: Final = re.compile(rf"(?:^|[{_JS_SPACE}])(--[{_IU_ALNUM}][{_IU_ALNUM}-]*){_IU_BOUNDARY}")
_WORD: Final = re.compile(r"\b([A-Za-z_$][A-Za-z0-9_$-]{2,})\b", re.ASCII)
_HAS_JS_SPACE: Final = re.compile(f"[{_JS_SPACE}]")
_SYMBOL_PUNCT: Final = re.compile(r"[_$-]")
_CAMEL: Final = re.compile(r"[a-z][A-Z]")
_CAPITALISED: Final = re.compile(r"[A-Z][A-Za-z0-9]+")
_FLAG_WORD: Final = re.compile(rf"--[{_IU_ALNUM}-]+")
_ERROR_CODE: Final = re.compile(r"(?:ERR(?:OR)?|SQLITE|HTTP|CS|TS|E)[-_]?[A-Z0-9_]{2,}")
_ERRNO: Final = re.compile(r"ENOENT|EACCES|ECONNRESET|ETIMEDOUT|SIG[A-Z]+")
_ASCII_DIGITS: Final = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class QueryTerms:
    """What the engine searches for: literal identifiers, phrases, keywords and their union."""

    exact_identifiers: tuple[str, ...]
    phrases: tuple[str, ...]
    keywords: tuple[str, ...]
    files: tuple[str, ...]
    symbols: tuple[str, ...]
    errors: tuple[str, ...]
    terms: tuple[str, ...]


def js_lower(text: str) -> str:
    """``toLocaleLowerCase("en-US")``: full Unicode lower-casing with no locale tailoring.

    Python's ``str.lower`` applies the same SpecialCasing rules (final sigma, U+0130); only
    characters newer than Python's Unicode tables differ (docs/retrieval.md).
    """
    return text.lower()


def unique_terms(values: Iterable[str], limit: int) -> tuple[str, ...]:
    """Trimmed, non-empty values, first occurrence per lower-cased key, at most ``limit``."""
    seen: set[str] = set()
    result: list[str] = []
    for raw in values:
        value = trim(raw)
        key = js_lower(value)
        if not value or key in seen:
            continue
        seen.add(key)
        result.append(value)
        if len(result) >= limit:
            break
    return tuple(result)


def describe_query(query: str) -> QueryTerms:
    """Extract the search terms of ``query`` (contract §2.6.1)."""
    bounded = slice_utf16(trim(query), TERM_SCAN_UNITS)
    backticked = _captures(_BACKTICKED, bounded)
    phrases = unique_terms(
        _captures(_DOUBLE_QUOTED, bounded) + _captures(_SINGLE_QUOTED, bounded), MAX_PHRASES
    )
    files = unique_terms(_captures(_FILE_LIKE, bounded), MAX_FILES)
    qualified = _captures(_QUALIFIED, bounded)
    flags = [trim(flag) for flag in _captures(_FLAG, bounded)]
    words = _captures(_WORD, bounded)
    symbols = unique_terms(
        [span for span in backticked if not _HAS_JS_SPACE.search(span)]
        + qualified
        + [flag for flag in flags if flag.startswith("--")]
        + [word for word in words if _is_symbol_word(word)],
        MAX_SYMBOLS,
    )
    errors = unique_terms(
        [word for word in words if _ERROR_CODE.fullmatch(word) or _ERRNO.fullmatch(word)], MAX_ERRORS
    )
    keywords = unique_terms(
        [
            word
            for word in _letter_number_runs(js_lower(bounded), 4)
            if word not in STOPWORDS and not _ASCII_DIGITS.fullmatch(word)
        ],
        MAX_KEYWORDS,
    )
    exact = unique_terms([*backticked, *files, *symbols, *errors], MAX_EXACT_IDENTIFIERS)
    terms = unique_terms([*exact, *phrases, *keywords], MAX_TERMS)
    return QueryTerms(
        exact_identifiers=exact,
        phrases=phrases,
        keywords=keywords,
        files=files,
        symbols=symbols,
        errors=errors,
        terms=terms,
    )


def _captures(pattern: re.Pattern[str], text: str) -> list[str]:
    """Group 1 of every match, skipping empty captures (the upstream ``matches`` helper)."""
    return [match.group(1) for match in pattern.finditer(text) if match.group(1)]


def _is_symbol_word(word: str) -> bool:
    """A word that looks like code: not a stopword, and with ``_$-``, camelCase or a capital."""
    if js_lower(word) in STOPWORDS:
        return False
    return bool(
        _SYMBOL_PUNCT.search(word)
        or _CAMEL.search(word)
        or _CAPITALISED.fullmatch(word)
        or _FLAG_WORD.fullmatch(word)
    )


def _is_keyword_char(char: str) -> bool:
    """``[\\p{L}\\p{N}_-]``."""
    return char in "_-" or unicodedata.category(char)[0] in "LN"


def _letter_number_runs(text: str, minimum: int) -> list[str]:
    """The global matches of ``/([\\p{L}\\p{N}_-]{minimum,})/gu``: maximal runs, in code points."""
    runs: list[str] = []
    start = -1
    for index, char in enumerate(text):
        if _is_keyword_char(char):
            if start < 0:
                start = index
        elif start >= 0:
            if index - start >= minimum:
                runs.append(text[start:index])
            start = -1
    if start >= 0 and len(text) - start >= minimum:
        runs.append(text[start:])
    return runs
