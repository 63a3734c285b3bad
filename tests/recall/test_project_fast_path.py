"""Project scope's fast paths give the answers of the plain forms they replace (bench/history.py).

* ``retrieval.retrieve`` of many whole sessions (one FTS statement for all of them) against its
  oracle (``testkit.retrieval_oracle``): each session alone, its authorized ids listed (``IN``),
  no rowid ranges;
* the recall envelope of project scope (apart from refs) against the same oracle per source,
  with every sibling asked of its header and caught up on every call;
* the remembered catch-ups of a long-lived host across appends, a replaced and a shrunk file,
  a file that became unreadable, and a deleted index, against a fresh host.

The generated projects (``reference.fixturegen``, plus hand-written sessions) have many sessions
with overlapping matches, summaries, secrets (privacy-omitted hits), sessions with no match,
siblings that are unavailable, of another project or a copy of another (one id, two files), and
more siblings than the discovery cap.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from testkit.retrieval_oracle import retrieve_alone, select_plain

import reference.recall.recall_tool as recall_tool
from reference.config.defaults import default_config
from reference.fixturegen.generator import generate
from reference.fixturegen.options import GenOptions
from reference.primitives.clock import ManualClock
from reference.primitives.jsvalues import date_time_ms
from reference.recall import candidate_rows, project_scope, retrieval
from reference.recall.active_branch import all_ids
from reference.recall.candidate_rows import RetrievalQuery
from reference.recall.catchup import catch_up
from reference.recall.fts_rowids import fts_rowid_ranges
from reference.recall.index_schema import open_index
from reference.recall.project_scope import ProjectSessions
from reference.recall.query_terms import describe_query
from reference.recall.retrieval import RetrievalResult, SourceEntries, retrieve
from reference.recall.scope import ScopeResolver
from reference.recall.service import HistoryHost, HistoryService

CWD = "/home/user/projects/demo"
#: The benchmark's queries (the generator's vocabulary), phrases, literals and a word found nowhere.
QUERIES = (
    "why is retryWithBackoff slow on large inputs",
    "timeout error in handleRequest",
    "`src/cache.ts`",
    "exponential backoff",
    "Tests failed rejects empty input",
    "\"rejects empty input\" flushCache",
    "Können wir normalizePath vereinfachen",
    "summary of the changes so far",
    "pangolin narwhal okapi",
    "heron quokka",
)
#: Engine options: limits, roles (one without a code), dates, summaries, one search kind only.
OPTIONS: tuple[dict[str, Any], ...] = (
    {},
    {"max_results": 1},
    {"max_results": 3},
    {"max_results": 0},
    {"roles": ["assistant"]},
    {"roles": ["user", "toolResult", "developer"]},
    {"roles": []},
    {"include_summaries": True},
    {"before_ms": date_time_ms("2025-06-01T12:30:00.000Z")},
    {"after_ms": date_time_ms("2025-06-01T12:10:00.000Z"), "include_summaries": True},
    {"exact": False},
    {"fts": False},
    {"exact": False, "fts": False},
)


def _line(value: Any) -> bytes:
    return (json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def _own_session(path: Path, session_id: str, count: int, words: tuple[str, ...], seed: int) -> str:
    """A plain chain of user and assistant messages from ``words``; returns the last id."""
    rng = random.Random(seed)
    with path.open("wb") as stream:
        stream.write(_line({"type": "session", "version": 3, "id": session_id,
                            "timestamp": "2025-06-01T12:00:00.000Z", "cwd": CWD}))
        parent = None
        for n in range(count):
            entry_id = f"{session_id[:4]}{n:04x}"
            text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
            role = rng.choice(("user", "assistant"))
            content: Any = text if role == "user" else [{"type": "text", "text": text}]
            stream.write(_line({"type": "message", "id": entry_id, "parentId": parent,
                                "timestamp": f"2025-06-01T12:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                                "message": {"role": role, "content": content, "timestamp": 1748779200000 + n}}))
            parent = entry_id
    return parent or ""


def _append(path: Path, session_id: str, parent: str, start: int, count: int) -> str:
    with path.open("ab") as stream:
        for n in range(start, start + count):
            entry_id = f"{session_id[:4]}{n:04x}"
            stream.write(_line({"type": "message", "id": entry_id, "parentId": parent,
                                "timestamp": f"2025-06-01T13:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                                "message": {"role": "user", "content": f"appended heron {n} flushCache",
                                            "timestamp": 1748782800000 + n}}))
            parent = entry_id
    return parent


def _make_project(folder: Path, sessions: int = 9, entries: int = 160) -> list[Path]:
    """Generated sessions and two hand-written ones (one matching nothing of ``QUERIES``)."""
    made = generate(folder, GenOptions(seed=5, sessions=sessions, entries=entries, compactions=1, branches=2,
                                       cwd=CWD))
    paths = [item.path for item in made]
    for name, words in (("heron-session", ("heron", "quokka", "flushCache", "okapi")),
                        ("zzzz-session", ("aardvark", "bison", "caracal"))):
        path = folder / f"2025-06-01T12-00-00-000Z_{name}.jsonl"
        _own_session(path, name, 90, words, len(paths))
        paths.append(path)
    return paths


# --- the engine: one statement against each session alone ---------------------------------------


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[sqlite3.Connection, list[str]]]:
    """A project indexed in turns, with appends in between: the sessions' rowids interleave."""
    folder = tmp_path_factory.mktemp("project-engine")
    paths = _make_project(folder / "sessions")
    conn = open_index(folder / "index.sqlite")
    ids = []
    for path in paths:
        ids.append(catch_up(conn, str(path)).session_id)
    own = folder / "sessions" / "2025-06-01T12-00-00-000Z_heron-session.jsonl"
    leaf = f"hero{89:04x}"
    for round_ in range(3):
        leaf = _append(own, "heron-session", leaf, 200 + round_ * 5, 5)
        catch_up(conn, str(own))
        catch_up(conn, str(paths[0]))
    yield conn, ids
    conn.close()


def _plain(conn: sqlite3.Connection, session_id: str, query: str, options: dict[str, Any]) -> RetrievalResult:
    """The oracle of one session: its ids listed, the whole table searched."""
    return retrieve_alone(conn, session_id, all_ids(conn, session_id), _engine_query(query, options))


def _engine_query(query: str, options: dict[str, Any]) -> RetrievalQuery:
    return RetrievalQuery(describe_query(query), **{"include_summaries": False, "roles": None, "before_ms": None,
                                                    "after_ms": None, "exact": True, "fts": True, **options})


def _whole(session_id: str, fts_ranges: Sequence[tuple[int, int]] | None = None) -> SourceEntries:
    """A source that may see every entry of its session (none excluded)."""
    return SourceEntries(session_id, (), frozenset(), fts_ranges, ())


def _shared(conn: sqlite3.Connection, sessions: list[SourceEntries], query: str,
            options: dict[str, Any]) -> list[RetrievalResult]:
    return retrieve(conn, sessions, _engine_query(query, options))


@pytest.mark.parametrize("query", QUERIES)
def test_one_statement_gives_each_session_its_own_answer(indexed: Any, query: str) -> None:
    conn, ids = indexed
    ids = [*ids, "no-such-session"]
    with_ranges = [_whole(session_id, fts_rowid_ranges(conn, session_id)) for session_id in ids]
    one_range = [_whole(session_id, fts_rowid_ranges(conn, session_id, 1)) for session_id in ids]
    unknown = [_whole(session_id) for session_id in ids]
    some_unknown = [_whole(s.session_id, s.fts_rowid_ranges if n % 2 else None) for n, s in enumerate(with_ranges)]
    found = 0
    for options in OPTIONS:
        plain = [_plain(conn, session_id, query, options) for session_id in ids]
        found += sum(len(result.hits) for result in plain)
        for sessions in (with_ranges, one_range, unknown, some_unknown, with_ranges[::-1][:4],
                         with_ranges[:3] + with_ranges[1:2]):  # a session named twice (two files, one id)
            expected = plain if len(sessions) == len(ids) else [plain[ids.index(s.session_id)] for s in sessions]
            assert _shared(conn, sessions, query, options) == expected, (options, len(sessions))
    if "pangolin" not in query:
        assert found > 0


@pytest.mark.parametrize("query", QUERIES)
def test_scoring_before_making_hits_keeps_the_engine_order(indexed: Any, monkeypatch: pytest.MonkeyPatch,
                                                           query: str) -> None:
    """``retrieval._select`` makes hits only of the candidates it keeps: the same hits, scores and
    duplicate counts as every candidate ranked, sorted by ``engine_order`` and deduplicated."""
    conn, ids = indexed
    sessions = [_whole(session_id, fts_rowid_ranges(conn, session_id)) for session_id in ids]
    for options in OPTIONS:
        fast = [_shared(conn, sessions, query, options)] + [[_plain(conn, i, query, options)] for i in ids[:3]]
        with monkeypatch.context() as patch:
            patch.setattr(retrieval, "_select", select_plain)
            plain = [_shared(conn, sessions, query, options)] + [[_plain(conn, i, query, options)] for i in ids[:3]]
        assert fast == plain, options


def test_the_fixture_has_overlap_zero_matches_and_summaries(indexed: Any) -> None:
    conn, ids = indexed
    per_session = [len(_plain(conn, session_id, "heron flushCache", {}).hits) for session_id in ids]
    assert sum(1 for count in per_session if count) >= 2 and 0 in per_session
    summaries = conn.execute("SELECT count(*) FROM entries WHERE entry_type IN ('compaction', 'branch_summary')")
    assert summaries.fetchone()[0] > 0
    full = [len(_plain(conn, session_id, "Tests failed rejects empty input", {}).hits) for session_id in ids]
    assert full.count(12) >= 2  # the per-session cap binds
    windows = [_plain(conn, session_id, "heron quokka", {}).candidate_count for session_id in ids]
    assert max(windows) >= 72  # so does the candidate window


def test_a_failing_shared_statement_falls_back_to_each_session_alone(indexed: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    conn, ids = indexed
    sessions = [_whole(session_id, fts_rowid_ranges(conn, session_id)) for session_id in ids]

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise sqlite3.OperationalError("interrupted")

    expected = [_plain(conn, session_id, "heron `src/cache.ts`", {}) for session_id in ids]
    monkeypatch.setattr(retrieval, "fts_rows_by_session", broken)
    assert _shared(conn, sessions, "heron `src/cache.ts`", {}) == expected
    monkeypatch.setattr(retrieval, "fts_rows_by_session", _damaged)
    with pytest.raises(sqlite3.DatabaseError):
        _shared(conn, sessions, "heron", {})


def _damaged(*_args: Any, **_kwargs: Any) -> Any:
    raise sqlite3.DatabaseError("database disk image is malformed")


def _tied_session(path: Path, session_id: str, count: int) -> None:
    """``count`` messages of one text (one bm25 for all), three to a timestamp: every tie key."""
    with path.open("wb") as stream:
        stream.write(_line({"type": "session", "version": 3, "id": session_id,
                            "timestamp": "2025-06-01T12:00:00.000Z", "cwd": CWD}))
        parent = None
        for n in range(count):
            entry_id = f"{session_id[:3]}{(n * 7919) % 1000:03d}"  # ids not in file order
            stream.write(_line({"type": "message", "id": entry_id, "parentId": parent,
                                "timestamp": f"2025-06-01T12:{n // 3 // 60:02d}:{n // 3 % 60:02d}.000Z",
                                "message": {"role": "user", "content": "heron quokka", "timestamp": 1 + n}}))
            parent = entry_id


@pytest.mark.parametrize("limit", [1, 5, 71, 72, 73, 200])
def test_each_sessions_window_is_its_own_fts_rows_with_ties_at_the_cut(tmp_path: Path, indexed: Any,
                                                                      limit: int) -> None:
    """The shared statement's windows give each session ``fts_rows``'s rows in its order: a
    session whose every match has one bm25 (the cut falls inside the tie), one with fewer matches
    than the window, one with none, and the generated project for every query."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name, count in (("tie-session", 150), ("few-session", 4), ("one-session", 1)):
        _tied_session(folder / f"{name}.jsonl", name, count)
    conn = open_index(tmp_path / "index.sqlite")
    ids = [catch_up(conn, str(path)).session_id for path in sorted(folder.iterdir())] + ["no-such-session"]
    shared_conn, shared_ids = indexed
    where, params = candidate_rows.filter_clauses(candidate_rows.RowScope(negate=True), _engine_query("x", {}))
    for db, sessions, queries in ((conn, ids, ("heron", "quokka heron", "okapi")), (shared_conn, shared_ids, QUERIES)):
        for query in queries:
            terms = describe_query(query).terms
            if not terms:
                continue
            search = candidate_rows.RowSearch(candidate_rows.fts_match_expression(terms), where, params, limit)
            expected = [(session_id, row) for session_id in sessions
                        for row in candidate_rows.fts_rows(db, session_id, search)]
            assert candidate_rows.fts_rows_by_session(db, sessions, search) == expected, (query, limit)
    tied = candidate_rows.fts_rows(conn, "tie-session", candidate_rows.RowSearch("heron", where, params, limit))
    assert len(tied) == min(limit, 150) and (limit == 1 or len({row.created_at for row in tied}) < len(tied))
    conn.close()


def _temp_tables(conn: sqlite3.Connection) -> list[str]:
    return [name for (name,) in conn.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table'")]


@pytest.mark.parametrize("outer", [False, True])
def test_the_two_passes_leave_nothing_on_the_connection(indexed: Any, monkeypatch: pytest.MonkeyPatch,
                                                        outer: bool) -> None:
    """The matches' temporary table lives in a savepoint that is rolled back, inside the caller's
    read snapshot or on its own, and also when the second pass fails (each session then alone)."""
    conn, ids = indexed
    sessions = [_whole(session_id, fts_rowid_ranges(conn, session_id)) for session_id in ids]
    expected = [_plain(conn, session_id, "heron quokka", {}) for session_id in ids]
    if outer:
        conn.execute("BEGIN")
    try:
        assert _shared(conn, sessions, "heron quokka", {}) == expected
        assert _temp_tables(conn) == [] and conn.in_transaction is outer
        real_row = candidate_rows._row
        calls: list[int] = []

        def failing(values: Any) -> Any:  # the second pass fails part way (no exact term: every row is FTS's)
            calls.append(1)
            if len(calls) == 30:
                raise sqlite3.OperationalError("interrupted")
            return real_row(values)

        monkeypatch.setattr(candidate_rows, "_row", failing)
        assert _shared(conn, sessions, "heron quokka", {}) == expected
        assert len(calls) > 30 and _temp_tables(conn) == [] and conn.in_transaction is outer
    finally:
        if outer:
            conn.execute("ROLLBACK")


# --- the service: project recall against the per-source loop -------------------------------------


def _host(current: Path, session_id: str, provider: str, cap: int | None = None) -> HistoryHost:
    config = default_config()
    config["historyTools"]["allowProjectScope"] = True
    if cap is not None:
        config["historyTools"]["maxProjectSessions"] = cap
    return HistoryHost(session_file=str(current), project_path=CWD, project_trusted=True, config=config,
                       provider=provider, session_id=session_id)


def _service(current: Path, session_id: str, index: Path, provider: str = "anthropic",
             cap: int | None = None) -> HistoryService:
    return HistoryService(_host(current, session_id, provider, cap), index_path=str(index), clock=ManualClock(0))


def _per_source(conn: sqlite3.Connection, sources: Any, query: Any) -> list[RetrievalResult]:
    return [retrieve_alone(conn, source.session_id, source.authorized_ids, query) for source in sources]


def _plain_resolver() -> ScopeResolver:
    resolver = ScopeResolver()
    resolver._project = ProjectSessions(remember=False)  # every sibling read and caught up on every call
    return resolver


def _without_refs(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "hits": [{k: v for k, v in hit.items() if k != "sourceRef"} for hit in result.get("hits", [])]}


class _Pair:
    """A long-lived service on the fast paths, and the plain form (the oracle per source) asked the
    same each time."""

    def __init__(self, current: Path, session_id: str, index: Path, monkeypatch: pytest.MonkeyPatch,
                 provider: str = "anthropic", cap: int | None = None) -> None:
        self.monkeypatch = monkeypatch
        self.kept = _service(current, session_id, index, provider, cap)
        self.make_plain: Callable[[], HistoryService] = lambda: _service(current, session_id, index, provider, cap)

    def recall(self, params: dict[str, Any]) -> dict[str, Any]:
        fast = self.kept.recall(params).as_json()
        # the plain form remembers no public ids (its fresh service, no privacy findings)
        with self.monkeypatch.context() as patch:
            patch.setattr(recall_tool, "retrieve", _per_source)
            plain_service = self.make_plain()
            plain_service.scopes = _plain_resolver()
            plain = plain_service.recall(params).as_json()
        assert _without_refs(fast) == _without_refs(plain), params
        return fast


@pytest.fixture()
def project(tmp_path: Path) -> tuple[list[Path], Path]:
    folder = tmp_path / "sessions"
    paths = _make_project(folder, sessions=12, entries=60)
    (folder / "zz-empty.jsonl").write_bytes(b"")  # unavailable: empty
    (folder / "zz-legacy.jsonl").write_bytes(_line({"type": "session", "id": "legacy", "timestamp": "x", "cwd": CWD}))
    other = dict(json.loads(paths[1].read_bytes().split(b"\n", 1)[0]), id="elsewhere", cwd="/somewhere/else")
    (folder / "zz-other-project.jsonl").write_bytes(_line(other))
    (folder / "zz-not-json.jsonl").write_bytes(b"not json\n")
    shutil.copyfile(paths[4], folder / "zz-copy.jsonl")  # a second file with the same session id
    return paths, tmp_path / "index" / "index.sqlite"


def _params(query: str, **extra: Any) -> dict[str, Any]:
    return {"query": query, "scope": "project", **extra}


def test_project_recall_is_the_per_source_answer(project: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    paths, index = project
    current = paths[3]
    session_id = json.loads(current.read_bytes().split(b"\n", 1)[0])["id"]
    warnings: set[str] = set()
    for provider in ("anthropic", "ollama"):
        pair = _Pair(current, session_id, index, monkeypatch, provider)
        seen_hits = 0
        for query in (*QUERIES, "deploy fails token config", "OPENAI_API_KEY `.env`", "PRIVATE KEY"):
            for extra in ({}, {"limit": 3}, {"limit": 12, "maxOutputTokens": 300}, {"roles": ["assistant"]},
                          {"includeSummaries": True}, {"before": "2025-06-01T12:30:00.000Z"},
                          {"after": "2025-06-01T12:05:00.000Z", "roles": ["user", "toolResult"]}):
                result = pair.recall(_params(query, **extra))
                seen_hits += len(result.get("hits", []))
                warnings.update(result.get("warnings", []))
        assert seen_hits > 100
    assert {"project-source-unavailable", "output-budget"} <= warnings, warnings


def test_the_discovery_cap_and_a_single_source(project: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    paths, index = project
    current = paths[0]
    session_id = json.loads(current.read_bytes().split(b"\n", 1)[0])["id"]
    for cap in (0, 1, 3, 6):
        pair = _Pair(current, session_id, index, monkeypatch, cap=cap)
        for query in QUERIES[:6]:
            result = pair.recall(_params(query))
            assert "project-discovery-limit" in result["warnings"]


def test_remembered_catch_ups_follow_the_files_and_the_index(project: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    paths, index = project
    current = paths[2]
    session_id = json.loads(current.read_bytes().split(b"\n", 1)[0])["id"]
    pair = _Pair(current, session_id, index, monkeypatch, "ollama")
    query = _params("heron flushCache `src/cache.ts`", limit=12, maxOutputTokens=6000)

    def ids(result: dict[str, Any]) -> set[str]:
        return {hit["entryId"] for hit in result["hits"]}

    before = pair.recall(query)
    asked: list[str] = []
    real_catch_up = project_scope.catch_up

    def counted(conn: sqlite3.Connection, path: str, **kwargs: Any) -> Any:
        asked.append(path)
        return real_catch_up(conn, path, **kwargs)

    monkeypatch.setattr(project_scope, "catch_up", counted)
    pair.kept.recall(query)
    # Nothing changed: only the unavailable sibling is asked again, and the two files of one
    # session id (each catch-up rebuilds the session from the other file: its state row changes).
    again = sorted([str(paths[0].parent / "zz-legacy.jsonl"), str(paths[0].parent / "zz-copy.jsonl"), str(paths[4])])
    assert sorted(asked) == again
    asked.clear()
    own = next(path for path in paths if "heron-session" in path.name)
    last = _append(own, "heron-session", f"hero{89:04x}", 300, 3)  # an append to a remembered sibling
    pair.kept.recall(query)
    assert sorted(asked) == sorted([str(own), *again])  # and the changed one
    appended = pair.recall(_params("appended heron flushCache", limit=12, maxOutputTokens=6000))
    assert {"hero012c", "hero012d", "hero012e"} <= ids(appended)
    assert last == "hero012e"
    replaced = paths[5]  # another file under the same name (a new inode)
    backup = replaced.with_suffix(".bak")
    shutil.copyfile(replaced, backup)
    _own_session(replaced.with_name("tmp.jsonl.part"), "walrus-session", 40, ("walrus", "flushCache"), 9)
    header = json.loads(replaced.read_bytes().split(b"\n", 1)[0])
    body = replaced.with_name("tmp.jsonl.part").read_bytes().split(b"\n", 1)[1]
    replacement = replaced.with_name("replacement.tmp")
    replacement.write_bytes(_line(header) + body)
    replacement.replace(replaced)
    replaced.with_name("tmp.jsonl.part").unlink()
    assert any(entry.startswith("walr") for entry in ids(pair.recall(_params("walrus", limit=12))))
    shrunk = paths[6]
    shrunk.write_bytes(b"\n".join(shrunk.read_bytes().split(b"\n")[:20]) + b"\n")  # rewritten shorter
    pair.recall(query)
    paths[7].write_bytes(b"")  # now unavailable
    assert "project-source-unavailable" in pair.recall(query)["warnings"]
    for suffix in ("", "-wal", "-shm"):
        Path(str(index) + suffix).unlink(missing_ok=True)
    pair.recall(query)
    backup.replace(replaced)
    assert pair.recall(query)["hits"] and before["hits"]
