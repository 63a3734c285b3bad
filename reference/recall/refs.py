"""Opaque, expiring source references (contract §3.2, decisions D10).

A ``sourceRef`` is ``hist_`` + 32 hex from a CSPRNG and means nothing by itself: it is a key into
this in-memory table, owned by one long-lived host process.  A restart forgets every ref.  Refs
live 10 minutes, at most 512 are kept (oldest inserted evicted first, after expired ones), and a
ref presented while another session is active is treated as expired and deleted.  What a ref
points at comes only from the index at recall time, never from the caller.
"""

from __future__ import annotations

import re
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from reference.primitives.clock import Clock

REF_PATTERN: Final = re.compile(r"^hist_[a-f0-9]{32}$")
REF_TTL_MS: Final = 600_000
REF_CAP: Final = 512


@dataclass(frozen=True)
class SourceRef:
    """Everything a read needs, fixed at recall time."""

    ref: str
    session_id: str
    session_file: str
    project_path: str
    entry_id: str
    content_hash: str
    issuing_session_id: str
    expires: int
    scope: str
    kind: str
    role: str | None
    timestamp: int | None
    relation: str
    classification: str
    public_project_id: str
    public_session_id: str
    public_entry_id: str


def _random_ref() -> str:
    return "hist_" + secrets.token_hex(16)


class RefTable:
    """The live refs of one host process."""

    def __init__(self, clock: Clock, *, new_ref: Callable[[], str] = _random_ref) -> None:
        self._clock = clock
        self._new_ref = new_ref
        self._refs: OrderedDict[str, SourceRef] = OrderedDict()

    def __len__(self) -> int:
        return len(self._refs)

    def draft(self, **fields: object) -> SourceRef:
        """A ref valid for ten minutes from now that is not live yet: :meth:`keep` makes it so,
        so a recall spends the 512 places only on the hits it returns (issue 12)."""
        ref = self._new_ref()
        while ref in self._refs:
            ref = self._new_ref()
        return SourceRef(ref=ref, expires=self._clock.now_ms() + REF_TTL_MS, **fields)  # type: ignore[arg-type]

    def keep(self, source: SourceRef) -> None:
        """Make a drafted ref live; expired refs go first, then the oldest."""
        now = self._clock.now_ms()
        for key in [k for k, v in self._refs.items() if v.expires <= now]:
            del self._refs[key]
        while len(self._refs) >= REF_CAP:
            self._refs.popitem(last=False)
        self._refs[source.ref] = source

    def resolve(self, ref: str, current_session_id: str | None) -> SourceRef | None:
        """The live ref, or None (and forgotten) when unknown, expired or issued by another session."""
        source = self._refs.get(ref)
        if source is None:
            return None
        if source.expires <= self._clock.now_ms() or source.issuing_session_id != current_session_id:
            del self._refs[ref]
            return None
        return source

    def raise_classification(self, ref: str, classification: str) -> None:
        """Reads raise a ref's classification, never lower it (the caller passes the max)."""
        source = self._refs.get(ref)
        if source is not None:
            self._refs[ref] = replace(source, classification=classification)
