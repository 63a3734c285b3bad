"""Shared test settings: Hypothesis profiles (``HYPOTHESIS_PROFILE=ci|dev|soak|fuzz``).

``fuzz`` is the campaign's (``tox -e fuzz``): the fuzz categories size themselves from it
(tests/fuzz/budget.py); every other property runs as under ``ci``."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

#: The end-of-run summaries, registered here because every process loads this conftest: under
#: pytest-xdist the controller, which prints them, collects nothing and never loads a folder's own.
pytest_plugins = ("chaos.tally", "fuzz.tally", "testkit.pi_oracle_tally", "testkit.wrong_path_grid")

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile("fuzz", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("soak", max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
