"""Secret redaction: the one owner of the secret patterns (contract §2.11, decisions D6).

Every privacy check redacts with these four families, in this order, with these exact labels,
so the same text is raised to ``sensitive`` (and omitted for a default remote provider) whichever
check sees it first.  The patterns reproduce the JavaScript regular expressions of the TypeScript
implementation, not Python's reading of the same source text:

- ``\\b`` and ``\\w`` are ASCII-only in JavaScript; Python's are Unicode-aware.  Under the ``iu``
  flags JavaScript also counts U+017F (long s) and U+212A (Kelvin sign) as word characters,
  because they case-fold to ``s`` and ``k``.
- ``i`` with ``u`` folds case by Unicode simple case folding: ``s`` also matches U+017F and ``k``
  U+212A, but ``i`` does not match the Turkish dotted and dotless i (Python's ``re.I`` does).
- ``\\s`` is JavaScript's whitespace set (it has U+FEFF; it lacks U+001C..U+001F and U+0085).

So the patterns are written with explicit character classes and never with ``re.I``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from reference.privacy.harmless import is_example_or_masked

PRIVATE_KEY_LABEL: Final = "[DS4 REDACTED PRIVATE KEY]"
CREDENTIAL_LABEL: Final = "[DS4 REDACTED CREDENTIAL]"
TOKEN_LABEL: Final = "[DS4 REDACTED TOKEN]"
SECRET_LABEL: Final = "[DS4 REDACTED SECRET]"

#: JavaScript ``\s`` (WhiteSpace and LineTerminator), as the body of a character class.
JS_SPACE_CHARS: Final = r"\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
JS_SPACE: Final = f"[{JS_SPACE_CHARS}]"
_ASCII_WORD: Final = "A-Za-z0-9_"
#: ``\w`` under JavaScript's ``iu`` flags: ASCII word characters plus long s and the Kelvin sign.
_IU_WORD: Final = "A-Za-z0-9_\u017f\u212a"
#: Non-ASCII characters that JavaScript's ``iu`` case folding maps onto an ASCII letter.
_FOLDED_INTO: Final = {"s": "\u017f", "k": "\u212a"}


def js_boundary(word_chars: str) -> str:
    """JavaScript ``\\b`` for the given word-character class body (ASCII, or ASCII plus folds)."""
    word = f"[{word_chars}]"
    return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"


def js_ci(literal: str) -> str:
    """``literal`` matched the way JavaScript's ``iu`` flags match it: ASCII case plus folds."""
    parts: list[str] = []
    for char in literal:
        if char.isascii() and char.isalpha():
            lower = char.lower()
            parts.append(f"[{lower.upper()}{lower}{_FOLDED_INTO.get(lower, '')}]")
        else:
            parts.append(re.escape(char))
    return "".join(parts)


_B_ASCII: Final = js_boundary(_ASCII_WORD)
_B_IU: Final = js_boundary(_IU_WORD)
_PEM_INFIX: Final = "(?:RSA |EC |OPENSSH |DSA )?"

# Family 1 (flags gu): shortest span; the BEGIN and END infixes need not agree.
_PRIVATE_KEY: Final = re.compile(
    rf"-----BEGIN {_PEM_INFIX}PRIVATE KEY-----[\s\S]*?-----END {_PEM_INFIX}PRIVATE KEY-----"
)
# Family 2 (flags gu, case-sensitive): whole words only, ASCII word boundaries.
_CREDENTIAL: Final = re.compile(
    rf"{_B_ASCII}(?:sk-(?:ant-)?[A-Za-z0-9_-]{{8,}}|gh[pousr]_[A-Za-z0-9]{{12,}}|AKIA[0-9A-Z]{{16}}){_B_ASCII}"
)
# Family 3 (flags giu): the matched prefix (word and whitespace) is kept.
_TOKEN_CHARS: Final = r"A-Za-z0-9._~+/=\-" + "".join(_FOLDED_INTO.values())  # the ASCII letters under ``iu``
_BEARER: Final = re.compile(rf"{_B_IU}({js_ci('Bearer')}{JS_SPACE}+)[{_TOKEN_CHARS}]{{8,}}")
_KEY_NAMES: Final = "|".join(
    f"{js_ci(head)}[_-]?{js_ci(tail)}"
    for head, tail in (("api", "key"), ("access", "token"), ("auth", "token"), ("client", "secret"))
) + "|" + js_ci("password")
# Family 4 (flags giu): key, separator and quotes are kept; the value needs 4+ characters.
_ASSIGNMENT: Final = re.compile(
    rf"{_B_IU}({_KEY_NAMES}){_B_IU}({JS_SPACE}*[:=]{JS_SPACE}*)([\"']?)[^{JS_SPACE_CHARS},\"';}}\]]{{4,}}\3"
)

_Replacement = Callable[[re.Match[str]], str]


# D14 (docs/decisions.md): two shapes the floor matches are not secrets, and stay whole.
#: A ``Bearer`` "token" that is one plain word with another word after it: prose about the scheme
#: ("the Bearer authentication scheme"), never a machine-made token.
_PROSE_WORD: Final = re.compile(r"[A-Z]?[a-z]+")
_NEXT_WORD: Final = re.compile(r"[ \t]+[a-z]")
#: An assignment value that is a placeholder in angle brackets, ``<your-password-here>``.
_PLACEHOLDER: Final = re.compile(r"<[A-Za-z][A-Za-z0-9_.-]*>")
#: What every label starts with; an assignment whose value starts so is one of them.
LABEL_HEAD: Final = "[DS4 REDACTED "


#: What may follow a ``Bearer`` match's token characters and still belong to the value: a mask
#: (``Bearer sk_live_****`` is a masked token, not the token ``sk_live_``).
_MASK_TAIL: Final = re.compile(r"[*•#…]*[0-9]{0,4}")


def is_bearer_prose(match: re.Match[str]) -> bool:
    """Whether a ``Bearer`` match is a word of a sentence rather than a token (D14), or a masked
    or documented example token (``Bearer xxxxxxxxxxxxxxxx``; issue 29)."""
    token = match.group(0)[len(match.group(1)):]
    tail = _MASK_TAIL.match(match.string, match.end())  # always matches (it may be empty)
    if is_example_or_masked(token + (tail.group(0) if tail else "")):
        return True
    return _PROSE_WORD.fullmatch(token) is not None and _NEXT_WORD.match(match.string, match.end()) is not None


def _credential(match: re.Match[str]) -> str:
    """A documented example (``AKIAIOSFODNN7EXAMPLE``) or a masked credential (``sk-xxxx…``,
    ``AKIAXXXX…``) stays whole (D14, issue 29); any other match is the credential label."""
    return match.group(0) if is_example_or_masked(match.group(0)) else CREDENTIAL_LABEL


def is_placeholder_value(match: re.Match[str]) -> bool:
    """Whether an assignment's value is a placeholder, not a value (D14): ``<your-password>``, or
    one of these labels, which is a redaction already (upstream matches its ``[DS4`` again, so a
    second pass, or the assignment family after the credential one, grew the text)."""
    key, separator, quote = match.group(1, 2, 3)
    start = match.start() + len(key) + len(separator) + len(quote)
    if match.string.startswith(LABEL_HEAD, start):
        return True
    value = match.group(0)[len(key) + len(separator) + len(quote): len(match.group(0)) - len(quote)]
    return _PLACEHOLDER.fullmatch(value) is not None or is_example_or_masked(value)


def _keep_prefix(match: re.Match[str]) -> str:
    return match.group(0) if is_bearer_prose(match) else match.group(1) + TOKEN_LABEL


def _keep_key(match: re.Match[str]) -> str:
    if is_placeholder_value(match):
        return match.group(0)
    key, separator, quote = match.group(1, 2, 3)
    return f"{key}{separator}{quote}{SECRET_LABEL}{quote}"


#: The four families in the order they are applied: (name, pattern, replacement).
FAMILIES: Final[tuple[tuple[str, re.Pattern[str], str | _Replacement], ...]] = (
    ("private-key", _PRIVATE_KEY, PRIVATE_KEY_LABEL),
    ("credential", _CREDENTIAL, _credential),
    ("bearer-token", _BEARER, _keep_prefix),
    ("assignment", _ASSIGNMENT, _keep_key),
)


_GITHUB_PREFIX: Final = re.compile("gh[pousr]_")


def _may_hold(name: str, text: str, folded: str) -> bool:
    """A cheap necessary condition for a family to match, so a 4 MiB record that holds none of
    their literal parts is not scanned by the word-boundary look-arounds at every position."""
    if name == "private-key":
        return "PRIVATE KEY-----" in text
    if name == "credential":
        return "sk-" in text or "AKIA" in text or _GITHUB_PREFIX.search(text) is not None
    if name == "bearer-token":
        return "bearer" in folded
    # Key names (case-insensitive, ſ and the Kelvin sign included: casefold() folds both).
    return any(word in folded for word in ("key", "token", "secret", "password"))


#: Literals of which every match holds one, in a value's strings *or in their JSON
#: serialization*: an escape writes a letter only after a backslash or within hex digits, so only
#: the first letter of a matched word can come from one (``\\b`` + ``earer`` is ``bearer``):
#: the case-insensitive words are checked without it.
_JSON_EXACT: Final = ("PRIVATE KEY-----", "sk-", "AKIA")
_JSON_FOLDED: Final = ("earer", "key", "oken", "ecret", "assword")


def may_match_json(strings: str) -> bool:
    """Whether any family could match ``JSON.stringify`` of a value, given its strings (keys and
    values) joined by NUL; False is certain.  Lets a caller skip serializing a 4 MiB entry."""
    if any(word in strings for word in _JSON_EXACT) or _GITHUB_PREFIX.search(strings) is not None:
        return True
    folded = strings.casefold()
    return any(word in folded for word in _JSON_FOLDED)


def _redact_family(pattern: re.Pattern[str], replacement: str | _Replacement, text: str) -> tuple[str, int]:
    """One family over the text: the result and how many matches were redacted (not kept whole)."""
    if isinstance(replacement, str):
        return pattern.subn(replacement, text)  # the labels hold no backslash or group
    redacted = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal redacted
        label = replacement(match)
        redacted += label != match.group(0)
        return label

    return pattern.sub(replace, text), redacted


def redact_secrets(text: str) -> tuple[str, int]:
    """The text with every secret-like match replaced by its label, and the number of matches.

    Each family runs over the output of the previous one, as upstream does; a match that D14
    keeps whole is not counted.  Unlike upstream, a second pass is a no-op: an assignment whose
    value is already a label (``password=[DS4 REDACTED SECRET]``) is not matched again (D14).
    """
    count = 0
    folded = text.casefold()
    for name, pattern, replacement in FAMILIES:
        if not _may_hold(name, text, folded):
            continue
        text, found = _redact_family(pattern, replacement, text)
        if found:
            count += found
            folded = text.casefold()
    return text, count
