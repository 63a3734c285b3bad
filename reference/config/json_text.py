"""``JSON.parse`` of a configuration text, refused with the loader's messages.

Parsing itself is ``reference.primitives.jsonbytes.js_parse`` with JavaScript numbers and
property order; this module only words its refusals as the loader always has (they end up in
"configuration ignored" warnings), including a leading byte-order mark, which is refused.
"""

from __future__ import annotations

from typing import Any, Final

from reference.config.errors import ConfigError
from reference.primitives.jsonbytes import JsonParseError, js_parse

_BOM: Final = "\ufeff"
_BOM_REFUSAL: Final = "invalid JSON at line 1 column 1: Unexpected UTF-8 BOM (decode using utf-8-sig)"
_CONSTANT_SUFFIX: Final = " is not JSON"  # js_parse's reason for NaN, Infinity and -Infinity


def parse_json(text: str) -> Any:
    """``JSON.parse`` with JavaScript numbers and property order; raises :class:`ConfigError`."""
    if text.startswith(_BOM):
        raise ConfigError(_BOM_REFUSAL)
    try:
        return js_parse(text, js_numbers=True, deep=False)
    except JsonParseError as exc:
        if exc.line == 0:  # JSON in shape, not to JavaScript: the reason names the constant
            raise ConfigError(f"{exc.reason.removesuffix(_CONSTANT_SUFFIX)} is not valid JSON") from None
        raise ConfigError(f"invalid JSON at line {exc.line} column {exc.column}: {exc.reason}") from None
    except RecursionError:
        raise ConfigError("invalid JSON: nested too deeply") from None
