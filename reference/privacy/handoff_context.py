"""The context a rebase handoff quotes, checked for secrets as the text it is (issue 11).

A handoff quotes its canonical context as one JSON string literal of ``JSON.stringify``'d entries
(contract §6.6 step 5), so a secret inside an entry is escaped twice there: a newline before a
token is written ``\\\\n``, and a detector reading the handoff as it stands sees ``nAKIA…`` and
no word boundary.  Egress therefore decodes the quoted line, runs the strong detector over every
string of every entry, and writes back the line with what it found redacted.  Any finding raises
the handoff to at least ``sensitive`` (D6), so a default remote provider gets none of it.
"""

from __future__ import annotations

from typing import Any

from reference.primitives.jsonbytes import JsonParseError, js_parse, js_stringify
from reference.privacy.detection import redact


def _redact_strings(value: Any) -> tuple[Any, int]:
    """``value`` with every string (keys too) redacted; the number of findings."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        items = [_redact_strings(item) for item in value]
        return [clean for clean, _count in items], sum(count for _clean, count in items)
    if isinstance(value, dict):
        pairs = [(redact(key), _redact_strings(item)) for key, item in value.items()]
        return ({key: clean for (key, _k), (clean, _c) in pairs},
                sum(key_count + count for (_key, key_count), (_clean, count) in pairs))
    return value, 0


def _redact_entry_line(line: str) -> tuple[str, int]:
    try:
        entry = js_parse(line)
    except (JsonParseError, RecursionError):
        return redact(line)
    clean, found = _redact_strings(entry)
    return (js_stringify(clean), found) if found else (line, 0)


def redact_quoted_context(handoff: str) -> tuple[str, int]:
    """The handoff with the secrets of its quoted context redacted, and how many were found.

    Only a line that is a whole JSON string literal is decoded (the handoff's line 7); every other
    line is left to the sanitizer, which checks the handoff as a whole anyway."""
    lines = handoff.split("\n")
    total = 0
    for number, line in enumerate(lines):
        if not line.startswith('"'):
            continue
        try:
            context = js_parse(line)
        except (JsonParseError, RecursionError):
            continue
        if not isinstance(context, str):
            continue
        found = 0
        entries = []
        for entry in context.split("\n"):  # a stringified entry holds no raw newline
            clean, count = _redact_entry_line(entry)
            entries.append(clean)
            found += count
        if found:
            lines[number] = js_stringify("\n".join(entries))
            total += found
    return "\n".join(lines), total
