"""How many cases each fuzz category runs under each Hypothesis profile (issue 12).

The ``fuzz`` profile (``tox -e fuzz``) adds up to more than 10,000 cases; ``ci`` (the ``tests``
environment) keeps the campaign to about a minute on two cores, and ``deep`` (``tox -e deep``) runs
the same counts as ``ci``: the campaign's depth is ``tox -e fuzz``'s.  Cheap categories run more.
"""

from __future__ import annotations

import os
from typing import Final

from hypothesis import HealthCheck, settings

EXAMPLES: Final = {
    "stdio_requests": {"fuzz": 1000, "deep": 100, "ci": 100, "dev": 40},  # per test: four tests
    "cli_argv": {"fuzz": 4000, "deep": 100, "ci": 100, "dev": 30},
    "session_files": {"fuzz": 1200, "deep": 20, "ci": 20, "dev": 10},
    "index_damage": {"fuzz": 800, "deep": 15, "ci": 15, "dev": 8, "soak": 300},
}


def fuzz_settings(category: str) -> settings:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    count = EXAMPLES[category].get(profile, EXAMPLES[category]["dev"])
    return settings(max_examples=count, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
