"""Where the egress sanitizer runs (contract §6.15, §2.10 "privacy is checked again"): the
adapter operation ``egress.sanitize``, and the host's two hooks, the context event and the final
provider payload.  Both hooks run whatever ``privacy.enabled`` and ``enabled`` say, and fail
closed: a context whose check fails has every message body replaced by the omission sentinel,
and a provider payload whose check fails becomes ``{}`` (so the provider request fails).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from reference.config.defaults import default_config
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject
from reference.privacy.egress import OMISSION_SENTINEL, sanitize_egress
from reference.privacy.provider import ProviderPolicy


def _privacy(config: Mapping[str, Any] | None) -> Mapping[str, Any]:
    privacy = (config or default_config()).get("privacy")
    return privacy if isinstance(privacy, Mapping) else default_config()["privacy"]


def op_egress_sanitize(params: Mapping[str, Any]) -> JsonObject:
    """``egress.sanitize {payload, provider}``: the payload as it may leave for ``provider``,
    with the default privacy configuration (no provider, or null, is ``unknown``)."""
    if "payload" not in params:
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'payload' is required")
    provider = params.get("provider")
    if provider is not None and not isinstance(provider, str):
        raise ContractViolation(Code.INVALID_PARAMS, "parameter 'provider' must be a string or null")
    privacy = _privacy(None)
    try:
        payload = sanitize_egress(params["payload"], ProviderPolicy.from_config(privacy, provider), privacy)
    except RecursionError:
        raise ContractViolation(Code.INVALID_PARAMS, "the payload is nested too deeply to check") from None
    return {"payload": payload}


def context_event(messages: Any, *, provider: str | None, config: Mapping[str, Any] | None) -> Any:
    """The context hook's first step: the messages as the provider may see them, or, when the
    check itself fails, every message body replaced by the omission sentinel."""
    return _checked(messages, provider, config, _fail_closed)


def provider_payload(payload: Any, *, provider: str | None, config: Mapping[str, Any] | None) -> Any:
    """``before_provider_request``: the final payload as it may leave, or ``{}`` when the check
    fails (the provider request then fails rather than send unchecked history)."""
    return _checked(payload, provider, config, lambda _payload: {})


def _checked(payload: Any, provider: str | None, config: Mapping[str, Any] | None,
             failed: Callable[[Any], Any]) -> Any:
    privacy = _privacy(config)
    try:
        return sanitize_egress(payload, ProviderPolicy.from_config(privacy, provider), privacy)
    except (RecursionError, ValueError, TypeError):
        return failed(payload)


def _fail_closed(messages: Any) -> list[Any]:
    if not isinstance(messages, list):
        return []
    return [{**{k: v for k, v in message.items() if k in ("role", "id", "timestamp")}, "content": OMISSION_SENTINEL}
            if isinstance(message, dict) else OMISSION_SENTINEL for message in messages]
