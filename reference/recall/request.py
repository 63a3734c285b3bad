"""Validation of recall and read requests, in the contract's order with its exact codes.

Recall (contract §2.3): the first failing check wins.  Dates follow decisions D4: an ISO-8601
date-time with an explicit offset or ``Z``; anything else is ``invalid-date``.  Read (§3.3
steps 2 and 5): reference grammar first, ranges after the reference checks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import date_time_ms, is_safe_integer, trim
from reference.primitives.textunits import utf8_length, utf16_length
from reference.recall.refs import REF_PATTERN

SCOPES: Final = ("current-branch", "current-session", "current-lineage", "project")
ROLES: Final = ("user", "assistant", "toolResult", "bashExecution", "custom", "summary")
#: The request's limit on ``query`` (contract §2.3: at most 2000 UTF-16 units).
MAX_QUERY_UNITS: Final = 2000
MAX_QUERY_BYTES: Final = 8000
MAX_RESULTS_CAP: Final = 12
MAX_OUTPUT_TOKENS_CAP: Final = 6000
MIN_OUTPUT_TOKENS: Final = 256
MAX_DATE_CHARS: Final = 40
MAX_ROLES: Final = 6
READ_DEFAULT_LINES: Final = 120
READ_MAX_LINES: Final = 200
READ_MAX_START_LINE: Final = 1_000_000
_DATE_PREFIX: Final = re.compile(r"^\d{4}-\d{2}-\d{2}T")
_EXPLICIT_OFFSET: Final = re.compile(r"(?:[Zz]|[+-]\d{2}:\d{2})$")


@dataclass(frozen=True)
class RecallQuery:
    """A validated recall request with the effective values of contract §2.3."""

    query: str
    scope: str
    limit: int
    max_output_tokens: int
    roles: tuple[str, ...] | None
    before_ms: int | None
    after_ms: int | None
    include_summaries: bool


@dataclass(frozen=True)
class ReadRange:
    start_line: int
    max_lines: int
    budget: int


def _date(value: Any) -> int:
    if (
        not isinstance(value, str)
        or len(value) > MAX_DATE_CHARS
        or not _DATE_PREFIX.match(value)
        or not _EXPLICIT_OFFSET.search(value)
    ):
        raise ContractViolation(Code.INVALID_DATE, "dates are ISO-8601 date-times with an explicit offset or Z")
    ms = date_time_ms(value)
    if isinstance(ms, float):  # NaN
        raise ContractViolation(Code.INVALID_DATE, f"not a valid date-time: {value}")
    return ms


def validate_recall(params: Mapping[str, Any], history: Mapping[str, Any]) -> RecallQuery:
    """``history`` is the effective ``historyTools`` configuration section."""
    query = params.get("query")
    if (
        not isinstance(query, str)
        or not trim(query)
        or utf16_length(query) > MAX_QUERY_UNITS
        or utf8_length(query) > MAX_QUERY_BYTES
    ):
        raise ContractViolation(Code.INVALID_QUERY, "query must be non-empty text of at most 2000 characters and 8000 bytes")
    requested_scope = params.get("scope")
    scope = history["defaultScope"] if requested_scope is None else requested_scope
    if requested_scope is None and scope == "project":
        raise ContractViolation(Code.INVALID_SCOPE, "project scope must be requested explicitly")
    if scope not in SCOPES:
        raise ContractViolation(Code.INVALID_SCOPE, f"scope must be one of {', '.join(SCOPES)}")
    limit = history["maxResults"] if params.get("limit") is None else params["limit"]
    if not is_safe_integer(limit) or not 1 <= limit <= MAX_RESULTS_CAP:
        raise ContractViolation(Code.INVALID_BUDGET, "limit must be an integer between 1 and 12")
    tokens = history["maxOutputTokens"] if params.get("maxOutputTokens") is None else params["maxOutputTokens"]
    if not is_safe_integer(tokens) or not MIN_OUTPUT_TOKENS <= tokens <= MAX_OUTPUT_TOKENS_CAP:
        raise ContractViolation(Code.INVALID_BUDGET, "maxOutputTokens must be an integer between 256 and 6000")
    before = _date(params["before"]) if params.get("before") is not None else None
    after = _date(params["after"]) if params.get("after") is not None else None
    if before is not None and after is not None and after >= before:
        raise ContractViolation(Code.INVALID_DATE_RANGE, "after must be earlier than before")
    roles = params.get("roles")
    if roles is not None and (
        not isinstance(roles, list) or len(roles) > MAX_ROLES or any(role not in ROLES for role in roles)
    ):
        raise ContractViolation(Code.INVALID_ROLE, f"roles: at most 6 of {', '.join(ROLES)}")
    include = params.get("includeSummaries")
    if include is not None and not isinstance(include, bool):
        raise ContractViolation(Code.INVALID_FILTER, "includeSummaries must be a boolean")
    return RecallQuery(
        query=query,
        scope=str(scope),
        limit=min(int(limit), int(history["maxResults"])),
        max_output_tokens=min(int(tokens), int(history["maxOutputTokens"])),
        roles=None if roles is None else tuple(roles),
        before_ms=before,
        after_ms=after,
        include_summaries=bool(history["includeSummaries"] if include is None else include),
    )


def check_reference(params: Mapping[str, Any]) -> str:
    ref = params.get("sourceRef")
    if not isinstance(ref, str) or not REF_PATTERN.fullmatch(ref):
        raise ContractViolation(Code.INVALID_REFERENCE, "sourceRef must be a hist_ reference issued by recall")
    return ref


def validate_read_range(params: Mapping[str, Any], history: Mapping[str, Any]) -> ReadRange:
    """Ranges are checked only after the reference was found live and in scope."""
    tokens = params.get("maxOutputTokens")
    if tokens is not None and (not is_safe_integer(tokens) or tokens < MIN_OUTPUT_TOKENS):
        raise ContractViolation(Code.INVALID_RANGE, "maxOutputTokens must be at least 256")
    start = 1 if params.get("startLine") is None else params["startLine"]
    if not is_safe_integer(start) or not 1 <= start <= READ_MAX_START_LINE:
        raise ContractViolation(Code.INVALID_RANGE, "startLine must be an integer between 1 and 1000000")
    lines = READ_DEFAULT_LINES if params.get("maxLines") is None else params["maxLines"]
    if not is_safe_integer(lines) or not 1 <= lines <= READ_MAX_LINES:
        raise ContractViolation(Code.INVALID_RANGE, "maxLines must be an integer between 1 and 200")
    configured = int(history["maxOutputTokens"])
    requested = configured if tokens is None else int(tokens)
    if not 1 <= requested <= MAX_OUTPUT_TOKENS_CAP:
        raise ContractViolation(Code.INVALID_RANGE, "maxOutputTokens must be at most 6000")
    return ReadRange(start_line=int(start), max_lines=int(lines), budget=min(requested, configured))
