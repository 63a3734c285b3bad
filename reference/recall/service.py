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

import contextlib
import re
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.recall.catchup import catch_up
from reference.recall.catchup_state import IndexState
from reference.recall.envelope import HistoryResult, ReadResult, RecallResult, StatusResult, Unavailable
from reference.recall.history_state import HistoryState, RuntimeUnavailable
from reference.recall.host_facts import HistoryHost
from reference.recall.index_claim import IndexNotOurs
from reference.recall.index_repair import open_repaired, run_repairing
from reference.recall.progress import watching
from reference.recall.read_tool import run_read
from reference.recall.recall_tool import run_recall
from reference.recall.status_tool import run_status

__all__ = ["HistoryHost", "HistoryService"]

Answer = TypeVar("Answer", bound=HistoryResult)

#: Codes that may pass through the safe-error filter (contract §2.4), plus the read codes that
#: the TypeScript service returns directly rather than by exception (§3.6).
_SAFE_CODE: Final = re.compile(
    r"^(invalid-[a-z-]+|source-[a-z-]+|reference-[a-z-]+|range-out-of-bounds|project-scope-disabled"
    r"|project-untrusted|ephemeral-session|privacy-omitted|line-exceeds-output-budget)$"
)


class HistoryService(HistoryState):
    """Recall, read and status over one index, for one host process."""

    def catch_up(self, *, force: bool = False) -> IndexState:
        """Bring the index up to date with the current session (``history index``): the catch-up a
        recall runs, over this service's index, set aside and rebuilt when damaged (D15)."""
        host = self.host
        if not host.session_file:
            raise ContractViolation(Code.EPHEMERAL_SESSION, "the current session has no file on disk")
        session_file = host.session_file

        def index() -> IndexState:
            with contextlib.closing(open_repaired(self.index_path, self.repairs)) as conn:
                return catch_up(conn, session_file, session_id=host.session_id, project_path=host.project_path,
                                force=force)

        with watching(self.progress):  # every catch-up reports to the listener, if any
            return run_repairing(self.index_path, self.repairs, index)

    def recall(self, params: Mapping[str, Any]) -> RecallResult | Unavailable:
        return self._guard(lambda: run_recall(self, params))

    def read(self, params: Mapping[str, Any]) -> ReadResult | Unavailable:
        return self._guard(lambda: run_read(self, params))

    def status(self) -> StatusResult | Unavailable:
        return self._guard(lambda: run_status(self), check_abort=False)

    def call(self, tool: str, arguments: Mapping[str, Any]) -> HistoryResult:
        """The tool ``recall``, ``read`` or ``status`` (which takes no arguments) by its name, as
        the interactive host's ``/tool`` and the adapter's ``history.*`` call it."""
        tools: dict[str, Callable[[Mapping[str, Any]], HistoryResult]] = {
            "recall": self.recall, "read": self.read, "status": lambda _: self.status()}
        return tools[tool](arguments)

    def _enabled(self) -> bool:
        return bool(self.host.config.get("enabled")) and bool(self.history_config.get("enabled"))

    def _guard(self, run: Callable[[], Answer], *, check_abort: bool = True) -> Answer | Unavailable:
        if check_abort and self.host.aborted:
            return Unavailable(Code.ABORTED)
        if not self._enabled():
            return Unavailable(Code.DISABLED)
        try:
            with watching(self.progress):
                return run_repairing(self.index_path, self.repairs, run)
        except RuntimeUnavailable:
            return Unavailable(Code.RUNTIME_UNAVAILABLE)
        except IndexNotOurs:
            return Unavailable(Code.INDEX_NOT_OURS)
        except ContractViolation as exc:
            return Unavailable(exc.code if _SAFE_CODE.match(exc.code) else Code.HISTORY_UNAVAILABLE)
        except (OSError, sqlite3.Error, ValueError):
            return Unavailable(Code.HISTORY_UNAVAILABLE)
