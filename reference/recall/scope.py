"""Which sessions and entries one recall or read may see (contract §2.5, §3.3 step 4).

Every request recomputes its authorized sources: the active branch of the current session (the
default ``current-branch``), the whole current session, its verified lineage, or, when allowed
in a trusted project, the sibling session files of the same project.  Each source is caught up
first; then one read snapshot holds for the sets and every query of the call.
"""

from __future__ import annotations

import os
import sqlite3
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from reference.pi.leaf import DEFAULT_LEAF, LeafChoice
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.identity import size_and_mtime
from reference.primitives.platform_ops.paths import real_path
from reference.primitives.sqlite_errors import is_damage
from reference.recall.active_branch import active_branch, keep_branch
from reference.recall.branch_store import SessionIds, stored_leaf
from reference.recall.catchup import catch_up
from reference.recall.catchup_state import IndexState
from reference.recall.fts_rowids import fts_rowid_ranges
from reference.recall.host_facts import HistoryHost
from reference.recall.project_scope import ProjectSessions
from reference.recall.retrieval import SourceEntries
from reference.recall.source_verify import SourceFiles

if TYPE_CHECKING:
    from reference.lineage.chain import LineageSource, RebaseState

#: Verified lineages remembered (least recently used out first).
_LINEAGES: Final = 16


@dataclass(frozen=True, kw_only=True)
class Source(SourceEntries):
    """One authorized session: which of its entries the scope lets recall see (``SourceEntries``,
    what the engine searches), where its file is, and how its hits relate to the current branch."""

    session_file: str
    relation: str
    branch: Collection[str] | None = None  # the active branch of the current session (None elsewhere)


@dataclass
class ResolvedScope:
    sources: list[Source] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: What the catch-up of the current session answered (the cursor it proved).
    caught_up: IndexState | None = None


def current_session(host: HistoryHost) -> tuple[str, str]:
    """The current session's file and id; ``ephemeral-session`` without a file on disk."""
    session_file = host.session_file
    if not session_file or not os.path.isfile(session_file):
        raise ContractViolation(Code.EPHEMERAL_SESSION, "the current session has no file on disk")
    if host.session_id is None:
        raise ContractViolation(Code.EPHEMERAL_SESSION, "the host has no current session id")
    return session_file, host.session_id


class LineageCache:
    """The lineage the ``current-lineage`` scope adds (§2.5 step 3, §6.13), verified per current
    file, leaf and project, and remembered while none of the files involved changed (size and
    mtime): upstream the runtime verifies it when the session opens, and a host here has no such
    event.  Only verified pairs on the active branch count; ``parentSession`` never does."""

    def __init__(self) -> None:
        self._states: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], RebaseState]] = OrderedDict()

    def state(self, session_file: str, leaf: Any, project_path: str, conn: sqlite3.Connection) -> RebaseState:
        # imported at the first lineage recall (start-up time)
        from reference.lineage.chain import is_projected, load_rebase_state, project_pairs
        from reference.pi.model.session import branch_customs

        key = (real_path(session_file), leaf if isinstance(leaf, (str, LeafChoice)) or leaf is None else repr(leaf),
               project_path)
        remembered = self._states.get(key)
        current = size_and_mtime(session_file)
        if remembered is not None:
            stamps, state = remembered
            if stamps == (current, *(size_and_mtime(s.session_file) for s in state.sources)):
                self._states.move_to_end(key)
                if state.verified and not is_projected(conn, state):
                    project_pairs(conn, state.pairs)  # the index was deleted since: project again
                return state
        branch = branch_customs(session_file, leaf) if isinstance(leaf, str) or leaf is DEFAULT_LEAF else []
        state = load_rebase_state(session_file, branch, project_path, conn=conn)
        self._states[key] = ((current, *(size_and_mtime(s.session_file) for s in state.sources)), state)
        while len(self._states) > _LINEAGES:
            self._states.popitem(last=False)
        return state


class ScopeResolver:
    """One host process's scope resolution, with the project files and lineage it remembers
    between calls."""

    def __init__(self) -> None:
        self._lineage = LineageCache()
        self._project = ProjectSessions()

    def resolve(self, conn: sqlite3.Connection, scope: str, host: HistoryHost,
                files: SourceFiles | None = None) -> ResolvedScope:
        """Catch up every source, then open the read snapshot that the sets and all the queries
        of this call share (the caller's connection ends it).  ``files``: the recall's descriptors,
        the current session's catch-up reads the one its hits are verified on."""
        session_file, session_id = current_session(host)
        result = ResolvedScope()
        stream = files.reader(session_file) if files is not None else None
        state = result.caught_up = catch_up(conn, session_file, session_id=session_id, project_path=host.project_path,
                                            stream=stream)
        if state.coverage_partial:
            result.warnings.append(Code.SOURCE_COVERAGE_PARTIAL)
        leaf = host.leaf
        early: SourceEntries | None = None
        if leaf is not None and not stored_leaf(leaf):
            early = active_branch(conn, session_id, leaf)  # SQLite's own rules and errors, first
        others: list[tuple[str, str]] = []
        if scope == "project":
            others = self._project.sessions(conn, host, (session_file, session_id), result.warnings)
        lineage = self._lineage_sources(conn, host, session_file, result) if scope == "current-lineage" else []
        keep_branch(conn, session_id, leaf)
        conn.execute("BEGIN")
        branch = early or active_branch(conn, session_id, leaf)
        ranges = branch.fts_rowid_ranges
        ranges = ranges if ranges is not None else fts_rowid_ranges(conn, session_id)
        result.sources.append(_current_source(scope, (session_file, session_id), branch, ranges, conn))
        for other_id, path in others:  # no FTS rowid ranges: the shared statement finds each session's rows
            result.sources.append(Source(other_id, SessionIds(conn, other_id), frozenset(),
                                         session_file=path, relation="other-branch"))
        for source in lineage:
            result.sources.append(Source(source.session_id, source.allowed_entry_ids,
                                         fts_rowid_ranges=fts_rowid_ranges(conn, source.session_id),
                                         session_file=source.session_file, relation="lineage-ancestor"))
        return result

    def _lineage_sources(self, conn: sqlite3.Connection, host: HistoryHost, session_file: str,
                         result: ResolvedScope) -> list[LineageSource]:
        """§2.5 step 3: the runtime's lineage warnings first, then each verified ancestor,
        nearest first, caught up with the same header checks (``lineage-source-unavailable``)."""
        state = self._lineage.state(session_file, host.leaf, host.project_path, conn)
        result.warnings.extend(state.warnings)
        synced: list[LineageSource] = []
        for source in state.sources:
            try:
                catch_up(conn, source.session_file, session_id=source.session_id, project_path=host.project_path)
            except (ContractViolation, OSError, sqlite3.Error, ValueError) as error:
                if is_damage(error):
                    raise
                result.warnings.append(Code.LINEAGE_SOURCE_UNAVAILABLE)
                continue
            synced.append(source)
        return synced


def _current_source(scope: str, current: tuple[str, str], branch: SourceEntries,
                    ranges: Sequence[tuple[int, int]], conn: sqlite3.Connection) -> Source:
    """The current session in the snapshot: its branch (``current-branch``, ``current-lineage``)
    or all of it, with the branch for the hits' relation."""
    session_file, session_id = current
    if scope in ("current-branch", "current-lineage"):
        return Source(session_id, branch.authorized_ids, branch.excluded_ids, ranges, branch.excluded_runs,
                      branch.branch_no, session_file=session_file, relation="ancestor",
                      branch=branch.authorized_ids)
    return Source(session_id, SessionIds(conn, session_id), frozenset(), ranges, (),
                  session_file=session_file, relation="ancestor", branch=branch.authorized_ids)
