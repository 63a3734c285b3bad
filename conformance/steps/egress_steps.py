"""Steps for the EGRESS scenarios (contract §6.15): a payload goes out through the
implementation's egress sanitizer (``egress.sanitize {payload, provider}``) and the steps look at
what would leave.

A payload is given as JSON.  History results are given apart, as JSON objects the steps serialize
compactly (as ``JSON.stringify`` does), and stand in a payload as the string ``"$NAME"``; a result
may also be built to an exact UTF-16 length.  ``$INVALID`` stands for the unavailable envelope
``invalid-historical-result`` as the tools serialize it.  A path into a value is its keys and list
indices joined with dots (``1.content.0.text``).  Repeated text is written ``{piece*N}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.common import js_json
from conformance.world import Response

SCHEMA = "ds4-history-result-v1"
SENTINEL = "[DS4 history content omitted by current policy]"
INVALID = js_json({"schema": SCHEMA, "quotedData": True, "status": "unavailable", "coverage": "unknown",
                   "warnings": ["invalid-historical-result"]})
_REPEAT = re.compile(r"\{([^{}*]+)\*(\d+)\}")


@dataclass
class EgressWorld:
    """The payload a scenario sends, the history result texts it refers to, and what came back."""

    payload: Any = None
    texts: dict[str, str] = field(default_factory=dict)
    outputs: list[Any] = field(default_factory=list)

    @property
    def output(self) -> Any:
        assert self.outputs, "no payload went out"
        return self.outputs[-1]


@pytest.fixture
def egress() -> EgressWorld:
    return EgressWorld()


def _expand(text: str) -> str:
    return _REPEAT.sub(lambda m: m.group(1) * int(m.group(2)), text)


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _substitute(value: Any, texts: dict[str, str]) -> Any:
    """``"$NAME"`` strings replaced by the named result text, ``"$INVALID"`` by the envelope."""
    if isinstance(value, str) and value.startswith("$"):
        if value == "$INVALID":
            return INVALID
        assert value[1:] in texts, f"no history result named {value[1:]!r}"
        return texts[value[1:]]
    if isinstance(value, list):
        return [_substitute(item, texts) for item in value]
    if isinstance(value, dict):
        return {key: _substitute(item, texts) for key, item in value.items()}
    return value


def _at(value: Any, path: str) -> Any:
    for part in path.split(".") if path else ():
        if isinstance(value, list):
            value = value[int(part)]
        else:
            assert isinstance(value, dict) and part in value, f"nothing at {path!r} (stopped at {part!r})"
            value = value[part]
    return value


def _send(adapter: Adapter, response: Response, egress: EgressWorld, payload: Any, provider: str | None) -> None:
    response.call(adapter, "egress.sanitize", {"payload": payload, "provider": provider})
    egress.outputs.append(response.value()["payload"])


# ------------------------------------------------------------------ given


@given(parsers.parse('the history result "{name}":'))
def given_result(egress: EgressWorld, name: str, docstring: str) -> None:
    egress.texts[name] = js_json(json.loads(_expand(docstring)))


@given(parsers.parse('the history result text "{name}":'))
def given_result_text(egress: EgressWorld, name: str, docstring: str) -> None:
    """A result text exactly as written (it need not be JSON)."""
    egress.texts[name] = _expand(docstring)


@given(parsers.parse('the history result "{name}" of exactly {units:d} UTF-16 units ending in "{tail}"'))
def given_result_of_length(egress: EgressWorld, name: str, units: int, tail: str) -> None:
    """A complete recall result with one ``normal`` hit whose excerpt is padded with ``x`` (then
    ``tail``) so that the serialized result is exactly ``units`` UTF-16 units long."""
    def build(excerpt: str) -> str:
        return js_json({"schema": SCHEMA, "quotedData": True, "status": "complete", "coverage": "complete",
                        "warnings": [], "hits": [{"classification": "normal", "excerpt": excerpt}]})
    padding = units - _units(build(tail))
    assert padding >= 0, "the result cannot be that short"
    text = build("x" * padding + tail)
    assert _units(text) == units
    egress.texts[name] = text


@given(parsers.parse('the history result "{name}" of exactly {units:d} UTF-16 units, {astral:d} of its characters '
                     'astral, with a key the rebuild drops'))
def given_astral_result(egress: EgressWorld, name: str, units: int, astral: int) -> None:
    """A recall result whose hit excerpt holds ``astral`` emoji and whose ``junk`` key (dropped by
    step 5) pads the text to ``units`` UTF-16 units: fewer code points than units, and a rebuild
    shorter than the text."""
    def build(junk: str) -> str:
        return js_json({"schema": SCHEMA, "quotedData": True, "status": "complete", "coverage": "complete",
                        "warnings": [], "junk": junk,
                        "hits": [{"classification": "normal", "excerpt": "\U0001F600" * astral}]})
    padding = units - _units(build(""))
    assert padding >= 0, "the result cannot be that short"
    text = build("j" * padding)
    assert _units(text) == units
    egress.texts[name] = text


@given(parsers.parse('the history result "{name}" with {count:d} hits "h1" to "h{last:d}" and then one that is not an object'))
def given_many_hits(egress: EgressWorld, name: str, count: int, last: int) -> None:
    """A recall result whose hits are ``normal`` with excerpts ``h1`` … and a ``junk`` key, then
    the string ``not-a-hit``."""
    assert count == last
    hits: list[Any] = [{"classification": "normal", "excerpt": f"h{n}", "junk": 1} for n in range(1, count + 1)]
    egress.texts[name] = js_json({"schema": SCHEMA, "quotedData": True, "status": "complete",
                                  "hits": [*hits, "not-a-hit"]})


@given("the payload:")
def given_payload(egress: EgressWorld, docstring: str) -> None:
    egress.payload = _substitute(json.loads(_expand(docstring)), egress.texts)


# ------------------------------------------------------------------ when


@when(parsers.parse('the payload goes out to provider "{provider}"'))
def when_out(adapter: Adapter, response: Response, egress: EgressWorld, provider: str) -> None:
    _send(adapter, response, egress, egress.payload, provider)


@when(parsers.parse('that output goes out again to provider "{provider}"'))
def when_again(adapter: Adapter, response: Response, egress: EgressWorld, provider: str) -> None:
    _send(adapter, response, egress, egress.output, provider)


@when("Pi's context event carries the payload")
def when_context_event(adapter: Adapter, response: Response, egress: EgressWorld) -> None:
    """The history host's context hook (its current provider, its loaded configuration)."""
    response.call(adapter, "history.contextEvent", {"messages": egress.payload})
    egress.outputs.append(response.value()["messages"])


@when("the payload is the final provider payload")
def when_provider_request(adapter: Adapter, response: Response, egress: EgressWorld) -> None:
    """The history host's ``before_provider_request`` hook."""
    response.call(adapter, "history.providerRequest", {"payload": egress.payload})
    egress.outputs.append(response.value()["payload"])


# ------------------------------------------------------------------ then


@then("the output is the payload unchanged")
def then_unchanged(egress: EgressWorld) -> None:
    assert egress.output == egress.payload, js_json(egress.output)


@then("the output is the same as the output before")
def then_stable(egress: EgressWorld) -> None:
    assert len(egress.outputs) >= 2, "the payload went out only once"
    assert egress.outputs[-1] == egress.outputs[-2], js_json(egress.outputs[-1])


@then("the output is:")
def then_output(egress: EgressWorld, docstring: str) -> None:
    expected = _substitute(json.loads(_expand(docstring)), egress.texts)
    assert egress.output == expected, js_json(egress.output)


@then(parsers.parse('the output at "{path}" is:'))
def then_output_at(egress: EgressWorld, path: str, docstring: str) -> None:
    expected = _substitute(json.loads(_expand(docstring)), egress.texts)
    assert _at(egress.output, path) == expected, js_json(_at(egress.output, path))


@then(parsers.parse('the output at "{path}" is the payload\'s'))
def then_output_at_unchanged(egress: EgressWorld, path: str) -> None:
    assert _at(egress.output, path) == _at(egress.payload, path), js_json(_at(egress.output, path))


@then(parsers.parse('the output at "{path}" is the text "{text}"'))
def then_output_text(egress: EgressWorld, path: str, text: str) -> None:
    """``text`` is read as the inside of a JSON string, so ``\\n`` and ``\\"`` may be written."""
    assert _at(egress.output, path) == json.loads(f'"{text}"', strict=False), js_json(_at(egress.output, path))


@then(parsers.parse('the output at "{path}" is the omission sentinel'))
def then_output_sentinel(egress: EgressWorld, path: str) -> None:
    assert _at(egress.output, path) == SENTINEL, js_json(_at(egress.output, path))


@then(parsers.parse('the result text at "{path}" is:'))
def then_result_text(egress: EgressWorld, path: str, docstring: str) -> None:
    """The rebuilt result, byte for byte (key order included) as ``JSON.stringify`` writes it."""
    actual = _at(egress.output, path)
    assert isinstance(actual, str), js_json(actual)
    assert actual == js_json(json.loads(_expand(docstring))), actual


@then(parsers.parse('the result text at "{path}" is invalid-historical-result'))
def then_invalid(egress: EgressWorld, path: str) -> None:
    assert _at(egress.output, path) == INVALID, _at(egress.output, path)[:400]


@then(parsers.parse('the result text at "{path}" is not invalid'))
def then_not_invalid(egress: EgressWorld, path: str) -> None:
    text = _at(egress.output, path)
    assert isinstance(text, str) and text != INVALID and json.loads(text)["schema"] == SCHEMA, text[:400]


@then(parsers.parse('the result text at "{path}" is the result "{name}"'))
def then_result_kept(egress: EgressWorld, path: str, name: str) -> None:
    assert _at(egress.output, path) == egress.texts[name], _at(egress.output, path)[:400]


@then(parsers.parse('the result text at "{path}" has the hits "{kept}"'))
def then_hits(egress: EgressWorld, path: str, kept: str) -> None:
    """The rebuilt hits, in order: ``hN`` is ``{classification: normal, excerpt: hN}`` (its junk
    key dropped), ``{}`` an empty object."""
    hits = [{} if word == "{}" else {"classification": "normal", "excerpt": word} for word in kept.split()]
    expected = js_json({"schema": SCHEMA, "quotedData": True, "status": "complete", "hits": hits})
    assert _at(egress.output, path) == expected, _at(egress.output, path)


@then(parsers.parse('the output does not contain "{text}"'))
def then_absent(egress: EgressWorld, text: str) -> None:
    assert text not in js_json(egress.output), js_json(egress.output)


@then(parsers.parse('the output contains "{text}"'))
def then_present(egress: EgressWorld, text: str) -> None:
    assert text in js_json(egress.output), js_json(egress.output)
