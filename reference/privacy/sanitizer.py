"""The runtime history sanitizer (contract §2.10, §2.7 steps 3 and 6, §3.3 step 7; decisions D6).

D6 makes the TypeScript runtime normative, not its unit tests' simplified sanitizer: it runs
whether or not ``privacy.enabled`` is set, always redacts secrets (the ``privacy.redactSecrets``
switch governs only the automatic-context engine), raises any text with a secret to at least
``sensitive``, and replaces or omits what the provider may not receive.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference.privacy.detection import redact
from reference.privacy.policy import (
    DS4,
    LEVEL_WORDS,
    LEVELS,
    MARKER_LITERAL,
    ProviderPolicy,
    classify_markers,
    is_level,
    marker_level,
    max_level,
)
from reference.privacy.redaction import JS_SPACE, js_ci

#: An opening marker at the start (after whitespace) classifies the rest when nothing closes.
_PREFIX_MARKER: Final = re.compile(rf"\A{JS_SPACE}*(?<!\\)\[{DS4}:({LEVEL_WORDS})\]{JS_SPACE}*")
#: A marked span: the shortest text up to a closing marker of the same level (any case).
_CLOSED_MARKER: Final = re.compile(
    rf"(?<!\\)\[{DS4}:(?:"
    + "|".join(
        rf"(?P<level{rank}>{js_ci(level)})\](?P<body{rank}>[\s\S]*?)(?<!\\)\[/{DS4}:{js_ci(level)}\]"
        for rank, level in enumerate(LEVELS)
    )
    + ")"
)


def default_classification(privacy_config: Mapping[str, Any]) -> str:
    value = privacy_config.get("defaultClassification", "normal")
    if not is_level(value):
        raise ValueError(f"invalid privacy.defaultClassification: {value!r}")
    return str(value)


def placeholder(level: str) -> str:
    """What replaces a marked span the provider may not receive."""
    return f"[DS4 {level} content excluded by privacy policy]"


def strip_markers(text: str, classification: str, policy: ProviderPolicy) -> tuple[str, int]:
    """The text with marked spans unwrapped (or replaced by a placeholder), and the count of
    replaced spans.

    Text outside a span has ``classification``; a span has the higher of that and its marker.
    Without any closed span, an opening marker at the start classifies the rest.  Markers that
    form no span (escaped, unbalanced, a nested opening inside a span) stay as text.
    """
    if not text:
        return text, 0
    if MARKER_LITERAL not in text:  # no marker: the whole text has the classification
        return (text, 0) if policy.allows(classification) else (placeholder(classification), 1)
    out: list[str] = []
    blocked = 0

    def emit(piece: str, level: str) -> None:
        nonlocal blocked
        if policy.allows(level):
            out.append(piece)
        else:
            out.append(placeholder(level))
            blocked += 1

    cursor, spans = 0, 0
    for match in _CLOSED_MARKER.finditer(text):
        if match.start() > cursor:
            emit(text[cursor:match.start()], classification)
        rank = next(index for index in range(len(LEVELS)) if match.group(f"level{index}") is not None)
        emit(match.group(f"body{rank}"), max_level(classification, LEVELS[rank]))
        cursor, spans = match.end(), spans + 1
    if spans:
        if cursor < len(text):
            emit(text[cursor:], classification)
        return "".join(out), blocked
    prefix = _PREFIX_MARKER.match(text)
    if prefix:
        emit(text[prefix.end():], max_level(classification, marker_level(prefix.group(1))))
    else:
        emit(text, classification)
    return "".join(out), blocked


@dataclass(frozen=True)
class Sanitized:
    """The sanitizer's answer: text to show (empty when omitted), its classification, omitted."""

    text: str
    classification: str
    omitted: bool


@dataclass(frozen=True)
class Found:
    """What the sanitizer finds in one text whatever the level and provider: the markers' level,
    the secret count and the redacted text."""

    markers: str | None
    redactions: int
    redacted: str
    marked: bool  # the redacted text may hold a marker (else stripping keeps it whole)


def find(text: str) -> Found:
    redacted, redactions = redact(text)
    return Found(classify_markers(text), redactions, redacted, MARKER_LITERAL in redacted)


def decide(found: Found, stored: str | None, policy: ProviderPolicy, privacy_config: Mapping[str, Any]) -> Sanitized:
    if stored is not None and not is_level(stored):
        raise ValueError(f"invalid stored classification: {stored!r}")
    level = stored if stored is not None else default_classification(privacy_config)
    if found.markers is not None:
        level = max_level(level, found.markers)
    if found.redactions:
        level = max_level(level, "sensitive")
    if not policy.allows(level):
        return Sanitized("", level, True)
    if not found.marked:
        return Sanitized(found.redacted, level, False)
    body, blocked = strip_markers(found.redacted, level, policy)
    return Sanitized(body, level, blocked > 0)


def history_sanitize(
    text: str, *, stored: str | None, policy: ProviderPolicy, privacy_config: Mapping[str, Any]
) -> Sanitized:
    """The runtime history sanitizer (contract §2.10, seven steps); ``privacy.enabled`` and
    ``privacy.redactSecrets`` do not change it.
    """
    return decide(find(text), stored, policy, privacy_config)
