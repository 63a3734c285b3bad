"""The searchable text of a session entry (contract §3.4), its index role and token estimate.

Recall searches this text and ``context_history_read`` returns it line by line, so one function
renders it for the index and for reads.  Everything here is pure over parsed JSON values; absent
fields are JavaScript ``undefined`` and anything of the wrong type renders as nothing.

Where the contract's per-role table is silent, the upstream block rendering decides: any message
role other than ``toolResult`` and ``bashExecution`` renders its text blocks and its tool-call
blocks (name, then ``JSON.stringify`` of the arguments), so a string content renders as is.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from reference.primitives.jsonbytes import UNDEFINED, js_stringify
from reference.primitives.jsvalues import get
from reference.primitives.textunits import chars_v1_tokens

HANDOFF_CUSTOM_TYPE: Final = "ds4-rebase-handoff-v1"
HISTORY_TOOL_PREFIX: Final = "context_history_"  # recursion guard: recall never indexes itself

# The upstream message estimator (used by the lexical engine's score): a wrapper per message and
# per content block, a flat figure per image, chars-v1 for everything else.
_MESSAGE_WRAPPER_TOKENS: Final = 8
_BLOCK_WRAPPER_TOKENS: Final = 4
_IMAGE_TOKENS: Final = 1024
_SAFE_INT: Final = 2**53  # a JSON number below this in magnitude is an exact double: the same digits
_ENCODE: Final = msgspec.json.Encoder().encode


def _tokens(text: str) -> int:
    """``chars_v1_tokens`` with a fast path: ASCII text has one UTF-16 unit per character."""
    return -(-len(text) // 4) if text.isascii() else chars_v1_tokens(text)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _join(parts: list[str]) -> str:
    """Non-empty parts joined with LF: empty parts go, blank lines inside a part stay."""
    return "\n".join(part for part in parts if part)


def _safe_json(value: Any) -> str:
    """``JSON.stringify(value) ?? ""``: ``undefined`` stringifies to nothing."""
    if value is UNDEFINED:
        return ""
    try:
        if _plain(value):
            return _ENCODE(value).decode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, which JavaScript escapes
        pass
    except RecursionError:  # nested deeper than the fast path goes; js_stringify goes on
        pass
    return js_stringify(value)


def _plain(value: Any) -> bool:
    """A value ``msgspec`` serializes exactly as ``JSON.stringify`` does (strings with the same
    escapes, booleans, null, integers that are exact doubles, and arrays and objects of them
    whose keys cannot be array indexes, which JavaScript puts first), unless a string holds a lone
    surrogate, which ``msgspec`` refuses.  A float or ``undefined`` anywhere is not plain."""
    kind = type(value)
    if kind is str:
        return True
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or key[:1].isdigit() or not _plain(item):
                return False
        return True
    if kind is list:
        return all(_plain(item) for item in value)
    if kind is int:
        return bool(-_SAFE_INT < value < _SAFE_INT)
    return value is None or kind is bool


def _message_fields(message: Any) -> tuple[str, int]:
    """A message's searchable text and its token estimate (the upstream message estimator), in
    one walk of its blocks, so a tool call's arguments are serialized once."""
    if not isinstance(message, dict):
        return "", _MESSAGE_WRAPPER_TOKENS
    role, content = message.get("role"), message.get("content", UNDEFINED)
    tokens = _MESSAGE_WRAPPER_TOKENS + _tokens(_str(role))
    tokens += sum(_tokens(_str(message.get(key))) for key in ("summary", "command", "output", "toolName"))
    texts: list[str] = []  # the text blocks (a string content is one)
    parts: list[str] = []  # the text blocks and the tool calls
    if isinstance(content, str):
        texts.append(content)
        tokens += _tokens(content)
    elif isinstance(content, list):
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(text := block.get("text"), str):
                texts.append(text)
                parts.append(text)
                tokens += _tokens(text)
            elif kind == "toolCall":
                name = _str(block.get("name"))
                arguments = _safe_json(block.get("arguments", UNDEFINED))
                if not name.startswith(HISTORY_TOOL_PREFIX):
                    parts += (name, arguments)
                tokens += _tokens(name + arguments)
            elif kind == "image":
                tokens += _IMAGE_TOKENS
            elif kind == "thinking" and isinstance(thinking := block.get("thinking"), str):
                tokens += _tokens(thinking)
            else:
                tokens += _tokens(_safe_json(block))
            tokens += _BLOCK_WRAPPER_TOKENS if isinstance(block, dict) else 0
    elif content is not UNDEFINED:
        tokens += _tokens(_safe_json(content))
    if role == "toolResult":
        tool_name = _str(message.get("toolName"))
        text = "" if tool_name.startswith(HISTORY_TOOL_PREFIX) else _join([tool_name, "\n".join(texts)])
    elif role == "bashExecution":
        text = _join(["Command: " + _str(message.get("command")), _str(message.get("output"))])
    else:
        text = content if isinstance(content, str) else _join(parts)
    return text, tokens


def _custom(entry: Any) -> dict[str, Any]:
    """A custom message as the message it renders as."""
    return {"role": "custom", "content": get(entry, "content")}


def _is_handoff(entry: Any) -> bool:
    return bool(get(entry, "customType") == HANDOFF_CUSTOM_TYPE)


def searchable_text(entry: Any) -> str:
    """The text the index searches and a read returns, per entry type (contract §3.4)."""
    kind = get(entry, "type")
    if kind == "message":
        return _message_fields(get(entry, "message"))[0]
    if kind == "custom_message":
        return "" if _is_handoff(entry) else _message_fields(_custom(entry))[0]
    if kind == "compaction":
        return _str(get(entry, "summary"))
    if kind == "branch_summary":
        return _join([_str(get(entry, "fromId")), _str(get(entry, "summary"))])
    if kind == "model_change":
        return _join([_str(get(entry, "provider")), _str(get(entry, "modelId"))])
    if kind == "thinking_level_change":
        return _str(get(entry, "thinkingLevel"))
    if kind == "label":
        return _join([_str(get(entry, "targetId")), _str(get(entry, "label"))])
    if kind == "session_info":
        return _str(get(entry, "name"))
    return ""  # custom entries (extension state) and unknown types are never searchable


def entry_role(entry: Any) -> str | None:
    """The index role: the message's own role, ``custom`` for custom messages, ``summary``."""
    kind = get(entry, "type")
    if kind == "message":
        role = get(get(entry, "message"), "role")
        return role if isinstance(role, str) and role else None
    if kind == "custom_message":
        return "custom"
    if kind == "compaction" or kind == "branch_summary":
        return "summary"
    return None


def token_estimate(entry: Any, text: str) -> int:
    """The row's ``token_estimate``: the message estimator for messages, chars-v1 of ``text`` else.

    The lexical engine subtracts ``min(12, tokens / 1000)`` from a hit's score with this figure.
    """
    kind = get(entry, "type")
    if kind == "message":
        return _message_fields(get(entry, "message"))[1]
    if kind == "custom_message" and not _is_handoff(entry):
        return _message_fields(_custom(entry))[1]
    return _tokens(text)


def index_fields(entry: Any) -> tuple[str, str | None, int]:
    """``(searchable_text(entry), entry_role(entry), token_estimate(entry, text))`` with one walk
    of a message (the index writes all three for every entry)."""
    kind = get(entry, "type")
    if kind == "message" or (kind == "custom_message" and not _is_handoff(entry)):
        text, tokens = _message_fields(get(entry, "message") if kind == "message" else _custom(entry))
        return text, entry_role(entry), tokens
    text = searchable_text(entry)
    return text, entry_role(entry), _tokens(text)
