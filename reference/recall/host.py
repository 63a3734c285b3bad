"""The front door of the history tools (decisions D9, D10): :func:`open_history` builds a
:class:`HistoryService` from the facts Pi would give it; :class:`HistoryHostState` keeps one alive
so references survive between calls.

Used alike by the conformance adapter (with a manual clock), the interactive ``recall-rebase
host`` and the one-shot ``recall-rebase history`` commands (with the system clock).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference.config.layering import load_host_config
from reference.pi.host.facts import resolve_host
from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.primitives.clock import Clock, ManualClock
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import MAX_SAFE_INTEGER
from reference.primitives.params import string_param
from reference.recall.index_schema import default_index_path
from reference.recall.model_facts import header_id
from reference.recall.progress import CatchUpListener
from reference.recall.service import HistoryHost, HistoryService


@dataclass(frozen=True)
class HistoryOpening:
    """What opens one host's history, as the CLI, the interactive host and the adapter's
    ``history.open`` give it: the host facts, the session file, the leaf (absent: Pi's rule), the
    provider (absent: Pi's at the leaf), the index (absent or empty: the default one) and, for the
    adapter, whether refs are forgotten."""

    home: str
    cwd: str
    env: Mapping[str, str]
    argv: Sequence[str]
    session_file: str | None
    leaf: Leaf = DEFAULT_LEAF
    provider: str | None = None
    index_path: str | None = None
    restart: bool = False

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> HistoryOpening:
        """``history.open``'s parameters, read once at the adapter's edge as the schema sends them."""
        requested = params.get("indexPath")
        return cls(home=string_param(params, "home"), cwd=string_param(params, "cwd"), env=params.get("env") or {},
                   argv=params.get("argv") or (), session_file=params.get("sessionFile"),
                   leaf=params.get("leaf", DEFAULT_LEAF), provider=params.get("provider"),
                   index_path=requested if isinstance(requested, str) and requested else None,
                   restart=bool(params.get("restart")))


def open_history(opening: HistoryOpening, *, session_id: str | None = None, clock: Clock | None = None,
                 progress: CatchUpListener | None = None) -> HistoryService:
    """The history of one host: its facts and configuration as loaded at session start, over the
    index ``opening`` names (else the default one); ``progress`` hears every catch-up.

    The session's header id is ``session_id`` when the caller has read it from the file (the
    command line's checks), else it is read now; the provider is the given one, else Pi's at the leaf,
    found at the first tool call that needs it, from the index that call has caught up (else by
    reading the file).  :meth:`HistoryService.settle_provider` finds it at once instead.
    """
    facts = resolve_host(home=opening.home, cwd=opening.cwd, env=opening.env, argv=opening.argv)
    loaded = load_host_config(facts)
    session_file, provider = opening.session_file, opening.provider
    on_disk = bool(session_file) and os.path.isfile(session_file or "")
    if not on_disk:
        session_id = None
    elif session_id is None:
        session_id = header_id(session_file or "")
    host = HistoryHost(session_file=session_file, project_path=opening.cwd, project_trusted=facts.project_trusted,
                       config=loaded.config, provider=provider, leaf=opening.leaf, session_id=session_id,
                       provider_at_leaf=provider is None and on_disk)
    return HistoryService(host, index_path=opening.index_path or default_index_path(facts.agent_dir), clock=clock,
                          progress=progress)


class HistoryHostState:
    """One process's history host: the service (and its refs) outlive single requests."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or ManualClock(0)
        self.service: HistoryService | None = None

    def open(self, opening: HistoryOpening) -> HistoryService:
        """Start (or switch) the current session; refs survive unless ``restart`` is true."""
        opened = open_history(opening, clock=self.clock)
        opened.settle_provider()  # the open answers it
        if self.service is None or opening.restart or self.service.index_path != opened.index_path:
            self.service = opened
        else:
            self.service.host = opened.host
        return self.service

    def require(self) -> HistoryService:
        if self.service is None:
            raise ContractViolation(Code.INVALID_PARAMS, "history.open must come first")
        return self.service

    def restart(self) -> None:
        """A host restart: the same host facts, a new process, so every ref is forgotten."""
        service = self.require()
        self.service = HistoryService(service.host, index_path=service.index_path, clock=self.clock)

    def set_clock(self, now: int) -> int:
        """``clock.set``: the manual clock at ``now`` ms."""
        clock = self._manual()
        clock.set(now)
        return clock.now

    def advance_clock(self, delta: int) -> int:
        """``clock.advance``: the manual clock ``delta`` ms on, never past 2^53-1."""
        clock = self._manual()
        if clock.now + delta > MAX_SAFE_INTEGER:
            raise ContractViolation(Code.INVALID_PARAMS, f"the clock would pass {MAX_SAFE_INTEGER} ms")
        clock.advance(delta)
        return clock.now

    def _manual(self) -> ManualClock:
        if not isinstance(self.clock, ManualClock):
            raise ContractViolation(Code.INVALID_PARAMS, "this host runs on the system clock")
        return self.clock
