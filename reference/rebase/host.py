"""A host for the session rebase (decisions D9, D11): builds a :class:`RebaseService` from the
facts Pi would give it and keeps it for one process, as ``history_host`` does for recall.

Used by the conformance adapter (every fact settable), the interactive ``recall-rebase host`` and
the one-shot ``recall-rebase rebase`` command.  A crash point is armed only in a child process:
arming it here would end the host itself (exit 91) instead of the rebase under test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final

from reference.artifacts.phases import CRASH_POINTS
from reference.config.layering import load_config
from reference.pi.host.facts import resolve_host
from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.primitives.clock import Clock, SystemClock
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.params import string_param
from reference.rebase.crashpoints import ENV_VAR
from reference.rebase.service import RebaseService
from reference.rebase.session_host import ACTIVATIONS, RebaseHost
from reference.recall.index_schema import default_index_path

#: Host facts a caller may set, by protocol name.
FACTS: Final = {
    "leaf": "leaf",
    "idle": "idle",
    "pendingMessages": "pending_messages",
    "compactionActive": "compaction_active",
    "memoryBridge": "memory_bridge",
    "runtimeAvailable": "runtime_available",
    "activation": "activation",
    "sessionId": "session_id",
}
CHILD_TIMEOUT_S: Final = 120


def build_rebase_host(
    *, home: str, cwd: str, env: Mapping[str, str], argv: Sequence[str], session_file: str | None, leaf: Leaf = DEFAULT_LEAF,
) -> tuple[RebaseHost, str]:
    """Host facts and configuration as loaded at session start; the default projection index."""
    facts = resolve_host(home=home, cwd=cwd, env=env, argv=argv)
    loaded = load_config(global_path=facts.global_config_path, project_path=facts.project_config_path,
                         project_trusted=facts.project_trusted)
    host = RebaseHost(session_file=session_file, project_path=cwd, project_trusted=facts.project_trusted,
                      config=loaded.config, leaf=leaf)
    return host, default_index_path(facts.agent_dir)


def apply_facts(host: RebaseHost, params: Mapping[str, Any]) -> None:
    for name, attribute in FACTS.items():
        if name in params:
            setattr(host, attribute, params[name])
    if host.activation not in ACTIVATIONS:
        raise ContractViolation(Code.INVALID_PARAMS, f"activation must be one of {', '.join(ACTIVATIONS)}")


def run_mode(service: RebaseService, params: Mapping[str, Any]) -> dict[str, Any]:
    """``mode``: run (default), dry-run or recover (with ``operationId``); ``layer``: runtime
    (default, §6.2 steps 1-3 first) or service (the rebase service called directly)."""
    mode = params.get("mode", "run")
    if mode not in ("run", "dry-run", "recover"):
        raise ContractViolation(Code.INVALID_PARAMS, "mode must be run, dry-run or recover")
    recover = params.get("operationId") if mode == "recover" else None
    if mode == "recover" and not isinstance(recover, str):
        raise ContractViolation(Code.INVALID_PARAMS, "recover needs an operationId string")
    call = service.run if params.get("layer") == "service" else service.rebase_session
    return call(dry_run=mode == "dry-run", recover=recover)


class RebaseHostState:
    """One process's rebase host: the service and its in-process ``active`` flag."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or SystemClock()
        self.service: RebaseService | None = None
        self.opened: dict[str, Any] = {}

    def open(self, params: Mapping[str, Any]) -> dict[str, Any]:
        host, default_index = build_rebase_host(
            home=string_param(params, "home"), cwd=string_param(params, "cwd"), env=params.get("env") or {},
            argv=params.get("argv") or (), session_file=params.get("sessionFile"), leaf=params.get("leaf", DEFAULT_LEAF))
        apply_facts(host, params)
        index_path = params.get("indexPath") or default_index
        given = list(params.get("targetSessionIds") or ())

        def new_id() -> str:
            """The scenario's ids in order, then random UUIDs as Pi would draw them."""
            return str(given.pop(0)) if given else str(uuid.uuid4())

        self.service = RebaseService(host, clock=self.clock, index_path=str(index_path), new_session_id=new_id)
        self.opened = dict(params)
        return {"indexPath": str(index_path)}

    def require(self) -> RebaseService:
        if self.service is None:
            raise ContractViolation(Code.INVALID_PARAMS, "rebase.open must come first")
        return self.service

    def set_facts(self, params: Mapping[str, Any]) -> dict[str, Any]:
        apply_facts(self.require().host, params)
        return {}

    def run(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """One rebase; with ``compactDuringActivation`` Pi asks the before-compaction hook while
        its ``switchSession`` awaits, and the answers come back as ``compactionAnswers``."""
        service = self.require()
        host = service.host
        host.notifications.clear()
        answers: list[dict[str, Any]] = []

        def ask_hook() -> None:
            answers.append(service.before_compact(signal_aborted=False))

        probing = bool(params.get("compactDuringActivation"))
        if probing:
            host.during_switch.append(ask_hook)
        try:
            result = run_mode(service, params)
        finally:
            if probing:
                host.during_switch.remove(ask_hook)
        response = {"result": result, "notifications": [{"level": level, "message": message}
                                                        for level, message in host.notifications],
                    "currentSession": host.session_file}
        if probing:
            response["compactionAnswers"] = answers
        return response

    def before_compact(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Pi's ``session_before_compact``, ``signalAborted`` saying whether its abort signal fired."""
        aborted = params.get("signalAborted", False)
        if not isinstance(aborted, bool):
            raise ContractViolation(Code.INVALID_PARAMS, "signalAborted must be a boolean")
        return self.require().before_compact(signal_aborted=aborted)

    def crash(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Run ``recall-rebase rebase`` in a child process with the crash point armed (D11)."""
        service = self.require()
        point = params.get("point")
        if point not in CRASH_POINTS:
            raise ContractViolation(Code.INVALID_CRASH_POINT, f"crash point must be one of {', '.join(CRASH_POINTS)}")
        opened, host = self.opened, service.host
        env = {**os.environ, **(opened.get("env") or {}), "HOME": string_param(opened, "home"), ENV_VAR: point}
        # The child runs in the project folder: put this checkout on its path (an installed wheel
        # would be found anyway), or ``-m reference.cli`` is not importable there.
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        command = [sys.executable, "-m", "reference.cli", "rebase", "--session", str(host.session_file),
                   "--cwd", string_param(opened, "cwd"), "--index", str(service.index_path), "--json",
                   *(opened.get("argv") or ())]
        if host.leaf is not DEFAULT_LEAF:
            command += ["--leaf", str(host.leaf)]
        if params.get("operationId"):
            command += ["--recover", str(params["operationId"])]
        done = subprocess.run(command, cwd=string_param(opened, "cwd"), env=env, capture_output=True, text=True,
                              timeout=CHILD_TIMEOUT_S, check=False)
        return {"exitCode": done.returncode, "stderr": done.stderr[-2000:]}


