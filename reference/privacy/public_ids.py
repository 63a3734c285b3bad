"""Ids as history results show them (contract §2.7 step 6): session and entry ids shown as is
only when safe, else opaque; the unsalted project id."""

from __future__ import annotations

import re
from typing import Final

from reference.primitives.textunits import sha256_text
from reference.privacy.entry import EntryFindings
from reference.privacy.policy import LEVELS, ProviderPolicy
from reference.privacy.sanitizer import history_sanitize

_PUBLIC_ID: Final = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


def public_id(value: str, *, policy: ProviderPolicy | None = None, findings: EntryFindings | None = None) -> str:
    """A session or entry id as results show it (contract §2.7 step 6).

    Shown as is when it matches ``^[A-Za-z0-9_.:-]{1,128}$`` and the history sanitizer at
    ``normal`` leaves it unchanged and not omitted (so an id that looks like a credential is
    hidden); otherwise ``opaque_`` + 24 hex of its SHA-256.  ``policy`` is the current
    provider's (upstream sanitizes the id for it); None means one that accepts ``normal``.
    ``findings``: the history service's, which remembers the answer for short ids (a project
    recall shows a thousand entry ids, the same ones again when a query is asked again).
    """
    policy = policy or _LOCAL
    if findings is None or len(value) > 128:  # an id that long is never shown as is
        return _public_id(value, policy)
    return findings.public_id(value, policy, _public_id)


_LOCAL: Final = ProviderPolicy("local", "local", LEVELS)


def _public_id(value: str, policy: ProviderPolicy) -> str:
    if _PUBLIC_ID.fullmatch(value):
        safe = history_sanitize(value, stored="normal", policy=policy, privacy_config={})
        if not safe.omitted and safe.text == value:
            return value
    return "opaque_" + sha256_text(value)[:24]


def project_id(canonical_project_path: str) -> str:
    """``projectId``: the first 20 hex of SHA-256 of the canonical project path (unsalted)."""
    return sha256_text(canonical_project_path)[:20]
