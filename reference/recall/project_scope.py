"""The sibling sessions of project scope (contract §2.5 step 4), and what a host process
remembers of them between recalls.

A project recall names up to ``maxProjectSessions`` session files of the current session's
folder; each must carry a header naming the project and must be caught up.  Asking the catch-up
of a hundred unchanged files costs more than the search (key counts and a checkpoint hash
each), so a host process remembers, per file, the header it read and the index state the last
catch-up left, under the file's stat (device, inode, size, modification and status-change
times).  A file whose stat and stored index state are both unchanged is not asked again: on
POSIX any write to it moves its status-change time, and any catch-up by any process changes
its state row.  What is then not re-checked is damage to the index made by hand with the state
row left as it was (rows or locators deleted); a new process, or any change of the file, checks
again.  On Windows, where the status-change time is the creation time, nothing is remembered.
"""

from __future__ import annotations

import os
import sqlite3
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference.pi.exact.reader import read_header_line
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.identity import remembers_by_stat, stat_identity
from reference.primitives.platform_ops.paths import canonical_path
from reference.primitives.sqlite_errors import is_damage
from reference.recall.catchup import catch_up
from reference.recall.catchup_state import IndexState, index_state
from reference.recall.host_facts import HistoryHost

#: Files remembered (least recently used out first): a few projects' worth.
_KNOWN_FILES: Final = 4096


@dataclass
class _KnownFile:
    """One file's stat, the header facts read under it, and the index state its last catch-up
    left (None: not caught up under this stat): the rows are a projection of the file that state
    describes, whichever process or index incarnation caught it up."""

    stat: tuple[int, ...]
    session_id: Any
    cwd: Any
    caught_up: IndexState | None = None


class ProjectSessions:
    """The project's other sessions for one host process (``ScopeResolver``)."""

    def __init__(self, *, remember: bool = remembers_by_stat()) -> None:
        self._remember = remember
        self._files: OrderedDict[str, _KnownFile] = OrderedDict()

    def sessions(self, conn: sqlite3.Connection, host: HistoryHost, current: tuple[str, str],
                 warnings: list[str]) -> list[tuple[str, str]]:
        """The project's other sessions, caught up: ``(session_id, session_file)`` in order."""
        history_config: Mapping[str, Any] = host.config["historyTools"]
        if not history_config.get("allowProjectScope"):
            raise ContractViolation(Code.PROJECT_SCOPE_DISABLED, "project scope is not allowed by the configuration")
        if not host.project_trusted:
            raise ContractViolation(Code.PROJECT_UNTRUSTED, "project scope needs a trusted project")
        session_file, session_id = current
        names = sibling_files(session_file, warnings)
        if names is None:
            return []
        cap = int(history_config["maxProjectSessions"])
        if len(names) > cap:
            warnings.append(Code.PROJECT_DISCOVERY_LIMIT)
        project = canonical_path(host.project_path)
        found: list[tuple[str, str]] = []
        for path in names[:cap]:
            try:
                known = self._header(path)
                other_id, cwd = known.session_id, known.cwd
                if not isinstance(other_id, str) or not isinstance(cwd, str):
                    continue
                if other_id == session_id or canonical_path(cwd) != project:
                    continue
                state = index_state(conn, other_id)
                if state is None or known.caught_up != state:
                    catch_up(conn, path, session_id=other_id, project_path=host.project_path)
                    known.caught_up = index_state(conn, other_id)
                found.append((other_id, path))
            except (ContractViolation, OSError, sqlite3.Error, ValueError) as error:
                self._files.pop(path, None)
                if is_damage(error):
                    raise
                warnings.append(Code.PROJECT_SOURCE_UNAVAILABLE)
        return found

    def _header(self, path: str) -> _KnownFile:
        """The file's header facts, read again only when its stat changed."""
        info = os.stat(path)
        stat = stat_identity(info)
        known = self._files.get(path)
        if known is None or known.stat != stat:
            header = read_header_line(path)
            known = _KnownFile(stat, header.get("id"), header.get("cwd"))
            if self._remember:
                self._files[path] = known
        if self._remember:
            self._files.move_to_end(path)
            while len(self._files) > _KNOWN_FILES:
                self._files.popitem(last=False)
        return known


def sibling_files(session_file: str, warnings: list[str]) -> list[str] | None:
    """The other ``.jsonl`` files of the session's folder, newest name first; None (and only the
    ``project-discovery-unavailable`` warning) when the folder cannot be listed."""
    folder = os.path.dirname(os.path.abspath(session_file))
    current = os.path.abspath(session_file)
    try:
        names = [e.path for e in os.scandir(folder)
                 if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False)
                 and os.path.abspath(e.path) != current]
    except OSError:
        warnings[:] = [Code.PROJECT_DISCOVERY_UNAVAILABLE]
        return None
    names.sort(reverse=True)
    return names
