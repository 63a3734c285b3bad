"""The conformance adapter's rebase state (decisions D9, D11): one process's
:class:`RebaseService` on a host built from Pi's files (:mod:`reference.rebase.host`), every fact
settable, and the ``rebase.open/setFacts/run/beforeCompact/crash`` calls.  A crash point is armed
only in a child process: arming it here would end the host itself (exit 91) instead of the
rebase under test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Mapping
from typing import Any, Final

from reference.pi.leaf import DEFAULT_LEAF
from reference.primitives.clock import Clock, SystemClock
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.params import string_param
from reference.rebase.crashpoints import ENV_VAR, checked_point
from reference.rebase.host import apply_facts, build_rebase_host
from reference.rebase.service import RebaseRequest, RebaseService

CHILD_TIMEOUT_S: Final = 120


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
        """One rebase: ``mode`` run (default), dry-run or recover (with ``operationId``); ``layer``
        runtime (default, §6.2 steps 1-3 first) or service (the service called directly).  With
        ``compactDuringActivation`` Pi asks the before-compaction hook while its ``switchSession``
        awaits, and the answers come back as ``compactionAnswers``."""
        service = self.require()
        host = service.host
        host.notifications.clear()
        answers: list[dict[str, Any]] = []

        def ask_hook() -> None:
            answers.append(service.before_compact(signal_aborted=False))

        request = RebaseRequest.from_params(params)
        probing = bool(params.get("compactDuringActivation"))
        if probing:
            host.during_switch.append(ask_hook)
        try:
            result = service.rebase(request, runtime=params.get("layer") != "service").result.to_json()
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
        point = checked_point(params.get("point"))
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


