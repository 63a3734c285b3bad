"""The egress sanitizer (contract §6.15 steps 1-6; decisions D6): history tool calls, history
results and rebase handoff strings are checked again against the current provider before a
payload leaves, whatever ``privacy.enabled`` says; and where it runs (§2.10 "privacy is checked
again"): the adapter operation ``egress.sanitize`` and the host's two hooks, the context event and
the final provider payload.  Both hooks run whatever ``privacy.enabled`` and ``enabled`` say, and
fail closed: a context whose check fails has every message body replaced by the omission
sentinel, and a provider payload whose check fails becomes ``{}`` (so the provider request fails).

A pure function over a JSON value: the input is never mutated, and a payload with nothing to
change comes back as the same object.  Every text check goes through the runtime history
sanitizer (``reference.privacy.sanitizer.history_sanitize``), so the secret detector behind
``reference.privacy.redaction`` is the one egress uses too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from reference.config.defaults import default_config
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject, JsonParseError, js_parse, js_stringify
from reference.primitives.jsvalues import is_number
from reference.primitives.textunits import utf16_length
from reference.privacy.detection import redact, redact_strings
from reference.privacy.policy import (
    HISTORY_RESULT_SCHEMA,
    ProviderPolicy,
    history_privacy_classification,
    is_level,
    max_level,
)
from reference.privacy.sanitizer import Sanitized, history_sanitize

#: What replaces omitted history content, past arguments and unsafe scalar strings (contract §0.3).
OMISSION_SENTINEL: Final = "[DS4 history content omitted by current policy]"
HISTORY_TOOL_NAMES: Final = frozenset({"context_history_recall", "context_history_read", "context_history_status"})
#: Step 1: the fields a tool call's or result's id may be in.
ID_FIELDS: Final = ("id", "toolCallId", "tool_call_id", "call_id", "tool_use_id")
#: Step 2: a string holding this is a rebase handoff.
HANDOFF_MARK: Final = "[DS4 REBASE HANDOFF"
#: Step 3: the keys of a history tool call that hold its (past) arguments.
ARGUMENT_KEYS: Final = ("arguments", "args", "input")
#: Step 4: the keys of a history tool result that hold its text.
BODY_KEYS: Final = ("content", "output", "response")
#: Step 5: limits and the grammar of what a rebuilt result keeps.
MAX_RESULT_CHARS: Final = 32_000
MAX_LISTED: Final = 12
#: A text is sanitized again until a pass changes nothing; one that has not settled after this
#: many passes is omitted (docs/privacy.md, "Egress settles").
MAX_SETTLE_PASSES: Final = 8
INVALID_RESULT_CODE: Final = Code.INVALID_HISTORICAL_RESULT
SCALAR_KEYS: Final = frozenset({
    "schema", "quotedData", "status", "effectiveScope", "coverage", "sourceRef", "projectId", "sessionId",
    "entryId", "kind", "role", "timestamp", "relation", "classification", "score", "truncated", "startLine",
    "nextLine", "indexedEntries",
})
_SCALAR_STRING: Final = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
_LISTED_CODE: Final = re.compile(r"[a-z-]{1,48}")
_RESULT_ROLES: Final = ("toolResult", "tool")
_RESULT_TYPES: Final = ("tool_result", "function_call_output")

#: ``sanitize(text, stored)``: the runtime history sanitizer for the current provider.
Sanitize = Callable[[str, "str | None"], Sanitized]


def invalid_result_text() -> str:
    """The unavailable envelope ``invalid-historical-result``, serialized as the tools render it."""
    return js_stringify({"schema": HISTORY_RESULT_SCHEMA, "quotedData": True, "status": "unavailable",
                         "coverage": "unknown", "warnings": [INVALID_RESULT_CODE]})


class _Invalid(Exception):
    """A history result that cannot be rebuilt: the whole text becomes ``invalid-historical-result``."""


def settle(text: str, check: Callable[[str], Sanitized | None]) -> Sanitized:
    """``check(text)`` repeated on its own output until the next pass would change nothing
    (``check`` answers None for a text it leaves alone), so a second egress pass is a no-op.

    Two upstream behaviours make one pass not enough: stripping an inner span can form a new
    marker (``[ds4:`` + span + ``local-only]``), and redaction matches its own assignment label
    again (``password=[DS4 REDACTED SECRET]``).  What has not settled after
    :data:`MAX_SETTLE_PASSES` passes is omitted.
    """
    safe = check(text)
    assert safe is not None
    for _ in range(MAX_SETTLE_PASSES):
        if safe.omitted:
            return safe
        again = check(safe.text)
        if again is None or (not again.omitted and again.text == safe.text):
            return safe
        safe = again
    return Sanitized("", safe.classification, True)


def _tool_name(node: Mapping[str, Any]) -> str | None:
    """The history tool an object names through ``name``, ``toolName`` or ``function.name``."""
    nested = node.get("function")
    candidates = (node.get("name"), node.get("toolName"), nested.get("name") if isinstance(nested, dict) else None)
    return next((c for c in candidates if isinstance(c, str) and c in HISTORY_TOOL_NAMES), None)


def _ids(node: Mapping[str, Any]) -> list[str]:
    return [value for value in (node.get(key) for key in ID_FIELDS) if isinstance(value, str)]


def collect_call_ids(payload: Any) -> set[str]:
    """Step 1: the ids of every object that names a history tool, anywhere in the payload."""
    found: set[str] = set()
    seen: set[int] = set()
    stack = [payload]
    while stack:
        node = stack.pop()
        if not isinstance(node, (dict, list)) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            if _tool_name(node) is not None:
                found.update(_ids(node))
            stack.extend(node.values())
        else:
            stack.extend(node)
    return found


def _clean(node: Mapping[str, Any], inherited: str | None, sanitize: Sanitize) -> JsonObject:
    """Step 5's rebuild of one result object (the result itself, its ``source`` or a hit)."""
    own = node.get("classification")
    classification = own if is_level(own) else inherited
    if ("text" in node or "excerpt" in node) and classification is None:
        raise _Invalid
    out: JsonObject = {}
    for key, child in node.items():
        if key in ("text", "excerpt"):
            safe = settle(child, lambda text: sanitize(text, classification)) if isinstance(child, str) else None
            out[key] = OMISSION_SENTINEL if safe is None or safe.omitted else safe.text
        elif key == "source" and isinstance(child, dict):
            out[key] = _clean(child, None, sanitize)
        elif key == "hits" and isinstance(child, list):
            out[key] = [_clean(hit, None, sanitize) if isinstance(hit, dict) else {} for hit in child[:MAX_LISTED]]
        elif key in ("warnings", "matchReasons") and isinstance(child, list):
            out[key] = [code for code in child[:MAX_LISTED] if isinstance(code, str) and _LISTED_CODE.fullmatch(code)]
        elif key in SCALAR_KEYS and (isinstance(child, bool) or (is_number(child) and math.isfinite(child))):
            out[key] = child
        elif key in SCALAR_KEYS and isinstance(child, str):
            out[key] = child if _safe_scalar(child, sanitize) else OMISSION_SENTINEL
    return out


def _safe_scalar(value: str, sanitize: Sanitize) -> bool:
    if not _SCALAR_STRING.fullmatch(value):
        return False
    safe = sanitize(value, "normal")
    return not safe.omitted and safe.text == value


def sanitize_result_text(value: Any, sanitize: Sanitize) -> str:
    """Step 5: a history result's text rebuilt from what may be shown, or the unavailable
    envelope ``invalid-historical-result``."""
    if not isinstance(value, str) or utf16_length(value) > MAX_RESULT_CHARS:
        return invalid_result_text()
    try:
        result = js_parse(value, deep=False)
    except (JsonParseError, RecursionError):
        return invalid_result_text()
    if not isinstance(result, dict) or result.get("schema") != HISTORY_RESULT_SCHEMA or result.get("quotedData") is not True:
        return invalid_result_text()
    source = result.get("source")
    floor = source.get("classification") if isinstance(source, dict) else None
    try:
        rebuilt = js_stringify(_clean(result, floor if is_level(floor) else None, sanitize))
    except _Invalid:
        return invalid_result_text()
    # Redaction labels and the sentinel can be longer than what they replace: a rebuilt text past
    # the limit would be invalid on the next pass, so it is invalid now.
    return rebuilt if utf16_length(rebuilt) <= MAX_RESULT_CHARS else invalid_result_text()


def _body_text(child: Any) -> Any:
    """Step 4: the text a result body carries (strings as is, text blocks joined, ``output``)."""
    if isinstance(child, str):
        return child
    if isinstance(child, list):
        return "\n".join(block["text"] for block in child
                         if isinstance(block, dict) and isinstance(block.get("text"), str))
    return child.get("output") if isinstance(child, dict) else None


def _rebuilt_body(child: Any, safe: str) -> Any:
    if isinstance(child, str):
        return safe
    if isinstance(child, list):
        return [{"type": "text", "text": safe}]
    return {"output": safe}


def _is_result(node: Mapping[str, Any], direct: bool, calls: set[str]) -> bool:
    """Step 4: a result of a collected call, or an object naming a history tool as its result."""
    shaped = (node.get("role") in _RESULT_ROLES or node.get("type") in _RESULT_TYPES or "response" in node)
    linked = shaped and any(value in calls for value in _ids(node))
    return linked or (direct and (node.get("role") == "toolResult" or "response" in node))


def _redact_entry_line(line: str) -> tuple[str, int]:
    try:
        entry = js_parse(line)
    except (JsonParseError, RecursionError):
        return redact(line)
    clean, found = redact_strings(entry)
    return (js_stringify(clean), found) if found else (line, 0)


def redact_quoted_context(handoff: str) -> tuple[str, int]:
    """The handoff with the secrets of its quoted context redacted, and how many were found
    (issue 11).

    A handoff quotes its canonical context as one JSON string literal of ``JSON.stringify``'d
    entries (contract §6.6 step 5), so a secret inside an entry is escaped twice there: a newline
    before a token is written ``\\\\n``, and a detector reading the handoff as it stands sees
    ``nAKIA…`` and no word boundary.  So the quoted line is decoded, the strong detector runs over
    every string of every entry, and the line is written back with what it found redacted; any
    finding raises the handoff to at least ``sensitive`` (D6), so a default remote provider gets
    none of it.  Only a line that is a whole JSON string literal is decoded (the handoff's line
    7); every other line is left to the sanitizer, which checks the handoff as a whole anyway."""
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


def sanitize_egress(payload: Any, policy: ProviderPolicy, privacy_config: Mapping[str, Any]) -> Any:
    """The payload as it may leave for ``policy``'s provider (contract §6.15 steps 1-6).

    Handoff strings are re-sanitized at their own classification; history tool calls lose their
    arguments; history tool results lose their details and keep only a rebuilt, re-sanitized
    envelope; everything else is left as it is.  Raises ``RecursionError`` on a payload nested
    past Python's recursion limit (callers fail closed).
    """

    def sanitize(text: str, stored: str | None) -> Sanitized:
        return history_sanitize(text, stored=stored, policy=policy, privacy_config=privacy_config)

    def handoff_check(text: str) -> Sanitized | None:
        """Step 2 on one string, as the next pass would see it (it leaves a non-handoff alone)."""
        if HANDOFF_MARK not in text:
            return None
        stored = history_privacy_classification(text)
        text, found = redact_quoted_context(text)  # the quoted context, escaped twice (issue 11)
        if found:
            stored = max_level(stored or "normal", "sensitive")
        return sanitize(text, stored)

    calls = collect_call_ids(payload)
    changed = False
    memo: dict[int, Any] = {}

    def walk(node: Any) -> Any:
        nonlocal changed
        if isinstance(node, str):
            if HANDOFF_MARK not in node:
                return node
            changed = True
            safe = settle(node, handoff_check)
            return OMISSION_SENTINEL if safe.omitted else safe.text
        if not isinstance(node, (dict, list)):
            return node
        if id(node) in memo:
            return memo[id(node)]
        if isinstance(node, list):
            items: list[Any] = []
            memo[id(node)] = items
            items.extend(walk(child) for child in node)
            return items
        direct = _tool_name(node) is not None
        result = _is_result(node, direct, calls)
        out: JsonObject = {}
        memo[id(node)] = out
        for key, child in node.items():
            if direct and key in ARGUMENT_KEYS:
                omitted = {"omitted": OMISSION_SENTINEL}
                out[key] = js_stringify(omitted) if isinstance(child, str) else omitted
                changed = True
            elif result and key == "details":
                out[key] = {}
                changed = True
            elif result and key in BODY_KEYS:
                out[key] = _rebuilt_body(child, sanitize_result_text(_body_text(child), sanitize))
                changed = True
            else:
                out[key] = walk(child)
        return out

    output = walk(payload)
    return output if changed else payload


def op_egress_sanitize(params: Mapping[str, Any]) -> JsonObject:
    """``egress.sanitize {payload, provider}``: the payload as it may leave for ``provider``,
    with the default privacy configuration (no provider, or null, is ``unknown``)."""
    if "payload" not in params:
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'payload' is required")
    provider = params.get("provider")
    if provider is not None and not isinstance(provider, str):
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'provider' must be a string or null")
    try:
        return {"payload": _leaving(params["payload"], provider, None)}
    except RecursionError:
        raise ContractViolation(Code.INVALID_PARAMS, "the payload is nested too deeply to check") from None


def context_event(messages: Any, *, provider: str | None, config: Mapping[str, Any] | None) -> Any:
    """The context hook's first step: the messages as the provider may see them, or, when the
    check itself fails, every message body replaced by the omission sentinel."""
    return _checked(messages, provider, config, _fail_closed)


def provider_payload(payload: Any, *, provider: str | None, config: Mapping[str, Any] | None) -> Any:
    """``before_provider_request``: the final payload as it may leave, or ``{}`` when the check
    fails (the provider request then fails rather than send unchecked history)."""
    return _checked(payload, provider, config, lambda _payload: {})


def _leaving(payload: Any, provider: str | None, config: Mapping[str, Any] | None) -> Any:
    """The payload as it may leave, with ``config``'s privacy section (the default's without one)."""
    privacy = (config or default_config()).get("privacy")
    if not isinstance(privacy, Mapping):
        privacy = default_config()["privacy"]
    return sanitize_egress(payload, ProviderPolicy.from_config(privacy, provider), privacy)


def _checked(payload: Any, provider: str | None, config: Mapping[str, Any] | None,
             failed: Callable[[Any], Any]) -> Any:
    try:
        return _leaving(payload, provider, config)
    except (RecursionError, ValueError, TypeError):
        return failed(payload)


def _fail_closed(messages: Any) -> list[Any]:
    if not isinstance(messages, list):
        return []
    return [{**{k: v for k, v in message.items() if k in ("role", "id", "timestamp")}, "content": OMISSION_SENTINEL}
            if isinstance(message, dict) else OMISSION_SENTINEL for message in messages]
