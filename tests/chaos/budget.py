"""How many runs (Hypothesis examples) the chaos campaign makes per profile.

A run is ``conformance run`` over the 17 rows of PRIM-001 against a chaos port; each of its 17
answers is broken in one way or left clean, so a run exercises about 13.5 port behaviours.
``tox -e chaos`` raises ``CHAOS_RUNS`` to run past 10,000 behaviours; the ``ci`` profile (the
``tests`` environment) makes a few runs, a few dozen behaviours, in under a minute.
"""

from __future__ import annotations

import os
from typing import Final

from hypothesis import HealthCheck, Phase, settings

RUNS: Final = {"deep": 3, "ci": 3, "dev": 2}  # deep (tox -e deep) as ci: depth is tox -e chaos's
#: What `tox -e chaos` (CHAOS_RUNS) must reach: the conftest says whether it did.
BEHAVIOURS_GOAL: Final = 10_000


def chaos_settings() -> settings:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    runs = int(os.environ.get("CHAOS_RUNS") or RUNS.get(profile, RUNS["dev"]))
    # no shrinking: a run takes seconds, and the failing schedule is printed whole
    return settings(max_examples=runs, deadline=None, database=None,
                    phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
