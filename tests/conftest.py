"""Shared test settings: Hypothesis profiles (``HYPOTHESIS_PROFILE=deep|ci|dev|fuzz|soak``).

Each property states its counts once, ``@examples(deep=N, ci=M)`` (tests/testkit/profiles.py);
the loaded profile picks one: ``ci`` is what tox sets by default, ``deep`` the full counts
(``tox -e deep``), ``dev`` the default outside tox. ``fuzz`` is the campaign's (``tox -e fuzz``):
the fuzz categories size themselves from it (tests/fuzz/budget.py); every other property runs as
under ``ci``."""

from __future__ import annotations

import os

from hypothesis import settings
from testkit.profiles import register_profiles

register_profiles()
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
