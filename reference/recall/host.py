"""A host for the history tools (decisions D9, D10): builds a :class:`HistoryService` from the
facts Pi would give it, and keeps it alive so references survive between calls.

Used by the conformance adapter (with a manual clock), the interactive ``recall-rebase host`` and
the one-shot ``recall-rebase history`` commands (with the system clock).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from reference.config.layering import load_config
from reference.pi.exact.inspection import describe_session
from reference.pi.exact.reader import read_header_line
from reference.pi.exact.session import SessionFile, load_session
from reference.pi.host.facts import resolve_host
from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.primitives.clock import Clock, ManualClock
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import MAX_SAFE_INTEGER
from reference.primitives.params import bool_param, safe_integer_param, string_param
from reference.recall.index_schema import default_index_path
from reference.recall.service import HistoryHost, HistoryService
from reference.recall.warm_facts import warm_session_facts


def _session_id_of(session_file: str) -> str | None:
    """The header id, as Pi's session manager knows it; None when the file is not a session."""
    try:
        value = read_header_line(session_file).get("id")
    except (OSError, ValueError):
        return None
    return value if isinstance(value, str) else None


def provider_at_leaf(session: SessionFile, leaf: Leaf) -> str | None:
    """The current model provider at the leaf, from Pi's context settings (privacy egress)."""
    try:
        report = describe_session(session, leaf)
    except ContractViolation:
        return None
    model = (report.get("settings") or {}).get("model")
    provider = model.get("provider") if isinstance(model, dict) else None
    return provider if isinstance(provider, str) else None


def session_facts(
    session_file: str | None, leaf: Leaf, provider: str | None, index_path: str | None = None
) -> tuple[str | None, str | None]:
    """The current session's header id and the model provider at the leaf (the given one, else
    Pi's at the leaf).  From the index at ``index_path`` when it is up to date with the file
    (:mod:`reference.recall.warm_facts`), else from one read of the file: the header id is the
    loaded header's when the header is the file's first line, else the first line's as
    :func:`_session_id_of` reads it."""
    if not session_file or not os.path.isfile(session_file):
        return None, provider
    if provider is not None:
        return _session_id_of(session_file), provider
    if index_path is not None:
        warm = warm_session_facts(session_file, leaf, index_path)
        if warm is not None:
            return warm
    return full_session_facts(session_file, leaf)


def full_session_facts(session_file: str, leaf: Leaf) -> tuple[str | None, str | None]:
    """:func:`session_facts` by parsing the whole file (the path the warm facts must equal)."""
    try:
        session = load_session(session_file)
    except ContractViolation:
        return _session_id_of(session_file), None
    provider = provider_at_leaf(session, leaf)
    if session.header_record.start != 0:
        return _session_id_of(session_file), provider
    value = session.header.get("id")
    return (value if isinstance(value, str) else None), provider


def build_host(
    *,
    home: str,
    cwd: str,
    env: Mapping[str, str],
    argv: Sequence[str],
    session_file: str | None,
    leaf: Leaf = DEFAULT_LEAF,
    provider: str | None = None,
    index_path: str | None = None,
) -> tuple[HistoryHost, str]:
    """Host facts and configuration as loaded at session start; the default index path.  The
    session facts come from the index the host will use (``index_path``, else the default) when
    it is up to date with the session file."""
    facts = resolve_host(home=home, cwd=cwd, env=env, argv=argv)
    loaded = load_config(global_path=facts.global_config_path, project_path=facts.project_config_path,
                         project_trusted=facts.project_trusted)
    default_path = default_index_path(facts.agent_dir)
    session_id, provider = session_facts(session_file, leaf, provider, index_path or default_path)
    host = HistoryHost(
        session_file=session_file,
        project_path=cwd,
        project_trusted=facts.project_trusted,
        config=loaded.config,
        provider=provider,
        leaf=leaf,
        session_id=session_id,
    )
    return host, default_path


class HistoryHostState:
    """One process's history host: the service (and its refs) outlive single requests."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or ManualClock(0)
        self.service: HistoryService | None = None

    def open(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Start (or switch) the current session; refs survive unless ``restart`` is true."""
        leaf = params.get("leaf", DEFAULT_LEAF)
        requested = params.get("indexPath")
        host, default_path = build_host(
            home=string_param(params, "home"),
            cwd=string_param(params, "cwd"),
            env=params.get("env") or {},
            argv=params.get("argv") or (),
            session_file=params.get("sessionFile"),
            leaf=leaf,
            provider=params.get("provider"),
            index_path=requested if isinstance(requested, str) and requested else None,
        )
        index_path = requested or default_path
        if self.service is None or params.get("restart") or self.service.index_path != index_path:
            self.service = HistoryService(host, index_path=str(index_path), clock=self.clock)
        else:
            self.service.host = host
        return {"sessionId": host.session_id, "indexPath": str(index_path), "provider": host.provider}

    def require(self) -> HistoryService:
        if self.service is None:
            raise ContractViolation(Code.INVALID_PARAMS, "history.open must come first")
        return self.service

    def set_leaf(self, params: Mapping[str, Any]) -> dict[str, Any]:
        self.require().host.leaf = params.get("leaf", DEFAULT_LEAF)
        return {}

    def set_provider(self, params: Mapping[str, Any]) -> dict[str, Any]:
        self.require().host.provider = params.get("provider")
        return {}

    def set_aborted(self, params: Mapping[str, Any]) -> dict[str, Any]:
        self.require().host.aborted = bool_param(params, "aborted")
        return {}

    def restart(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """A host restart: the same host facts, a new process, so every ref is forgotten."""
        service = self.require()
        self.service = HistoryService(service.host, index_path=service.index_path, clock=self.clock)
        return {}

    def context_event(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Pi's context event: the egress sanitizer runs first, for the current provider and the
        loaded configuration, whatever ``enabled`` and ``privacy.enabled`` say (contract §6.15)."""
        from reference.privacy.egress_hooks import context_event

        host = self.require().host
        return {"messages": context_event(params.get("messages"), provider=host.provider, config=host.config)}

    def provider_request(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``before_provider_request``: the final payload as it may leave, ``{}`` if unchecked."""
        from reference.privacy.egress_hooks import provider_payload

        host = self.require().host
        return {"payload": provider_payload(params.get("payload"), provider=host.provider, config=host.config)}

    def clock_set(self, params: Mapping[str, Any]) -> dict[str, Any]:
        now = safe_integer_param(params, "nowMs")
        clock = self._manual()
        clock.set(now)
        return {"nowMs": clock.now}

    def clock_advance(self, params: Mapping[str, Any]) -> dict[str, Any]:
        delta = safe_integer_param(params, "ms")
        clock = self._manual()
        if clock.now + delta > MAX_SAFE_INTEGER:
            raise ContractViolation(Code.INVALID_PARAMS, f"the clock would pass {MAX_SAFE_INTEGER} ms")
        clock.advance(delta)
        return {"nowMs": clock.now}

    def _manual(self) -> ManualClock:
        if not isinstance(self.clock, ManualClock):
            raise ContractViolation(Code.INVALID_PARAMS, "this host runs on the system clock")
        return self.clock


