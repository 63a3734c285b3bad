"""Shared test settings: Hypothesis profiles (``HYPOTHESIS_PROFILE=deep|ci|dev|fuzz|soak``).

Each property states its counts once, ``@examples(deep=N, ci=M)`` (tests/testkit/profiles.py);
the loaded profile picks one: ``ci`` is what tox sets by default, ``deep`` the full counts
(``tox -e deep``), ``dev`` the default outside tox. ``fuzz`` is the campaign's (``tox -e fuzz``):
the fuzz categories size themselves from it (tests/fuzz/budget.py); every other property runs as
under ``ci``."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import settings
from testkit import slow_list
from testkit.profiles import register_profiles

#: The end-of-run summaries, registered here because every process loads this conftest: under
#: pytest-xdist the controller, which prints them, collects nothing and never loads a folder's own.
pytest_plugins = ("chaos.tally", "fuzz.tally", "testkit.pi_oracle_tally", "testkit.wrong_path_grid")

register_profiles()
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


#: The measured slow test functions (tools/slow_tests.py writes it; docs/testing.md).
SLOW_LIST = Path(__file__).with_name("slow.txt")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``slow`` the functions ``tests/slow.txt`` lists: ``tox -e quick`` leaves them out.

    Under pytest-xdist, the modules with the most measured seconds go first (each module's tests
    kept together and in order): a long test that starts last leaves the other core idle while
    it runs, and worksteal can move queued tests but not split a running one."""
    slow = slow_list.read(SLOW_LIST.read_text(encoding="utf-8"))
    weight: dict[str, float] = defaultdict(float)
    for item in items:
        function = item.nodeid.split("[", 1)[0]
        if function in slow:
            item.add_marker(pytest.mark.slow)
            weight[function.split("::", 1)[0]] += slow[function]
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker sorts alike: the order is the list's
        items.sort(key=lambda item: -weight.get(item.nodeid.split("::", 1)[0], 0.0))
