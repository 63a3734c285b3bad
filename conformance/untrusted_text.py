"""Port-controlled text (messages, titles, implementation names) made safe for each output.

A report's strings come from the port under test: a message may hold a terminal escape, a
bidirectional override, Markdown or HTML. Every renderer passes them through one of these
functions, never prints them raw.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from typing import Any, Final

#: A message's first line is cut here in tables and lists (the report keeps the whole message).
FIRST_LINE_CHARS: Final = 200
_HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_MARKDOWN_SPECIAL: Final = frozenset("\\`*_[]<>|~&$")  # what can open markup inside a cell
#: A surrogate code point on its own: a port's ``"\\ud800"`` decodes to one, and no UTF-8 carries it.
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def for_terminal(text: str) -> str:
    """``text`` with every control, format (bidi) and line-separator character written as an escape."""
    return "".join(_escaped(c) if unicodedata.category(c) in _HIDDEN_CATEGORIES else c for c in text)


def for_json(value: Any) -> str:
    """``value`` as one line of JSON text a UTF-8 file can hold: non-ASCII as it is, and each lone
    surrogate of the port's strings written as the visible text ``\\ud800`` (an escaped backslash
    in the JSON), so every reader decodes well-formed text; never a raw surrogate."""
    return _LONE_SURROGATE.sub(lambda found: "\\" + _escaped(found.group()), json.dumps(value, ensure_ascii=False))


def for_markdown(text: str) -> str:
    """``text`` as literal GFM inline text (a table cell too): controls escaped, markup backslashed."""
    return "".join(f"\\{c}" if c in _MARKDOWN_SPECIAL else c for c in for_terminal(text))


def for_html(text: str) -> str:
    """``text`` as HTML text or attribute value: ``& < > " '`` escaped, controls made visible."""
    return html.escape(for_terminal(text), quote=True)


def first_line(message: str) -> str:
    """The first non-blank line of a message, cut at :data:`FIRST_LINE_CHARS`."""
    line = next((part.strip() for part in message.splitlines() if part.strip()), "")
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"
