"""Properties of the egress sanitizer (contract §6.15 step 6): a second pass changes nothing, the
input is never mutated, and no secret of a history call, result or handoff leaves for a remote
provider.  Payloads are generated with history tool calls and results in every transport shape
the contract lists, linked by every id field, around unrelated messages."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.config.defaults import default_config
from reference.primitives.jsonbytes import js_stringify
from reference.privacy.egress import (
    ARGUMENT_KEYS,
    BODY_KEYS,
    HISTORY_TOOL_NAMES,
    ID_FIELDS,
    OMISSION_SENTINEL,
    SCALAR_KEYS,
    sanitize_egress,
)
from reference.privacy.policy import LEVELS, ProviderPolicy

PRIVACY = default_config()["privacy"]
PROVIDERS = ("ollama", "openai", "unknown", "anthropic", "faux")
#: Secrets of the families every detector must find (§2.11); none of them may leave remotely.
SECRETS = ("sk-FAKEfake0123456789", "ghp_FAKEfake0123456789ab", "AKIAABCDEFGHIJKLMNOP",
           "-----BEGIN PRIVATE KEY-----\nMIIfake\n-----END PRIVATE KEY-----")
_WORDS = ("plain", "words", "e1", "hist_0123456789abcdef0123456789abcdef", "ok-code", "BAD", "a b", "",
          "é", "\n", "\\", '"', "{", "}", "[DS4 REBASE HANDOFF", "[END DS4 REBASE HANDOFF]",
          "\\[ds4:local-only]", OMISSION_SENTINEL, "ds4-history-result-v1", "Bearer", "x" * 40,
          "[ds4:", "local-only]", "password=", "hunter22", "api_key: sk-FAKEfake0123456789")
_MARKERS = tuple(f"[{close}ds4:{level}]" for level in LEVELS for close in ("", "/"))
_PIECES = st.sampled_from(_WORDS + _MARKERS + SECRETS)
TEXT = st.lists(_PIECES, max_size=8).map(" ".join) | st.text(max_size=12)
LEVEL = st.sampled_from((*LEVELS, "secret", None))
SCALAR = st.one_of(TEXT, st.integers(-3, 10**6), st.floats(allow_nan=False, allow_infinity=False),
                   st.booleans(), st.none(), st.just({"nested": "x"}))


def _with(level: Any, fields: dict[str, Any]) -> dict[str, Any]:
    return fields if level is None else {"classification": level, **fields}


@st.composite
def hit(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(TEXT)
    fields = {key: draw(SCALAR) for key in draw(st.lists(st.sampled_from(sorted(SCALAR_KEYS - {"classification"})),
                                                           max_size=3, unique=True))}
    fields["excerpt"] = draw(TEXT)
    if draw(st.booleans()):
        fields["matchReasons"] = draw(st.lists(TEXT | st.just("lexical-match"), max_size=14))
    if draw(st.booleans()):
        fields["source"] = _with(draw(LEVEL), {"entryId": draw(TEXT)})
    fields["junk"] = draw(TEXT)
    return _with(draw(LEVEL), fields)


@st.composite
def result_text(draw: st.DrawFn) -> str:
    """A serialized history result (mostly well formed), or any text."""
    if draw(st.integers(0, 5)) == 0:
        return draw(TEXT)
    result: dict[str, Any] = {"schema": "ds4-history-result-v1", "quotedData": draw(st.sampled_from((True, True, False)))}
    for key in draw(st.lists(st.sampled_from(sorted(SCALAR_KEYS - {"schema", "quotedData"})), max_size=4, unique=True)):
        result[key] = draw(SCALAR)
    if draw(st.booleans()):
        result["hits"] = draw(st.lists(hit(), max_size=14))
    else:
        result["source"] = _with(draw(LEVEL), {"entryId": "e1"})
        result["text"] = draw(TEXT)
    result["warnings"] = draw(st.lists(TEXT | st.just("privacy-omitted"), max_size=14))
    result["details"] = {"secret": draw(TEXT)}
    return js_stringify(result)


@st.composite
def body(draw: st.DrawFn) -> Any:
    text = draw(result_text())
    shape = draw(st.sampled_from(("string", "blocks", "object", "other")))
    if shape == "string":
        return text
    if shape == "blocks":
        cut = draw(st.integers(0, len(text)))
        return [{"type": "text", "text": text[:cut]}, {"type": "image", "data": "aGk="}, {"type": "text", "text": text[cut:]}]
    return {"output": text, "extra": draw(TEXT)} if shape == "object" else draw(SCALAR)


@st.composite
def history_pair(draw: st.DrawFn) -> list[Any]:
    """A history tool call and its result, linked by one id field, in one of the listed shapes."""
    call_id = draw(st.sampled_from(("h1", "h2", "call_9")))
    field = draw(st.sampled_from(ID_FIELDS))
    tool = draw(st.sampled_from(sorted(HISTORY_TOOL_NAMES)))
    naming = draw(st.sampled_from(("name", "toolName", "function")))
    call: dict[str, Any] = {"type": "toolCall", field: call_id}
    call.update({"function": {"name": tool}} if naming == "function" else {naming: tool})
    arguments: Any = {"query": draw(TEXT), "secret": draw(st.sampled_from(SECRETS))}
    call[draw(st.sampled_from(ARGUMENT_KEYS))] = js_stringify(arguments) if draw(st.booleans()) else arguments
    shape = draw(st.sampled_from(({"role": "toolResult"}, {"role": "tool"}, {"type": "tool_result"},
                                  {"type": "function_call_output"}, {"toolName": tool, "role": "toolResult"})))
    result: dict[str, Any] = {field: call_id, **shape, draw(st.sampled_from(BODY_KEYS)): draw(body())}
    if draw(st.booleans()):
        result["details"] = {"secret": draw(st.sampled_from(SECRETS))}
    return [{"role": "assistant", "content": [call]}, result]


def handoff(level: str | None, text: str) -> str:
    inner = f"[DS4 REBASE HANDOFF — QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]\n{text}\n[END DS4 REBASE HANDOFF]"
    return inner if level is None else f"[ds4:{level}]{inner}[/ds4:{level}]"


UNRELATED = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | TEXT,
                         lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                             st.sampled_from(("role", "content", "id", "name", "text", "output", "details")), inner, max_size=3),
                         max_leaves=8)


@st.composite
def payload(draw: st.DrawFn) -> list[Any]:
    messages: list[Any] = []
    for kind in draw(st.lists(st.sampled_from(("pair", "handoff", "unrelated")), min_size=1, max_size=5)):
        if kind == "pair":
            messages.extend(draw(history_pair()))
        elif kind == "handoff":
            text = handoff(draw(st.sampled_from((*LEVELS, None))), draw(TEXT))
            messages.append({"role": "custom", "customType": "ds4-rebase-handoff-v1", "content": text})
        else:
            messages.append(draw(UNRELATED))
    return messages


def test_a_marker_formed_by_stripping_and_a_relabelled_assignment_settle_in_one_pass() -> None:
    """The two inputs on which one upstream pass is not a fixpoint (docs/privacy.md)."""
    for text in ("[ds4:[ds4:normal][/ds4:normal]local-only] tail", "password=hunter22 and more"):
        result = js_stringify({"schema": "ds4-history-result-v1", "quotedData": True,
                               "hits": [{"classification": "normal", "excerpt": text}]})
        value = [{"role": "toolResult", "toolName": "context_history_recall", "content": result},
                 {"role": "custom", "content": handoff("normal", text)}]
        for provider in ("ollama", "openai"):
            once = _egress(value, provider)
            assert _egress(once, provider) == once
    shown = js_stringify(_egress([{"role": "custom", "content": handoff(None, "password=hunter22")}], "ollama"))
    assert "hunter22" not in shown


def test_a_rebuilt_result_past_32000_units_is_invalid_at_once() -> None:
    """Labels are longer than the secrets they replace: a rebuilt text past the limit would be
    invalid on the next pass, so it is invalid on the first."""
    def result(excerpt: str) -> str:
        return js_stringify({"schema": "ds4-history-result-v1", "quotedData": True,
                             "hits": [{"classification": "normal", "excerpt": excerpt}]})
    tail = " sk-12345678"
    text = result("x" * (32_000 - len(result(tail))) + tail)
    assert len(text) == 32_000
    once = _egress([{"role": "toolResult", "toolName": "context_history_recall", "content": text}], "ollama")
    assert '"warnings":["invalid-historical-result"]' in once[0]["content"]
    assert _egress(once, "ollama") == once


def _egress(value: Any, provider: str) -> Any:
    return sanitize_egress(value, ProviderPolicy.from_config(PRIVACY, provider), PRIVACY)


@examples(deep=200, ci=145)
@given(payload(), st.sampled_from(PROVIDERS))
def test_a_second_pass_changes_nothing_and_the_input_is_not_mutated(value: list[Any], provider: str) -> None:
    before = copy.deepcopy(value)
    once = _egress(value, provider)
    assert value == before
    assert _egress(once, provider) == once


@examples(deep=200, ci=120)
@given(payload(), st.sampled_from(PROVIDERS), st.sampled_from(PROVIDERS))
def test_a_provider_switch_then_a_pass_is_the_same_as_one_pass_for_a_remote_provider(
    value: list[Any], first: str, second: str
) -> None:
    """What a remote provider gets never depends on a pass made for another provider first,
    except through the content the first pass already removed."""
    twice = _egress(_egress(value, first), second)
    assert _egress(twice, second) == twice


@examples(deep=200, ci=85)
@given(st.lists(history_pair(), min_size=1, max_size=3), st.sampled_from(("openai", "anthropic", "unknown")))
def test_no_secret_of_a_history_call_or_result_leaves_for_a_remote_provider(pairs: list[list[Any]], provider: str) -> None:
    value = [message for pair in pairs for message in pair]
    shown = js_stringify(_egress(value, provider))
    for secret in SECRETS:
        assert js_stringify(secret)[1:-1] not in shown
