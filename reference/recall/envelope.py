"""The result envelope ``ds4-history-result-v1`` shared by recall, read and status (§2.9).

Fields are written in the contract's order; ``role`` and ``timestamp`` are omitted when unknown;
an unavailable result carries exactly one code and no content.
"""

from __future__ import annotations

from typing import Any, Final

from reference.primitives.jsonbytes import js_stringify
from reference.primitives.textunits import chars_v1_tokens

SCHEMA: Final = "ds4-history-result-v1"
RESERVE_TOKENS: Final = 96
MAX_WARNINGS: Final = 12


def unavailable(code: str) -> dict[str, Any]:
    return {"schema": SCHEMA, "quotedData": True, "status": "unavailable", "coverage": "unknown", "warnings": [code]}


def cost(envelope: dict[str, Any]) -> int:
    """``chars-v1`` tokens of the serialized envelope plus the 96-token reserve."""
    return chars_v1_tokens(js_stringify(envelope)) + RESERVE_TOKENS


def source_fields(
    *,
    source_ref: str,
    project_id: str,
    session_id: str,
    entry_id: str,
    kind: str,
    role: str | None,
    timestamp: int | None,
    relation: str,
    classification: str,
) -> dict[str, Any]:
    """The leading hit fields, also the ``source`` of a read."""
    fields: dict[str, Any] = {
        "sourceRef": source_ref,
        "projectId": project_id,
        "sessionId": session_id,
        "entryId": entry_id,
        "kind": kind,
    }
    if role is not None:
        fields["role"] = role
    if timestamp is not None:
        fields["timestamp"] = timestamp
    fields["relation"] = relation
    fields["classification"] = classification
    return fields


def dedupe(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))
