"""The result envelope ``ds4-history-result-v1`` shared by recall, read and status (§2.9).

Fields are written in the contract's order; ``role`` and ``timestamp`` are omitted when unknown;
an unavailable result carries exactly one code and no content.
"""

from __future__ import annotations

from typing import Any, Final

from reference.primitives.jsonbytes import js_stringify
from reference.primitives.textunits import chars_v1_tokens
from reference.recall.refs import SourceRef

SCHEMA: Final = "ds4-history-result-v1"
RESERVE_TOKENS: Final = 96
MAX_WARNINGS: Final = 12


def unavailable(code: str) -> dict[str, Any]:
    return {"schema": SCHEMA, "quotedData": True, "status": "unavailable", "coverage": "unknown", "warnings": [code]}


def cost(envelope: dict[str, Any]) -> int:
    """``chars-v1`` tokens of the serialized envelope plus the 96-token reserve."""
    return chars_v1_tokens(js_stringify(envelope)) + RESERVE_TOKENS


def source_fields(ref: SourceRef, classification: str) -> dict[str, Any]:
    """The leading hit fields of a reference, also the ``source`` of a read."""
    fields: dict[str, Any] = {
        "sourceRef": ref.ref,
        "projectId": ref.public_project_id,
        "sessionId": ref.public_session_id,
        "entryId": ref.public_entry_id,
        "kind": ref.kind,
    }
    if ref.role is not None:
        fields["role"] = ref.role
    if ref.timestamp is not None:
        fields["timestamp"] = ref.timestamp
    fields["relation"] = ref.relation
    fields["classification"] = classification
    return fields


def dedupe(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))
