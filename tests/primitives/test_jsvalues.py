"""JavaScript semantics Pi's code relies on: Date parsing, truthiness, strict equality, Map keys."""

from __future__ import annotations

import math

import pytest

from reference.primitives.jsonbytes import UNDEFINED
from reference.primitives.jsvalues import date_time_ms, map_key, strict_equal, to_iso_string, truthy


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-06-01T12:00:00.000Z", 1748779200000),
        ("2025-06-01T12:00:00.123456Z", 1748779200123),
        ("2025-06-01T12:00:00.1Z", 1748779200100),
        ("2025-06-01t12:00:00z", 1748779200000),
        ("2025-06-01 12:00:00Z", 1748779200000),
        ("2025-06-01T12:00Z", 1748779200000),
        ("2025-06-01T12:00:00+05:30", 1748759400000),
        ("2025-06-01", 1748736000000),
        ("2025-06", 1748736000000),
        ("2025", 1735689600000),
        ("+002025-06-01T00:00:00Z", 1748736000000),
        ("2025-02-30T00:00:00Z", 1740873600000),  # V8 lets the day overflow up to 31
        ("2025-06-01T24:00:00Z", 1748822400000),
        (None, 0),
        (True, 1),
        (1.7, 1),
        (-1.7, -1),
    ],
)
def test_dates_as_v8_reads_them(value: object, expected: int) -> None:
    assert date_time_ms(value) == expected


@pytest.mark.parametrize(
    "value",
    ["x", "2025-13-01T00:00:00Z", "2025-06-01T24:00:01Z", "2025-06-01T12:00:60Z", "-000000-01-01T00:00:00Z",
     "275760-09-13T00:00:00Z", "2025-06-01T12:00:00.Z", UNDEFINED, {}, 8.64e15 + 1],
)
def test_invalid_dates_are_nan(value: object) -> None:
    assert math.isnan(date_time_ms(value))


def test_truthiness_and_equality() -> None:
    assert [truthy(v) for v in (None, UNDEFINED, False, 0, 0.0, "", math.nan)] == [False] * 7
    assert all(truthy(v) for v in (True, 1, -1, "0", [], {}))
    assert strict_equal("a", "a") and strict_equal(1, 1.0) and strict_equal(UNDEFINED, UNDEFINED)
    assert not strict_equal(None, UNDEFINED) and not strict_equal(True, 1) and not strict_equal([], [])
    assert map_key("1") != map_key(1) and map_key(1) == map_key(1.0) and map_key({}) is None


@pytest.mark.parametrize(
    ("ms", "expected"),
    [
        (0, "1970-01-01T00:00:00.000Z"),
        (1748779200000, "2025-06-01T12:00:00.000Z"),
        (1748779200123, "2025-06-01T12:00:00.123Z"),
        (253402300799999, "9999-12-31T23:59:59.999Z"),
    ],
)
def test_to_iso_string_is_date_to_iso_string(ms: int, expected: str) -> None:
    assert to_iso_string(ms) == expected
    assert date_time_ms(expected) == ms  # the JS-faithful reader reads it back
