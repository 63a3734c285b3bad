"""The three history tools: ``context_history_recall``, ``context_history_read`` and
``context_history_status`` (contract §2–§4, decisions D4–D7, D10).

One :class:`HistoryService` lives in one host process with its reference table and clock.  The
host (decisions D9) supplies the facts Pi would: the current session file and leaf, the project
path and trust, the model provider and the configuration loaded at session start.  Every
failure is fail-open for the conversation: a content-free envelope with one code.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from reference.lineage.chain import LineageSource
from reference.pi.inspection import DEFAULT_LEAF, Leaf
from reference.pi.reader import read_header_line
from reference.primitives.clock import Clock, SystemClock
from reference.primitives.errors import ContractViolation
from reference.primitives.paths import canonical_path
from reference.primitives.textunits import slice_utf16, utf16_length
from reference.privacy.policy import ProviderPolicy, classify_entry, project_id, public_id
from reference.recall import envelope as env
from reference.recall.catchup import catch_up, index_state
from reference.recall.index_schema import open_index
from reference.recall.lineage_scope import LineageCache
from reference.recall.query_terms import describe_query
from reference.recall.refs import RefTable, SourceRef
from reference.recall.request import RecallQuery, check_reference, validate_read_range, validate_recall
from reference.recall.retrieval import EngineHit, fts_rowid_ranges, retrieve
from reference.recall.searchable import searchable_text
from reference.recall.source_verify import verify_source

EXCERPT_UNITS: Final = 1800
EXCERPT_LEAD: Final = 600
ELLIPSIS: Final = "\u2026"
#: Codes that may pass through the safe-error filter (contract §2.4), plus the read codes that
#: the TypeScript service returns directly rather than by exception (§3.6).
_SAFE_CODE: Final = re.compile(
    r"^(invalid-[a-z-]+|source-[a-z-]+|reference-[a-z-]+|range-out-of-bounds|project-scope-disabled"
    r"|project-untrusted|ephemeral-session|privacy-omitted|line-exceeds-output-budget)$"
)
_SUMMARY_TYPES: Final = ("compaction", "branch_summary")
#: The ancestry walk stops after this many steps below the leaf, as the recursive query did.
_MAX_WALK_DEPTH: Final = 10_000_000
#: Sessions whose sets the service remembers, and leaves per session.
_KNOWN_SESSIONS: Final = 1024
_KNOWN_LEAVES: Final = 4
#: The excluded entries of a branch go to SQL as FTS rowid runs when they form at most this many.
_MAX_EXCLUDED_RUNS: Final = 32
#: ... and when finding them takes at most this many checks of a gap between excluded rowids.
_MAX_GAP_CHECKS: Final = 256
_STATE_FINGERPRINT: Final = """
SELECT session_file, header_hash, file_size, file_mtime_ns, checkpoint_offset, checkpoint_hash_start,
       checkpoint_hash, indexed_entries, malformed_lines, tail_unterminated
FROM session_index_state WHERE session_id = ?
"""


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


@dataclass(frozen=True)
class Source:
    """One authorized session: which of its entries the scope lets recall see, and how.

    ``excluded``, ``fts_ranges`` and ``excluded_runs`` only make the queries cheaper
    (``retrieval.retrieve``): the session's entries that are not authorized, read in the recall's
    snapshot, FTS rowid ranges that hold every FTS row of the session, and FTS rowid runs that
    hold exactly the excluded entries' rows of the session; None when not known.
    """

    session_id: str
    session_file: str
    authorized: AbstractSet[str]
    relation: str
    branch: AbstractSet[str] | None = None  # the active branch of the current session (None elsewhere)
    excluded: AbstractSet[str] | None = None
    fts_ranges: tuple[tuple[int, int], ...] | None = None
    excluded_runs: tuple[tuple[int, int], ...] | None = None


class _SessionIds(AbstractSet[str]):
    """Every entry id of one session in the index, read when asked through the connection.

    Used for the scopes that authorize whole sessions: the recall runs in one read snapshot
    (``_resolve_scope``), so this is the set the eager query would have read, without holding
    hundreds of thousands of ids in memory.
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
        return iter(_all_ids(self._conn, self._session_id))

    def __len__(self) -> int:
        row = self._conn.execute("SELECT count(*) FROM entries WHERE session_id = ?", (self._session_id,)).fetchone()
        return int(row[0])


_UNSET: Final = object()


@dataclass
class _Branch:
    """A branch as a set, the session's other entries, and those as FTS rowid runs (None: too
    many, or an entry without a filter row; read only when a scope asks for them)."""

    branch: frozenset[str]
    rest: frozenset[str] | None
    runs: Any = _UNSET


@dataclass
class _Known:
    """What one session's rows gave, valid while its fingerprint (index incarnation and stored
    index state) stays the same: the rows are a projection of the file that state describes."""

    fingerprint: tuple[Any, ...]
    default_leaf: Any = _UNSET
    branches: OrderedDict[str, _Branch] = field(default_factory=OrderedDict)
    fts_ranges: tuple[tuple[int, int], ...] | None = None


@dataclass
class _Scope:
    sources: list[Source] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class HistoryService:
    """Recall, read and status over one index, for one host process."""

    def __init__(self, host: HistoryHost, *, index_path: str, clock: Clock | None = None) -> None:
        self.host = host
        self.index_path = index_path
        self.clock = clock or SystemClock()
        self.refs = RefTable(self.clock)
        self._known: OrderedDict[str, _Known] = OrderedDict()
        self._lineage = LineageCache()

    # ------------------------------------------------------------------ gating

    @property
    def _history_config(self) -> Mapping[str, Any]:
        section: Mapping[str, Any] = self.host.config["historyTools"]
        return section

    def _enabled(self) -> bool:
        return bool(self.host.config.get("enabled")) and bool(self._history_config.get("enabled"))

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        try:
            Path(self.index_path).parent.mkdir(parents=True, exist_ok=True)
            conn = open_index(self.index_path)
        except (OSError, sqlite3.Error, ContractViolation) as exc:
            raise _RuntimeUnavailable(str(exc)) from None
        try:
            yield conn
        finally:
            if conn.in_transaction:  # the read snapshot of _resolve_scope
                conn.execute("ROLLBACK")
            conn.close()

    def _guard(self, run: Callable[[], dict[str, Any]], *, check_abort: bool = True) -> dict[str, Any]:
        if check_abort and self.host.aborted:
            return env.unavailable("aborted")
        if not self._enabled():
            return env.unavailable("disabled")
        try:
            return run()
        except _RuntimeUnavailable:
            return env.unavailable("runtime-unavailable")
        except ContractViolation as exc:
            return env.unavailable(exc.code if _SAFE_CODE.match(exc.code) else "history-unavailable")
        except (OSError, sqlite3.Error, ValueError):
            return env.unavailable("history-unavailable")

    # ------------------------------------------------------------------ public tools

    def recall(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return self._guard(lambda: self._recall(params))

    def read(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return self._guard(lambda: self._read(params))

    def status(self) -> dict[str, Any]:
        return self._guard(self._status, check_abort=False)

    # ------------------------------------------------------------------ scope (§2.5)

    def _current_session(self) -> tuple[str, str]:
        session_file = self.host.session_file
        if not session_file or not os.path.isfile(session_file):
            raise ContractViolation("ephemeral-session", "the current session has no file on disk")
        if self.host.session_id is None:
            raise ContractViolation("ephemeral-session", "the host has no current session id")
        return session_file, self.host.session_id

    def _resolve_scope(self, conn: sqlite3.Connection, scope: str) -> _Scope:
        """Catch up every source, then open the read snapshot that the sets and all the queries
        of this call share (``_connection`` ends it)."""
        session_file, session_id = self._current_session()
        result = _Scope()
        state = catch_up(conn, session_file, session_id=session_id, project_path=self.host.project_path)
        if state.coverage_partial:
            result.warnings.append("source-coverage-partial")
        if state.rebuilt:
            self._known.pop(session_id, None)
        leaf = self.host.leaf
        general: frozenset[str] | None = None
        if leaf is not None and leaf is not DEFAULT_LEAF and (not isinstance(leaf, str) or not _storable(leaf)):
            general = frozenset(_branch_ids(conn, session_id, leaf))  # SQLite's own rules and errors
        others: list[tuple[str, str]] = []
        if scope == "project":
            others = self._project_sessions(conn, session_file, session_id, result)
        lineage = self._lineage_sources(conn, session_file, leaf, result) if scope == "current-lineage" else []
        conn.execute("BEGIN")
        incarnation = _incarnation(conn, self.index_path)
        known = self._known_session(conn, session_id, incarnation)
        sets = _Branch(general, None, None) if general is not None else self._branch_sets(conn, session_id, leaf, known)
        branch, rest = sets.branch, sets.rest
        ranges = self._fts_ranges(conn, session_id, known)
        if scope in ("current-branch", "current-lineage"):
            if sets.runs is _UNSET:
                assert rest is not None
                sets.runs = _session_runs(conn, session_id, sets.branch, rest)
            runs: tuple[tuple[int, int], ...] | None = sets.runs
            result.sources.append(Source(session_id, session_file, branch, "ancestor", branch, rest, ranges, runs))
        else:
            every = _SessionIds(conn, session_id)
            result.sources.append(Source(session_id, session_file, every, "ancestor", branch, frozenset(), ranges, ()))
        for other_id, path in others:
            try:
                ranges = self._fts_ranges(conn, other_id, self._known_session(conn, other_id, incarnation))
            except sqlite3.Error:
                result.warnings.append("project-source-unavailable")
                continue
            result.sources.append(Source(other_id, path, _SessionIds(conn, other_id), "other-branch",
                                         excluded=frozenset(), fts_ranges=ranges))
        for source in lineage:
            ranges = self._fts_ranges(conn, source.session_id, self._known_session(conn, source.session_id, incarnation))
            result.sources.append(Source(source.session_id, source.session_file, source.allowed_entry_ids,
                                         "lineage-ancestor", fts_ranges=ranges))
        return result

    def _lineage_sources(self, conn: sqlite3.Connection, session_file: str, leaf: Any,
                         result: _Scope) -> list[LineageSource]:
        """§2.5 step 3: the runtime's lineage warnings first, then each verified ancestor,
        nearest first, caught up with the same header checks (``lineage-source-unavailable``)."""
        # lineage_scope and rebase.archive still spell Pi's default leaf "default".
        lineage_leaf = "default" if leaf is DEFAULT_LEAF else leaf
        state = self._lineage.state(session_file, lineage_leaf, self.host.project_path, conn)
        result.warnings.extend(state.warnings)
        synced: list[LineageSource] = []
        for source in state.sources:
            try:
                caught = catch_up(conn, source.session_file, session_id=source.session_id,
                                  project_path=self.host.project_path)
            except (ContractViolation, OSError, sqlite3.Error, ValueError):
                result.warnings.append("lineage-source-unavailable")
                continue
            if caught.rebuilt:
                self._known.pop(source.session_id, None)
            synced.append(source)
        return synced

    # ------------------------------------------------------------------ what the service remembers

    def _known_session(self, conn: sqlite3.Connection, session_id: str, incarnation: Any) -> _Known | None:
        """The remembered sets of a session while its fingerprint holds; None: do not remember."""
        row = conn.execute(_STATE_FINGERPRINT, (session_id,)).fetchone()
        if row is None or incarnation is None:
            self._known.pop(session_id, None)
            return None
        fingerprint = (incarnation, *row)
        known = self._known.get(session_id)
        if known is None or known.fingerprint != fingerprint:
            known = self._known[session_id] = _Known(fingerprint)
        self._known.move_to_end(session_id)
        while len(self._known) > _KNOWN_SESSIONS:
            self._known.popitem(last=False)
        return known

    def _branch_sets(
        self, conn: sqlite3.Connection, session_id: str, leaf: Any, known: _Known | None
    ) -> _Branch:
        """Pi's ``getBranch()`` as a set for a leaf that is None, ``DEFAULT_LEAF`` or a storable id, and
        the session's other entries (None: not read); their FTS rowid runs are read when needed."""
        if leaf is DEFAULT_LEAF:
            if known is None:
                leaf = _default_leaf(conn, session_id)
            else:
                if known.default_leaf is _UNSET:
                    known.default_leaf = _default_leaf(conn, session_id)
                leaf = known.default_leaf
        if leaf is None:
            return _Branch(frozenset(), None, None)
        assert isinstance(leaf, str)
        if known is not None and leaf in known.branches:
            known.branches.move_to_end(leaf)
            return known.branches[leaf]
        parents: dict[str, str | None] = dict(
            conn.execute("SELECT entry_id, parent_id FROM entries WHERE session_id = ?", (session_id,))
        )
        branch = frozenset(_walk(parents, leaf))
        rest = frozenset(entry_id for entry_id in parents if entry_id not in branch)
        sets = _Branch(branch, rest)
        if known is not None:
            known.branches[leaf] = sets
            while len(known.branches) > _KNOWN_LEAVES:
                known.branches.popitem(last=False)
        return sets

    @staticmethod
    def _fts_ranges(conn: sqlite3.Connection, session_id: str, known: _Known | None) -> tuple[tuple[int, int], ...]:
        if known is None:
            return fts_rowid_ranges(conn, session_id)
        if known.fts_ranges is None:
            known.fts_ranges = fts_rowid_ranges(conn, session_id)
        return known.fts_ranges

    def _project_sessions(self, conn: sqlite3.Connection, session_file: str, session_id: str,
                          result: _Scope) -> list[tuple[str, str]]:
        """The project's other sessions, caught up: ``(session_id, session_file)`` in order."""
        found: list[tuple[str, str]] = []
        if not self._history_config.get("allowProjectScope"):
            raise ContractViolation("project-scope-disabled", "project scope is not allowed by the configuration")
        if not self.host.project_trusted:
            raise ContractViolation("project-untrusted", "project scope needs a trusted project")
        folder = os.path.dirname(os.path.abspath(session_file))
        current = os.path.abspath(session_file)
        try:
            names = [e.path for e in os.scandir(folder)
                     if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False)
                     and os.path.abspath(e.path) != current]
        except OSError:
            result.warnings[:] = ["project-discovery-unavailable"]
            return found
        names.sort(reverse=True)
        cap = int(self._history_config["maxProjectSessions"])
        if len(names) > cap:
            result.warnings.append("project-discovery-limit")
        project = canonical_path(self.host.project_path)
        for path in names[:cap]:
            try:
                header = read_header_line(path)
                other_id, cwd = header.get("id"), header.get("cwd")
                if not isinstance(other_id, str) or not isinstance(cwd, str):
                    continue
                if other_id == session_id or canonical_path(cwd) != project:
                    continue
                state = catch_up(conn, path, session_id=other_id, project_path=self.host.project_path)
                if state.rebuilt:
                    self._known.pop(other_id, None)
                found.append((other_id, path))
            except (ContractViolation, OSError, sqlite3.Error, ValueError):
                result.warnings.append("project-source-unavailable")
        return found

    # ------------------------------------------------------------------ recall (§2.6–§2.8)

    def _recall(self, params: Mapping[str, Any]) -> dict[str, Any]:
        query = validate_recall(params, self._history_config)
        with self._connection() as conn:
            scope = self._resolve_scope(conn, query.scope)
            warnings = list(scope.warnings)
            retrieval_config = self.host.config.get("retrieval", {})
            exact, fts = bool(retrieval_config.get("exact", True)), bool(retrieval_config.get("fts", True))
            if not exact and not fts:
                warnings.append("lexical-retrieval-disabled")
            terms = describe_query(query.query)
            if not terms.terms:
                return self._recall_envelope(query, ["no-query-terms", *warnings], [])
            privacy_config = self.host.config["privacy"]
            policy = ProviderPolicy.from_config(privacy_config, self.host.provider)
            hits: list[dict[str, Any]] = []
            for source in scope.sources:
                found = retrieve(
                    conn,
                    session_id=source.session_id,
                    authorized_ids=source.authorized,
                    terms=terms,
                    include_summaries=query.include_summaries,
                    roles=query.roles,
                    before_ms=query.before_ms,
                    after_ms=query.after_ms,
                    exact=exact,
                    fts=fts,
                    max_results=12,
                    excluded_ids=source.excluded,
                    fts_rowid_ranges=source.fts_ranges,
                    excluded_runs=source.excluded_runs,
                )
                warnings.extend(found.warnings)
                for hit in found.hits:
                    item = self._process_hit(conn, source, hit, query, terms.terms, policy, privacy_config, warnings)
                    if item is not None:
                        hits.append(item)
        return self._recall_envelope(query, warnings, hits)

    def _process_hit(
        self,
        conn: sqlite3.Connection,
        source: Source,
        hit: EngineHit,
        query: RecallQuery,
        terms: tuple[str, ...],
        policy: ProviderPolicy,
        privacy_config: Mapping[str, Any],
        warnings: list[str],
    ) -> dict[str, Any] | None:
        locator = conn.execute(
            "SELECT start_offset, end_offset FROM entry_source_locations WHERE entry_key = ?", (hit.entry_key,)
        ).fetchone()
        if locator is None:
            warnings.append("index-source-missing")
            return None
        try:
            verified = verify_source(
                session_file=source.session_file,
                session_id=source.session_id,
                project_path=self.host.project_path,
                entry_id=hit.entry_id,
                content_hash=hit.content_hash,
                start=locator[0],
                end=locator[1],
            )
        except ContractViolation:
            warnings.append("source-unavailable-or-changed")
            return None
        text = searchable_text(verified.entry)
        private = classify_entry(verified.entry, text, policy=policy, privacy_config=privacy_config,
                                 content_hash=hit.content_hash)
        if private.omitted:
            warnings.append("privacy-omitted")
            return None
        excerpt, truncated = _excerpt(private.text, terms)
        relation = source.relation
        if source.branch is not None and hit.entry_id not in source.branch:
            relation = "other-branch"
        project = project_id(canonical_path(self.host.project_path))
        role = hit.role if isinstance(hit.role, str) else None
        timestamp = hit.created_at if isinstance(hit.created_at, int) else None
        ref = self.refs.mint(
            session_id=source.session_id,
            session_file=source.session_file,
            project_path=self.host.project_path,
            entry_id=hit.entry_id,
            content_hash=hit.content_hash,
            issuing_session_id=self.host.session_id,
            scope=query.scope,
            kind=hit.entry_type,
            role=role,
            timestamp=timestamp,
            relation=relation,
            classification=private.classification,
            public_project_id=project,
            public_session_id=public_id(source.session_id, policy=policy),
            public_entry_id=public_id(hit.entry_id, policy=policy),
        )
        item = env.source_fields(
            source_ref=ref.ref,
            project_id=project,
            session_id=ref.public_session_id,
            entry_id=ref.public_entry_id,
            kind=hit.entry_type,
            role=role,
            timestamp=timestamp,
            relation=relation,
            classification=private.classification,
        )
        item["excerpt"] = excerpt
        item["matchReasons"] = [hit.match_reason]
        item["score"] = hit.score
        item["truncated"] = truncated
        return item

    def _recall_envelope(self, query: RecallQuery, warnings: list[str], hits: list[dict[str, Any]]) -> dict[str, Any]:
        codes = env.dedupe(warnings)[: env.MAX_WARNINGS]
        partial = any(code != "no-query-terms" for code in codes)
        result: dict[str, Any] = {
            "schema": env.SCHEMA,
            "quotedData": True,
            "status": "partial" if partial else "complete",
            "coverage": "partial" if partial else "complete",
            "effectiveScope": query.scope,
            "warnings": codes,
            "hits": [],
        }
        # D5: score, then newer first, then (sessionId, entryId) by byte order.
        hits.sort(key=lambda h: (-h["score"], -(h.get("timestamp") or 0),
                                 h["sessionId"].encode("utf-8"), h["entryId"].encode("utf-8")))
        taken: set[str] = set()
        for hit in hits:
            key = f"{hit['sessionId']}:{hit['entryId']}"
            if key in taken:
                continue
            if len(result["hits"]) >= query.limit:
                break
            result["hits"].append(hit)
            if env.cost(result) > query.max_output_tokens:
                result["hits"].pop()
                self._add_budget_warning(result)
                continue
            taken.add(key)
        return result

    @staticmethod
    def _add_budget_warning(result: dict[str, Any]) -> None:
        """``output-budget`` counts within the 12 warnings (D7): the last one makes room."""
        if "output-budget" not in result["warnings"]:
            if len(result["warnings"]) >= env.MAX_WARNINGS:
                result["warnings"] = result["warnings"][: env.MAX_WARNINGS - 1]
            result["warnings"].append("output-budget")
        result["status"] = result["coverage"] = "partial"

    # ------------------------------------------------------------------ read (§3.3)

    def _read(self, params: Mapping[str, Any]) -> dict[str, Any]:
        ref_text = check_reference(params)
        ref = self.refs.resolve(ref_text, self.host.session_id)
        if ref is None:
            raise ContractViolation("reference-expired", "the reference expired or was never issued here")
        with self._connection() as conn:
            scope = self._resolve_scope(conn, ref.scope)
            if not any(s.session_id == ref.session_id and s.session_file == ref.session_file
                       and ref.entry_id in s.authorized for s in scope.sources):
                raise ContractViolation("reference-out-of-scope", "the entry is no longer in the reference's scope")
            window = validate_read_range(params, self._history_config)
            locator = conn.execute(
                "SELECT start_offset, end_offset FROM entry_source_locations WHERE entry_key = ?",
                (f"{ref.session_id}:{ref.entry_id}",),
            ).fetchone()
        if locator is None:
            raise ContractViolation("source-unavailable", "the entry has no locator in the index")
        verified = verify_source(
            session_file=ref.session_file,
            session_id=ref.session_id,
            project_path=ref.project_path,
            entry_id=ref.entry_id,
            content_hash=ref.content_hash,
            start=locator[0],
            end=locator[1],
        )
        privacy_config = self.host.config["privacy"]
        policy = ProviderPolicy.from_config(privacy_config, self.host.provider)
        text = searchable_text(verified.entry)
        private = classify_entry(verified.entry, text, policy=policy, privacy_config=privacy_config,
                                 ref_classification=ref.classification, content_hash=ref.content_hash)
        if private.omitted:
            raise ContractViolation("privacy-omitted", "the current provider may not receive this entry")
        self.refs.raise_classification(ref.ref, private.classification)
        return _read_envelope(ref, private.classification, private.text, window.start_line, window.max_lines,
                              window.budget)

    # ------------------------------------------------------------------ status (§4)

    def _status(self) -> dict[str, Any]:
        session_file = self.host.session_file
        if not session_file or not os.path.isfile(session_file) or self.host.session_id is None:
            return env.unavailable("ephemeral-session")
        with self._connection() as conn:
            state = index_state(conn, self.host.session_id)
        result: dict[str, Any] = {"schema": env.SCHEMA, "quotedData": True}
        if state is None:
            result.update(status="partial", coverage="unknown", warnings=["index-not-yet-synchronized"],
                          effectiveScope=self._history_config["defaultScope"], indexedEntries=0)
        else:
            result.update(status="complete", coverage="complete", warnings=[],
                          effectiveScope=self._history_config["defaultScope"], indexedEntries=state.indexed_entries)
        return result


class _RuntimeUnavailable(Exception):
    """The index cannot be opened: ``runtime-unavailable``."""


def _incarnation(conn: sqlite3.Connection, index_path: str) -> Any:
    """Which database this is: its file and when its first migration ran (None: unknown).

    A deleted and recreated index has other FTS rowids for the same files; this tells them apart.
    """
    try:
        info = os.stat(index_path)
    except OSError:
        return None
    row = conn.execute("SELECT applied_at FROM schema_migrations WHERE version = 1").fetchone()
    return None if row is None else (info.st_dev, info.st_ino, row[0])


def _session_runs(conn: sqlite3.Connection, session_id: str, branch: frozenset[str],
                  rest: frozenset[str]) -> tuple[tuple[int, int], ...] | None:
    """The FTS rowid runs of ``_excluded_runs`` for the session's ``rest`` (its entries outside
    ``branch``), without reading the whole session: the excluded entries' rowids through their
    keys, then, where two of them are not adjacent, whether a key of the session lies between
    (then it is a branch entry's).  None: an excluded entry without an FTS key, or too many runs
    or gaps to check."""
    if not rest:
        return ()
    prefix = f"{session_id}:"
    rowids = sorted(
        rowid for (rowid,) in conn.execute(
            "SELECT k.fts_rowid FROM json_each(?) AS j JOIN entries_fts_keys AS k ON k.entry_key = j.value",
            (json.dumps([prefix + entry_id for entry_id in rest], ensure_ascii=False),),
        )
    )
    if len(rowids) != len(rest):
        return None
    runs: list[tuple[int, int]] = []
    start = previous = rowids[0]
    checks = 0
    for rowid in rowids[1:]:
        if rowid != previous + 1:
            checks += 1
            if checks > _MAX_GAP_CHECKS:
                return None
            between = conn.execute(
                "SELECT 1 FROM entries_fts_keys WHERE fts_rowid > ? AND fts_rowid < ?"
                " AND entry_key >= ? AND entry_key < ? LIMIT 1",
                (previous, rowid, prefix, f"{session_id};"),
            ).fetchone()
            if between is not None:
                runs.append((start, previous))
                if len(runs) >= _MAX_EXCLUDED_RUNS:
                    return None
                start = rowid
        previous = rowid
    runs.append((start, previous))
    return tuple(runs)


def _excluded_runs(rowids: list[tuple[int, str]], branch: AbstractSet[str]) -> tuple[tuple[int, int], ...] | None:
    """The session's entries outside ``branch`` as inclusive FTS rowid runs: each run spans
    consecutive excluded rows in rowid order, so it holds no branch row of the session (rows of
    other sessions may fall inside).  None when there are more than ``_MAX_EXCLUDED_RUNS``."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    last = 0
    for rowid, entry_id in sorted(rowids):
        if entry_id in branch:
            if start is not None:
                runs.append((start, last))
                start = None
            continue
        if start is None:
            start = rowid
        last = rowid
    if start is not None:
        runs.append((start, last))
    return tuple(runs) if len(runs) <= _MAX_EXCLUDED_RUNS else None


def _storable(text: str) -> bool:
    """Whether SQLite can take the string as a parameter (a lone surrogate cannot be UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _default_leaf(conn: sqlite3.Connection, session_id: str) -> Any:
    """Pi's default leaf: the last entry in file order; None when the session has none."""
    row = conn.execute(
        "SELECT e.entry_id FROM entries e JOIN entry_source_locations l ON l.entry_key = e.entry_key "
        "WHERE e.session_id = ? ORDER BY l.start_offset DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return None if row is None else row[0]


def _walk(parents: Mapping[str, str | None], leaf: str) -> list[str]:
    """The leaf and its ancestors, leaf first, through ``parents`` (every entry of the session).

    The same ids as the recursive query of ``_branch_ids``: stops at a missing parent, at the
    first id seen twice (a parent cycle) and below ``_MAX_WALK_DEPTH`` steps.
    """
    seen: dict[str, None] = {}  # insertion-ordered: the walk's order and its visited set
    node: str | None = leaf
    while node is not None and node in parents and node not in seen:
        seen[node] = None
        if len(seen) > _MAX_WALK_DEPTH:
            break
        node = parents[node]
    return list(seen)


def _branch_ids(conn: sqlite3.Connection, session_id: str, leaf: Any) -> list[str]:
    """Pi's ``getBranch()`` from the index: the leaf and its ancestors, root first.

    The general form (any leaf value, compared by SQLite's rules); the service walks string
    leaves in memory instead (``_walk``), with the same result.
    """
    if leaf is None:
        return []
    if leaf is DEFAULT_LEAF:
        leaf = _default_leaf(conn, session_id)
        if leaf is None:
            return []
    rows = conn.execute(
        "WITH RECURSIVE walk(entry_id, parent_id, depth) AS ("
        " SELECT entry_id, parent_id, 0 FROM entries WHERE session_id = ?1 AND entry_id = ?2"
        " UNION ALL"
        " SELECT e.entry_id, e.parent_id, walk.depth + 1 FROM entries e JOIN walk"
        " ON e.session_id = ?1 AND e.entry_id = walk.parent_id WHERE walk.depth < 10000000"
        ") SELECT entry_id FROM walk",
        (session_id, leaf),
    ).fetchall()
    seen: list[str] = []
    visited: set[str] = set()
    for (entry_id,) in rows:
        if entry_id in visited:  # a parent cycle: stop, as the tree module does
            break
        visited.add(entry_id)
        seen.append(entry_id)
    seen.reverse()
    return seen


def _all_ids(conn: sqlite3.Connection, session_id: str) -> list[str]:
    return [row[0] for row in conn.execute("SELECT entry_id FROM entries WHERE session_id = ?", (session_id,))]


def _excerpt(text: str, terms: tuple[str, ...]) -> tuple[str, bool]:
    """Up to 1800 UTF-16 units around the earliest query term, never splitting a pair (D3)."""
    length = utf16_length(text)
    if length <= EXCERPT_UNITS:
        return text, False
    lowered = text.lower()
    positions = [lowered.find(term.lower()) for term in terms]
    found = [p for p in positions if p >= 0]
    position = utf16_length(text[: min(found)]) if found else 0
    start = max(0, min(length - EXCERPT_UNITS, position - EXCERPT_LEAD))
    head = slice_utf16(text, start)
    if utf16_length(head) < start and len(head) < len(text):
        head = text[: len(head) + 1]  # do not start inside a pair: step past it
    body = slice_utf16(text[len(head):], EXCERPT_UNITS)
    end_index = len(head) + len(body)
    excerpt = (ELLIPSIS if head else "") + body + (ELLIPSIS if end_index < len(text) else "")
    return excerpt, True


def _line_window(text: str, start_line: int, count: int) -> tuple[int, list[str]]:
    """How many lines ``re.split(r"\r?\n", text)`` gives, and ``count`` of them from the 1-based
    ``start_line`` on: a read shows at most a few hundred lines of a text of up to 4 MiB."""
    total = text.count("\n") + 1
    if start_line > total:
        return total, []
    begin = 0
    for _ in range(start_line - 1):
        begin = text.index("\n", begin) + 1
    end = begin
    for _ in range(count):
        end = text.find("\n", end) + 1
        if end == 0:
            end = len(text)
            break
    return total, re.split(r"\r?\n", text[begin:end])[:count]


def _read_envelope(ref: SourceRef, classification: str, text: str, start_line: int, max_lines: int,
                   budget: int) -> dict[str, Any]:
    total, lines = _line_window(text, start_line, max_lines)
    if start_line > total:
        raise ContractViolation("range-out-of-bounds", f"the text has {total} lines")
    result: dict[str, Any] = {
        "schema": env.SCHEMA,
        "quotedData": True,
        "status": "complete",
        "coverage": "complete",
        "warnings": [],
        "source": env.source_fields(
            source_ref=ref.ref,
            project_id=ref.public_project_id,
            session_id=ref.public_session_id,
            entry_id=ref.public_entry_id,
            kind=ref.kind,
            role=ref.role,
            timestamp=ref.timestamp,
            relation=ref.relation,
            classification=classification,
        ),
        "text": "",
        "startLine": start_line,
        "truncated": False,
    }
    last = min(total, start_line - 1 + max_lines)

    def fits(count: int) -> bool:
        """Whether the envelope with the first ``count`` lines of the window stays in the budget."""
        number = start_line + count - 1
        result["text"] = "\n".join(lines[:count])
        result["truncated"] = number < total
        result["nextLine"] = number + 1
        return env.cost(result) <= budget

    # The serialized envelope grows with every line added, so the lines that fit, added one by
    # one until the first that does not, are found by bisection (8 costs instead of 200).
    included, above = 0, last - start_line + 1
    while included < above:
        middle = (included + above + 1) // 2
        if fits(middle):
            included = middle
        else:
            above = middle - 1
    result["text"] = "\n".join(lines[:included])
    if included == 0:
        raise ContractViolation("line-exceeds-output-budget", "a single line does not fit the output budget")
    next_line = start_line + included
    if next_line <= total:
        result["truncated"] = True
        result["nextLine"] = next_line
        result["status"] = "partial"
        result["warnings"] = ["more-lines"]
    else:
        result["truncated"] = False
        result.pop("nextLine", None)
    # Keep the contract's key order: nextLine sits before truncated.
    ordered: dict[str, Any] = {k: result[k] for k in ("schema", "quotedData", "status", "coverage", "warnings", "source", "text",
                                      "startLine") if k in result}
    if "nextLine" in result:
        ordered["nextLine"] = result["nextLine"]
    ordered["truncated"] = result["truncated"]
    return ordered
