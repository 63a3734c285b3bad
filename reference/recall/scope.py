"""Which sessions and entries one recall or read may see (contract §2.5, §3.3 step 4).

Every request recomputes its authorized sources: the active branch of the current session (the
default ``current-branch``), the whole current session, its verified lineage, or, when allowed
in a trusted project, the sibling session files of the same project.  Each source is caught up
first; then one read snapshot holds for the sets and every query of the call.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.sqlite_errors import is_damage
from reference.recall.active_branch import ActiveBranch, active_branch, keep_branch
from reference.recall.branch_sets import SessionSets, all_ids, index_incarnation, session_fts_ranges
from reference.recall.branch_store import stored_leaf
from reference.recall.catchup import catch_up
from reference.recall.catchup_state import IndexState
from reference.recall.host_facts import HistoryHost
from reference.recall.project_scope import ProjectSessions
from reference.recall.source_verify import SourceFiles

if TYPE_CHECKING:
    from reference.lineage.chain import LineageSource
    from reference.recall.lineage_scope import LineageCache


@dataclass(frozen=True)
class Source:
    """One authorized session: which of its entries the scope lets recall see, and how.

    ``excluded``, ``fts_ranges``, ``excluded_runs`` and ``branch_no`` only make the queries cheaper
    (``retrieval.retrieve``): the session's entries that are not authorized, read in the recall's
    snapshot, FTS rowid ranges that hold every FTS row of the session, and FTS rowid runs that
    hold exactly the excluded entries' rows of the session; None when not known; the number of a
    stored branch (``branch_store``) whose entries are the authorized ones.
    """

    session_id: str
    session_file: str
    authorized: AbstractSet[str]
    relation: str
    branch: AbstractSet[str] | None = None  # the active branch of the current session (None elsewhere)
    excluded: AbstractSet[str] | None = None
    fts_ranges: tuple[tuple[int, int], ...] | None = None
    excluded_runs: tuple[tuple[int, int], ...] | None = None
    branch_no: int | None = None  # a stored branch the queries join when no runs name its complement


class SessionIds(AbstractSet[str]):
    """Every entry id of one session in the index, read when asked through the connection.

    Used for the scopes that authorize whole sessions: the recall runs in one read snapshot
    (``ScopeResolver.resolve``), so this is the set the eager query would have read, without
    holding hundreds of thousands of ids in memory.
    """

    def __init__(self, conn: sqlite3.Connection, session_id: str) -> None:
        self._conn = conn
        self._session_id = session_id

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        row = self._conn.execute(
            "SELECT 1 FROM entries WHERE session_id = ? AND entry_id = ?", (self._session_id, value)
        ).fetchone()
        return row is not None

    def __iter__(self) -> Iterator[str]:
        return iter(all_ids(self._conn, self._session_id))

    def __len__(self) -> int:
        row = self._conn.execute("SELECT count(*) FROM entries WHERE session_id = ?", (self._session_id,)).fetchone()
        return int(row[0])


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


class ScopeResolver:
    """One host process's scope resolution, with the sets and lineage it remembers between calls."""

    def __init__(self) -> None:
        self.sets = SessionSets()
        self._lineage: LineageCache | None = None  # made at the first lineage recall (start-up time)
        self._project = ProjectSessions()

    def resolve(self, conn: sqlite3.Connection, scope: str, host: HistoryHost, index_path: str,
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
        if state.rebuilt:
            self.sets.forget(session_id)
        leaf = host.leaf
        early: ActiveBranch | None = None
        if leaf is not None and not stored_leaf(leaf):
            early = active_branch(conn, session_id, leaf)  # SQLite's own rules and errors, first
        others: list[tuple[str, str]] = []
        if scope == "project":
            others = self._project_sessions(conn, host, (session_file, session_id), index_path, result)
        lineage = self._lineage_sources(conn, host, session_file, result) if scope == "current-lineage" else []
        keep_branch(conn, session_id, leaf)
        conn.execute("BEGIN")
        incarnation = index_incarnation(conn, index_path)
        branch = early or active_branch(conn, session_id, leaf, runs=scope != "current-session")
        ranges = branch.ranges
        if ranges is None:
            ranges = session_fts_ranges(conn, session_id, self.sets.known(conn, session_id, incarnation))
        result.sources.append(_current_source(scope, (session_file, session_id), branch, ranges, conn))
        for other_id, path in others:
            try:
                ranges = session_fts_ranges(conn, other_id, self.sets.known(conn, other_id, incarnation))
            except sqlite3.Error as error:
                if is_damage(error):
                    raise  # the index itself is damaged: the service repairs it (D15)
                result.warnings.append(Code.PROJECT_SOURCE_UNAVAILABLE)
                continue
            result.sources.append(Source(other_id, path, SessionIds(conn, other_id), "other-branch",
                                         excluded=frozenset(), fts_ranges=ranges))
        for source in lineage:
            ranges = session_fts_ranges(conn, source.session_id, self.sets.known(conn, source.session_id, incarnation))
            result.sources.append(Source(source.session_id, source.session_file, source.allowed_entry_ids,
                                         "lineage-ancestor", fts_ranges=ranges))
        return result

    def _lineage_sources(self, conn: sqlite3.Connection, host: HistoryHost, session_file: str,
                         result: ResolvedScope) -> list[LineageSource]:
        """§2.5 step 3: the runtime's lineage warnings first, then each verified ancestor,
        nearest first, caught up with the same header checks (``lineage-source-unavailable``)."""
        if self._lineage is None:
            from reference.recall.lineage_scope import LineageCache

            self._lineage = LineageCache()
        state = self._lineage.state(session_file, host.leaf, host.project_path, conn)
        result.warnings.extend(state.warnings)
        synced: list[LineageSource] = []
        for source in state.sources:
            try:
                caught = catch_up(conn, source.session_file, session_id=source.session_id,
                                  project_path=host.project_path)
            except (ContractViolation, OSError, sqlite3.Error, ValueError) as error:
                if is_damage(error):
                    raise
                result.warnings.append(Code.LINEAGE_SOURCE_UNAVAILABLE)
                continue
            if caught.rebuilt:
                self.sets.forget(source.session_id)
            synced.append(source)
        return synced

    def _project_sessions(self, conn: sqlite3.Connection, host: HistoryHost, current: tuple[str, str],
                          index_path: str, result: ResolvedScope) -> list[tuple[str, str]]:
        """The project's other sessions, caught up: ``(session_id, session_file)`` in order."""
        return self._project.sessions(conn, host.config, host.project_trusted, host.project_path, current,
                                      index_incarnation(conn, index_path), result.warnings, self.sets.forget)


def _current_source(scope: str, current: tuple[str, str], branch: ActiveBranch,
                    ranges: tuple[tuple[int, int], ...], conn: sqlite3.Connection) -> Source:
    """The current session in the snapshot: its branch (``current-branch``, ``current-lineage``)
    or all of it, with the branch for the hits' relation."""
    session_file, session_id = current
    if scope in ("current-branch", "current-lineage"):
        return Source(session_id, session_file, branch.ids, "ancestor", branch.ids, branch.off, ranges,
                      branch.off_runs, branch_no=branch.branch_no)
    return Source(session_id, session_file, SessionIds(conn, session_id), "ancestor", branch.ids, frozenset(),
                  ranges, ())
