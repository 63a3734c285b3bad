"""Which classifications the current model provider may receive (contract §2.10 step 4).

As upstream ``providerPrivacyPolicy``: local providers get every level, a remote one its own
list or the default list, and ``local-only`` never leaves for a remote provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from reference.config.defaults import default_config
from reference.primitives.jsonbytes import property_order
from reference.primitives.jsvalues import trim
from reference.privacy.policy import LEVELS

UNKNOWN_PROVIDER: Final = "unknown"


@dataclass(frozen=True)
class ProviderPolicy:
    """Which classifications the current model provider may receive (contract §2.10 step 4)."""

    provider: str
    destination: Literal["local", "remote"]
    allowed: tuple[str, ...]

    @classmethod
    def from_config(cls, privacy_config: Mapping[str, Any], provider: str | None) -> ProviderPolicy:
        """Local providers get all four levels; a remote one its own list or the default list.

        Names compare trimmed and lower-cased; no provider (or an empty name) is ``unknown``,
        which is remote unless configured as local.
        """
        name = provider or UNKNOWN_PROVIDER
        key = trim(name).lower()
        defaults = default_config()["privacy"]
        local = privacy_config.get("localProviders", defaults["localProviders"])
        if any(isinstance(item, str) and trim(item).lower() == key for item in local):
            return cls(name, "local", LEVELS)
        remote = privacy_config.get("remoteProviders", defaults["remoteProviders"])
        rule = next((allowed for item, allowed in property_order(remote) if trim(item).lower() == key), None)
        if rule is None:
            rule = privacy_config.get("remoteDefaultAllowed", defaults["remoteDefaultAllowed"])
        return cls(name, "remote", tuple(level for level in LEVELS if level in rule))

    def allows(self, level: str) -> bool:
        """Whether content of ``level`` may go to this provider; ``local-only`` never leaves."""
        return level in self.allowed and not (self.destination == "remote" and level == "local-only")
