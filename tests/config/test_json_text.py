"""The loader's JSON refusals, byte for byte (``reference.config.layering.parse_json``).

The messages were those of ``json.loads`` before parsing moved to ``jsonbytes.js_parse``; they
reach users inside "configuration ignored" warnings, so they are pinned here.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from reference.config.errors import ConfigError
from reference.config.layering import load_config, parse_json

REFUSALS = [
    ("", "invalid JSON at line 1 column 1: Expecting value"),
    (" ", "invalid JSON at line 1 column 2: Expecting value"),
    ("{", "invalid JSON at line 1 column 2: Expecting property name enclosed in double quotes"),
    ('{"a":1,}', "invalid JSON at line 1 column 8: Expecting property name enclosed in double quotes"),
    ("[1,2", "invalid JSON at line 1 column 5: Expecting ',' delimiter"),
    ('{"a" 1}', "invalid JSON at line 1 column 6: Expecting ':' delimiter"),
    ('"\x01"', "invalid JSON at line 1 column 2: Invalid control character at"),
    ('"abc', "invalid JSON at line 1 column 1: Unterminated string starting at"),
    ('\n\n  {"a":\n tru}', "invalid JSON at line 4 column 2: Expecting value"),
    ("01", "invalid JSON at line 1 column 2: Extra data"),
    ("{} x", "invalid JSON at line 1 column 4: Extra data"),
    ("{}\n  x", "invalid JSON at line 2 column 3: Extra data"),
    ('{"a":1}}', "invalid JSON at line 1 column 8: Extra data"),
    ("{} {}", "invalid JSON at line 1 column 4: Extra data"),
    ("{}\ufeff", "invalid JSON at line 1 column 3: Extra data"),
    ("\ufeff{}", "invalid JSON at line 1 column 1: Unexpected UTF-8 BOM (decode using utf-8-sig)"),
    ("\ufeff", "invalid JSON at line 1 column 1: Unexpected UTF-8 BOM (decode using utf-8-sig)"),
    (" \ufeff{}", "invalid JSON at line 1 column 2: Expecting value"),
    ("NaN", "NaN is not valid JSON"),
    ("[Infinity]", "Infinity is not valid JSON"),
    ('{"a":-Infinity}', "-Infinity is not valid JSON"),
    ("[NaN, x]", "NaN is not valid JSON"),
    ("[1, NaN", "NaN is not valid JSON"),
    ("[" * 100_000, "invalid JSON: nested too deeply"),
]


@pytest.mark.parametrize(("text", "message"), REFUSALS)
def test_refusal_messages(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_json(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(("text", "message"), [r for r in REFUSALS if len(r[0]) < 100])
def test_a_refused_file_is_ignored_with_the_same_message(tmp_path: Path, text: str, message: str) -> None:
    target = tmp_path / "ds4-context.json"
    target.write_text(text, encoding="utf-8")
    loaded = load_config(global_path=str(target), project_path=str(tmp_path / "none.json"), project_trusted=True)
    assert loaded.warnings == (f"{target}: configuration ignored: {message}",)


def test_json_whitespace_around_the_value_is_accepted() -> None:
    assert parse_json('\t{"a":1}\r\n') == {"a": 1}


def test_javascript_numbers_and_property_order() -> None:
    parsed = parse_json('{"b": 1, "10": 2, "2": 3, "n": 12345678901234567890, "f": 2.0, "b": 4}')
    assert list(parsed) == ["2", "10", "b", "n", "f"]
    assert parsed["b"] == 4 and parsed["f"] == 2 and isinstance(parsed["f"], int)
    assert parsed["n"] == 12345678901234567890.0 and isinstance(parsed["n"], float)
    assert math.isinf(parse_json("1e400"))
