"""The Hypothesis profiles, and the one place each property states how many examples it runs.

A property is decorated with ``@examples(deep=N, ci=M)``: ``deep`` is its full count (what
``tox -e deep`` runs, nightly or by hand), ``ci`` the count measured to fit about a second (what
``tox -e tests`` runs); docs/testing-hypothesis.md has the measurements and the rule. A state
machine states its steps the same way: ``examples(deep=N, ci=M, steps=Steps(deep=S, ci=T))``.
Nothing else in tests/ names ``max_examples`` (tests/lint/test_property_counts.py holds the rule);
the fuzz and chaos campaigns size themselves in their own budget.py.

Under each profile (``HYPOTHESIS_PROFILE``, loaded by tests/conftest.py) a property runs:

========  =====================================================================
``deep``  its deep count
``ci``    its ci count
``fuzz``  its ci count (the profile sizes the fuzz campaign, tests/fuzz/budget.py)
``dev``   its ci count, at most ``DEV_EXAMPLES`` (the default outside tox)
``soak``  ``SOAK_FACTOR`` times its deep count (steps: the deep count)
========  =====================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from hypothesis import HealthCheck, settings

DEV_EXAMPLES: Final = 50
#: soak's multiple of the deep count: 5,000 examples for a property at 200, 500 state machines at 20
SOAK_FACTOR: Final = 25
PROFILES: Final = ("deep", "ci", "fuzz", "dev", "soak")


class CountsOutOfOrder(ValueError):
    """A property's ci count is above its deep count, or a count is not positive."""


class CountInOptions(TypeError):
    """A count was passed to ``examples`` as a plain setting instead of as ``deep=``/``ci=``/``steps=``."""


class UnknownProfile(LookupError):
    """The loaded Hypothesis profile is none of ``PROFILES``: no count is defined for it."""


@dataclass(frozen=True)
class Counts:
    """How many examples a property runs at full depth (``deep``) and in the fast run (``ci``)."""

    #: how many times the deep count ``soak`` runs
    soak_factor: ClassVar[int] = SOAK_FACTOR
    deep: int
    ci: int

    def __post_init__(self) -> None:
        if not 0 < self.ci <= self.deep:
            raise CountsOutOfOrder(f"need 0 < ci <= deep, got deep={self.deep}, ci={self.ci}")

    def under(self, profile: str) -> int:
        """The count that runs under ``profile``."""
        if profile == "deep":
            return self.deep
        if profile in ("ci", "fuzz"):
            return self.ci
        if profile == "dev":
            return min(self.ci, DEV_EXAMPLES)
        if profile == "soak":
            return self.deep * self.soak_factor
        raise UnknownProfile(f"no example count for Hypothesis profile {profile!r}; known: {', '.join(PROFILES)}")


@dataclass(frozen=True)
class Steps(Counts):
    """How many steps each example of a state machine takes; ``soak`` takes the deep count."""

    soak_factor: ClassVar[int] = 1


def register_profiles() -> None:
    """Register every profile; ``max_examples`` here only sizes a property without ``examples``."""
    quiet = [HealthCheck.too_slow]
    settings.register_profile("deep", max_examples=200, deadline=None, suppress_health_check=quiet)
    settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=quiet)
    settings.register_profile("fuzz", max_examples=200, deadline=None, suppress_health_check=quiet)
    settings.register_profile("dev", max_examples=DEV_EXAMPLES, deadline=None)
    settings.register_profile("soak", max_examples=200 * SOAK_FACTOR, deadline=None,
                              suppress_health_check=list(HealthCheck))


def examples(*, deep: int, ci: int, steps: Steps | None = None, **options: Any) -> settings:
    """The settings of one property: its example count (and steps) under the loaded profile.

    ``options`` are any other Hypothesis settings of the property (``deadline``,
    ``suppress_health_check``, ...); they must not name a count.
    """
    counted = {"max_examples", "stateful_step_count"} & options.keys()
    if counted:
        raise CountInOptions(f"state {', '.join(sorted(counted))} as deep= and ci= (or steps=), not as a setting")
    profile = settings.get_current_profile_name()
    if steps is not None:
        options["stateful_step_count"] = steps.under(profile)
    return settings(max_examples=Counts(deep=deep, ci=ci).under(profile), **options)
