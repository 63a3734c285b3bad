"""The host's egress hooks fail closed (contract §2.10: a failed egress check replaces every
message body, and the provider payload becomes ``{}``), and the adapter operation refuses a
payload it cannot check with a contract error, never a traceback."""

from __future__ import annotations

from typing import Any

import pytest

from reference.primitives.errors import ContractViolation
from reference.privacy.egress import OMISSION_SENTINEL, context_event, op_egress_sanitize, provider_payload


def _deep(depth: int) -> Any:
    value: Any = {"role": "toolResult", "toolName": "context_history_recall", "content": "secret-deep"}
    for _ in range(depth):
        value = {"name": "context_history_recall", "arguments": {"query": "q"}, "next": [value]}
    return value


MESSAGES = [
    {"role": "user", "id": "u1", "content": "secret-user-text"},
    {"role": "assistant", "content": [{"type": "toolCall", "name": "context_history_recall"}], "extra": "x"},
    _deep(5000),
]


def test_a_context_that_cannot_be_checked_has_every_body_replaced() -> None:
    out = context_event(MESSAGES, provider="openai", config=None)
    assert out == [{"role": "user", "id": "u1", "content": OMISSION_SENTINEL},
                   {"role": "assistant", "content": OMISSION_SENTINEL},
                   {"content": OMISSION_SENTINEL}]


def test_a_provider_payload_that_cannot_be_checked_becomes_empty() -> None:
    assert provider_payload({"messages": MESSAGES}, provider="openai", config=None) == {}


def test_the_operation_refuses_an_unchecked_payload_with_a_code() -> None:
    with pytest.raises(ContractViolation) as caught:
        op_egress_sanitize({"payload": MESSAGES, "provider": "openai"})
    assert caught.value.code == "invalid-params"
    with pytest.raises(ContractViolation):
        op_egress_sanitize({"provider": "openai"})
    with pytest.raises(ContractViolation):
        op_egress_sanitize({"payload": [], "provider": 7})


def test_the_hooks_check_even_with_everything_disabled() -> None:
    config = {"enabled": False, "privacy": {"enabled": False, "redactSecrets": False,
                                             "defaultClassification": "normal", "localProviders": [],
                                             "remoteDefaultAllowed": ["normal"], "remoteProviders": {}}}
    call = [{"type": "toolCall", "id": "h", "name": "context_history_read", "arguments": {"sourceRef": "secret-ref"}}]
    assert "secret-ref" not in str(context_event(call, provider="openai", config=config))
    assert "secret-ref" not in str(provider_payload(call, provider="openai", config=config))
