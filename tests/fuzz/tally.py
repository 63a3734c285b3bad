"""The fuzz campaign's counts: cases run per category (one module, imported by the tests and by
the conftest that prints them, so both see the same counter)."""

from __future__ import annotations

from collections import Counter

CASES: Counter[str] = Counter()
VIOLATIONS: Counter[str] = Counter()


def count_case(category: str) -> None:
    CASES[category] += 1
