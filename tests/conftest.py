"""Shared test settings: Hypothesis profiles (``HYPOTHESIS_PROFILE=ci|dev|soak|fuzz``).

``fuzz`` is the campaign's (``tox -e fuzz``): the fuzz categories size themselves from it
(tests/fuzz/budget.py); every other property runs as under ``ci``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile("fuzz", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("soak", max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


#: The measured slow test functions (tools/slow_tests.py writes it; docs/testing.md).
SLOW_LIST = Path(__file__).with_name("slow.txt")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``slow`` the functions ``tests/slow.txt`` lists: ``tox -e quick`` leaves them out."""
    listed = {line.split("#", 1)[0].strip() for line in SLOW_LIST.read_text(encoding="utf-8").splitlines()}
    for item in items:
        if item.nodeid.split("[", 1)[0] in listed:
            item.add_marker(pytest.mark.slow)
