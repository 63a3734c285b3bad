"""Recall and read request validation: the contract's order and exact codes (§2.3, §3.3, D4)."""

from __future__ import annotations

from typing import Any

import pytest

from reference.config.defaults import default_config
from reference.primitives.errors import ContractViolation
from reference.recall.request import check_reference, validate_read_range, validate_recall

HISTORY: dict[str, Any] = default_config()["historyTools"]


def code_of(params: dict[str, Any], history: dict[str, Any] = HISTORY) -> str:
    with pytest.raises(ContractViolation) as caught:
        validate_recall(params, history)
    return caught.value.code


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({}, "invalid-query"),
        ({"query": "   "}, "invalid-query"),
        ({"query": "x" * 2001}, "invalid-query"),
        ({"query": "😀" * 1001}, "invalid-query"),  # 2002 UTF-16 units
        ({"query": "é" * 1999 + "漢" * 1}, None),
        ({"query": "ok", "scope": "everything"}, "invalid-scope"),
        ({"query": "ok", "limit": 0}, "invalid-budget"),
        ({"query": "ok", "limit": 13}, "invalid-budget"),
        ({"query": "ok", "limit": 2.5}, "invalid-budget"),
        ({"query": "ok", "limit": True}, "invalid-budget"),
        ({"query": "ok", "maxOutputTokens": 255}, "invalid-budget"),
        ({"query": "ok", "maxOutputTokens": 6001}, "invalid-budget"),
        ({"query": "ok", "before": "2026-01-01T00:00:00"}, "invalid-date"),  # D4: no offset
        ({"query": "ok", "before": "2026-01-01"}, "invalid-date"),
        ({"query": "ok", "before": "2026-13-01T00:00:00Z"}, "invalid-date"),
        ({"query": "ok", "after": "2026-01-02T00:00:00Z", "before": "2026-01-01T00:00:00Z"}, "invalid-date-range"),
        ({"query": "ok", "after": "2026-01-01T00:00:00Z", "before": "2026-01-01T00:00:00Z"}, "invalid-date-range"),
        ({"query": "ok", "roles": ["robot"]}, "invalid-role"),
        ({"query": "ok", "roles": ["user"] * 7}, "invalid-role"),
        ({"query": "ok", "roles": "user"}, "invalid-role"),
        ({"query": "ok", "includeSummaries": "yes"}, "invalid-filter"),
        ({"query": "", "scope": "bad", "limit": 99}, "invalid-query"),  # the first failing check wins
        ({"query": "ok", "scope": "bad", "limit": 99}, "invalid-scope"),
    ],
)
def test_validation_codes(params: dict[str, Any], code: str | None) -> None:
    if code is None:
        validate_recall(params, HISTORY)
    else:
        assert code_of(params) == code


def test_project_scope_must_be_explicit() -> None:
    assert code_of({"query": "ok"}, {**HISTORY, "defaultScope": "project"}) == "invalid-scope"
    assert validate_recall({"query": "ok", "scope": "project"}, HISTORY).scope == "project"


def test_effective_values_are_capped_by_the_configuration() -> None:
    history = {**HISTORY, "maxResults": 4, "maxOutputTokens": 1000, "includeSummaries": True}
    query = validate_recall({"query": "ok", "limit": 10, "maxOutputTokens": 5000}, history)
    assert (query.limit, query.max_output_tokens, query.include_summaries) == (4, 1000, True)
    assert validate_recall({"query": "ok", "roles": []}, HISTORY).roles == ()
    dated = validate_recall({"query": "ok", "before": "2026-01-01T01:00:00+01:00"}, HISTORY)
    assert dated.before_ms == 1767225600000


def test_read_reference_then_ranges() -> None:
    for bad in ("/etc/passwd", "hist_" + "a" * 32 + "\n", "HIST_" + "a" * 32, "hist_" + "A" * 32):
        with pytest.raises(ContractViolation) as caught:
            check_reference({"sourceRef": bad})
        assert caught.value.code == "invalid-reference"
    for bad in ({"startLine": 0}, {"startLine": 1_000_001}, {"maxLines": 201}, {"maxLines": 0},
                {"maxOutputTokens": 255}, {"startLine": -1}, {"startLine": "2"}):
        with pytest.raises(ContractViolation) as caught:
            validate_read_range(bad, HISTORY)
        assert caught.value.code == "invalid-range"
    window = validate_read_range({}, HISTORY)
    assert (window.start_line, window.max_lines, window.budget) == (1, 120, 3000)
    assert validate_read_range({"maxOutputTokens": 6000}, HISTORY).budget == 3000
