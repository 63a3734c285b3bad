"""The three history tools: ``context_history_recall``, ``context_history_read`` and
``context_history_status`` (contract §2–§4, decisions D4–D7, D10).

One :class:`HistoryService` lives in one host process with its reference table and clock.  The
host (decisions D9) supplies the facts Pi would: the current session file and leaf, the project
path and trust, the model provider and the configuration loaded at session start.  Every
failure is fail-open for the conversation: a content-free envelope with one code.  The tools
themselves are ``recall_tool``, ``read_tool`` and ``status_tool``; the scope they share is
``scope``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.primitives.clock import Clock, SystemClock
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.recall import envelope as env
from reference.recall.index_claim import IndexNotOurs
from reference.recall.index_repair import open_repaired, run_repairing
from reference.recall.read_tool import run_read
from reference.recall.recall_tool import run_recall
from reference.recall.refs import RefTable
from reference.recall.scope import ScopeResolver
from reference.recall.status_tool import run_status

#: Codes that may pass through the safe-error filter (contract §2.4), plus the read codes that
#: the TypeScript service returns directly rather than by exception (§3.6).
_SAFE_CODE: Final = re.compile(
    r"^(invalid-[a-z-]+|source-[a-z-]+|reference-[a-z-]+|range-out-of-bounds|project-scope-disabled"
    r"|project-untrusted|ephemeral-session|privacy-omitted|line-exceeds-output-budget)$"
)


@dataclass
class HistoryHost:
    """What Pi knows and a Python process does not (D9), as the host sets it."""

    session_file: str | None
    project_path: str
    project_trusted: bool
    config: Mapping[str, Any]
    provider: str | None = None
    leaf: Leaf = DEFAULT_LEAF  # Pi's rule (last entry in file order), None, or an entry id
    session_id: str | None = None
    aborted: bool = False


class HistoryService:
    """Recall, read and status over one index, for one host process."""

    def __init__(self, host: HistoryHost, *, index_path: str, clock: Clock | None = None) -> None:
        self.host = host
        self.index_path = index_path
        self.clock = clock or SystemClock()
        self.refs = RefTable(self.clock)
        self.scopes = ScopeResolver()
        #: One warning line per corrupt index this service set aside and rebuilt (D15).
        self.repairs: list[str] = []

    @property
    def history_config(self) -> Mapping[str, Any]:
        section: Mapping[str, Any] = self.host.config["historyTools"]
        return section

    def recall(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return self._guard(lambda: run_recall(self, params))

    def read(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return self._guard(lambda: run_read(self, params))

    def status(self) -> dict[str, Any]:
        return self._guard(lambda: run_status(self), check_abort=False)

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The index, opened for one tool call; the read snapshot of a scope ends with it."""
        try:
            conn = open_repaired(self.index_path, self.repairs)
        except IndexNotOurs:
            raise  # its own code, never runtime-unavailable (docs/index.md I14)
        except (OSError, sqlite3.Error, ContractViolation) as exc:
            raise _RuntimeUnavailable(str(exc)) from None
        try:
            yield conn
        finally:
            if conn.in_transaction:  # the read snapshot of ScopeResolver.resolve
                conn.execute("ROLLBACK")
            conn.close()

    def _enabled(self) -> bool:
        return bool(self.host.config.get("enabled")) and bool(self.history_config.get("enabled"))

    def _guard(self, run: Callable[[], dict[str, Any]], *, check_abort: bool = True) -> dict[str, Any]:
        if check_abort and self.host.aborted:
            return env.unavailable(Code.ABORTED)
        if not self._enabled():
            return env.unavailable(Code.DISABLED)
        try:
            return run_repairing(self.index_path, self.repairs, run)
        except _RuntimeUnavailable:
            return env.unavailable(Code.RUNTIME_UNAVAILABLE)
        except IndexNotOurs:
            return env.unavailable(Code.INDEX_NOT_OURS)
        except ContractViolation as exc:
            return env.unavailable(exc.code if _SAFE_CODE.match(exc.code) else Code.HISTORY_UNAVAILABLE)
        except (OSError, sqlite3.Error, ValueError):
            return env.unavailable(Code.HISTORY_UNAVAILABLE)


class _RuntimeUnavailable(Exception):
    """The index cannot be opened: ``runtime-unavailable``."""
