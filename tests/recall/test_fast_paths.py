"""The recall fast paths give the answers of the plain forms they replace (bench/history.py).

* the recursive query (the walk of ``active_branch`` when no stored branch is current) against
  Pi's walk of the record tree (``walk_to_root``, by ``testkit.id_walk``);
* ``retrieval.retrieve`` of one source against its oracle (``testkit.retrieval_oracle``: ``IN``
  the authorized ids, the whole table searched), with the complement filter (``NOT IN`` the
  session's other entries), FTS queries restricted to a session's rowid ranges, and the excluded
  entries as FTS rowid runs (read through their keys, or from every row of the session: the runs'
  oracle);
* a long-lived service against fresh ones across appends, leaf changes and a deleted index;
* the indexer's timestamp fast path against ``date_time_ms``;
* the match fold walking only non-ASCII runs against its walk over every character.
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.id_walk import walk_ids
from testkit.profiles import examples
from testkit.retrieval_oracle import excluded_runs, retrieve_alone

from reference.config.defaults import default_config
from reference.pi.leaf import DEFAULT_LEAF
from reference.primitives.clock import ManualClock
from reference.primitives.jsvalues import date_time_ms
from reference.recall.active_branch import branch_ids
from reference.recall.candidate_rows import MAX_RESULTS, RetrievalQuery
from reference.recall.catchup import _Scanner, catch_up
from reference.recall.fts_rowids import MAX_EXCLUDED_RUNS, fts_rowid_ranges, runs_of_rowids
from reference.recall.index_schema import open_index
from reference.recall.query_terms import describe_query
from reference.recall.retrieval import RetrievalResult, SourceEntries, retrieve
from reference.recall.service import HistoryHost, HistoryService

CWD = "/home/user/projects/fast"
WORDS = ("heron", "quokka", "marmot", "ibis", "tapir", "okapi", "cache", "retry", "`loadConfig`", "src/app.ts")


def _line(value: Any) -> bytes:
    return (json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def _ts(n: int) -> str:
    return f"2026-01-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


def _entry(entry_id: str, parent: str | None, n: int, text: str, role: str = "user") -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": _ts(n),
            "message": {"role": role, "content": content, "timestamp": 1767225600000 + n}}


def _write_session(path: Path, session_id: str, count: int, rng: random.Random, *, branchy: bool = True) -> list[str]:
    """A session with side branches; returns the entry ids in file order."""
    ids: list[str] = []
    with path.open("wb") as stream:
        stream.write(_line({"type": "session", "version": 3, "id": session_id, "timestamp": _ts(0), "cwd": CWD}))
        for n in range(count):
            parent = None if not ids else ids[-1] if not branchy or rng.random() < 0.8 else rng.choice(ids)
            entry_id = f"{session_id[:2]}{n:05x}"
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
            stream.write(_line(_entry(entry_id, parent, n, text, rng.choice(("user", "assistant")))))
            ids.append(entry_id)
    return ids


def _append(path: Path, session_id: str, start: int, count: int, parent: str) -> list[str]:
    ids = []
    with path.open("ab") as stream:
        for n in range(start, start + count):
            entry_id = f"{session_id[:2]}{n:05x}"
            stream.write(_line(_entry(entry_id, parent, n, f"appended heron {n} `loadConfig`")))
            parent = entry_id
            ids.append(entry_id)
    return ids


# --- the ancestry walk ---------------------------------------------------------------------------


def _tree_db(parents: dict[str, str | None]) -> sqlite3.Connection:
    conn = open_index(":memory:")
    conn.execute("INSERT INTO sessions VALUES ('s', 'f', NULL, 'h')")
    for entry_id, parent in parents.items():
        conn.execute(
            "INSERT INTO entries VALUES (?, 's', ?, ?, 'message', 'user', 0, 'h', 't', 1, 0)",
            (f"s:{entry_id}", entry_id, parent),
        )
    return conn


@examples(deep=40, ci=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(0, 30)), min_size=1, max_size=12))
def test_the_recursive_query_gives_the_tree_walk_ids(links: list[int | None]) -> None:
    """Chains, branches and dangling parents (cycles: ``test_branch_store.py``, against the record tree)."""
    parents: dict[str, str | None] = {
        f"e{index}": None if link is None else f"e{link % index}" if index and link < 20 else f"gone{link}"
        for index, link in enumerate(links)
    }
    conn = _tree_db(parents)
    for leaf in [*parents, "gone"]:
        assert walk_ids(leaf, parents, max_steps=10_000_000) == branch_ids(conn, "s", leaf)


def test_walk_stops_at_a_parent_cycle() -> None:
    """What the recursive query gives (checked once: it takes seconds, 10,000,000 rows)."""
    parents: dict[str, str | None] = {"a": "b", "b": "c", "c": "a", "d": "c", "s": "s"}
    assert walk_ids("a", parents) == ["c", "b", "a"]
    assert walk_ids("d", parents) == ["b", "a", "c", "d"]
    assert walk_ids("s", parents) == ["s"]


# --- retrieval: complement filter and rowid ranges -----------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[sqlite3.Connection, dict[str, list[str]], Path]:
    """Three sessions indexed in turns, with appends in between: the sessions' rowids interleave."""
    folder = tmp_path_factory.mktemp("fast")
    rng = random.Random(7)
    conn = open_index(folder / "index.sqlite")
    files: dict[str, Path] = {}
    ids: dict[str, list[str]] = {}
    for session_id in ("aa-session", "bb-session", "cc-session"):
        files[session_id] = folder / f"{session_id}.jsonl"
        ids[session_id] = _write_session(files[session_id], session_id, 300, rng)
        catch_up(conn, str(files[session_id]))
    for round_ in range(5):
        for session_id in ("aa-session", "cc-session"):
            ids[session_id] += _append(files[session_id], session_id, 300 + round_ * 7, 7, ids[session_id][-1])
            catch_up(conn, str(files[session_id]))
    return conn, ids, folder


def _query(query: str, extra: dict[str, Any]) -> RetrievalQuery:
    return RetrievalQuery(describe_query(query), roles=extra.pop("roles", None), before_ms=extra.pop("before_ms", None),
                          max_results=extra.pop("max_results", MAX_RESULTS))


def _retrieve(conn: sqlite3.Connection, session_id: str, authorized: Any, query: str, **extra: Any) -> RetrievalResult:
    """``retrieve`` of one source with the facts in ``extra``."""
    wanted = _query(query, extra)
    (result,) = retrieve(conn, [SourceEntries(session_id, authorized, **extra)], wanted)
    return result


def _oracle(conn: sqlite3.Connection, session_id: str, authorized: Any, query: str, **extra: Any) -> RetrievalResult:
    return retrieve_alone(conn, session_id, authorized, _query(query, extra))


def test_rowid_ranges_hold_every_row_of_the_session(project: Any) -> None:
    conn, ids, _folder = project
    for session_id, entry_ids in ids.items():
        ranges = fts_rowid_ranges(conn, session_id)
        rowids = [row[0] for row in conn.execute(
            "SELECT k.fts_rowid FROM entries_fts_keys k JOIN entries e ON e.entry_key = k.entry_key"
            " WHERE e.session_id = ?", (session_id,))]
        assert len(rowids) == len(entry_ids)
        assert all(any(low <= rowid <= high for low, high in ranges) for rowid in rowids)
        assert all(fts_rowid_ranges(conn, session_id, 1)[0][0] <= rowid for rowid in rowids)
    assert fts_rowid_ranges(conn, "no-such-session") == ()


QUERIES = ("heron quokka", "`loadConfig` retry", "src/app.ts cache", "okapi", "appended heron")


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("session_id", ["aa-session", "bb-session", "cc-session"])
def test_ranges_and_complement_give_the_same_hits(project: Any, session_id: str, query: str) -> None:
    conn, ids, _folder = project
    rng = random.Random(query)
    every = ids[session_id]
    for share in (0.0, 0.1, 0.5, 0.9, 1.0):
        authorized = frozenset(entry_id for entry_id in every if rng.random() < share)
        excluded = frozenset(every) - authorized
        for extra in ({}, {"roles": ["assistant"]}, {"before_ms": date_time_ms(_ts(200))}, {"max_results": 3}):
            plain = _oracle(conn, session_id, authorized, query, **dict(extra))
            runs = excluded_runs(_session_rowids(conn, session_id), authorized)
            rowids = sorted(rowid for rowid, entry_id in _session_rowids(conn, session_id) if entry_id in excluded)
            found = runs_of_rowids(conn, session_id, rowids, [])  # the stored branch's runs, from its rows
            assert found is None or found == runs
            for ranges in (None, fts_rowid_ranges(conn, session_id), fts_rowid_ranges(conn, session_id, 2),
                           fts_rowid_ranges(conn, session_id, 1)):
                fast = _retrieve(conn, session_id, authorized, query, excluded_ids=excluded, fts_rowid_ranges=ranges,
                                 **dict(extra))
                assert fast == plain
                if runs is not None:
                    fast = _retrieve(conn, session_id, authorized, query, excluded_ids=excluded,
                                     fts_rowid_ranges=ranges, excluded_runs=runs, **dict(extra))
                    assert fast == plain


def _session_rowids(conn: sqlite3.Connection, session_id: str) -> list[tuple[int, str]]:
    return [(rowid, entry_id) for rowid, entry_id in conn.execute(
        "SELECT k.fts_rowid, e.entry_id FROM entries_fts_keys k JOIN entries e ON e.entry_key = k.entry_key"
        " WHERE e.session_id = ?", (session_id,))]


@examples(deep=200, ci=200, deadline=None)
@given(st.lists(st.booleans(), max_size=80), st.randoms(use_true_random=False))
def test_excluded_runs_hold_exactly_the_excluded_rows(in_branch: list[bool], rng: random.Random) -> None:
    rowids = sorted(rng.sample(range(1, 400), len(in_branch)))
    rows = [(rowid, f"e{index}") for index, rowid in enumerate(rowids)]
    branch = frozenset(entry_id for (_rowid, entry_id), kept in zip(rows, in_branch, strict=True) if kept)
    rng.shuffle(rows)
    runs = excluded_runs(rows, branch)
    if runs is None:
        assert sum(1 for i, kept in enumerate(in_branch) if not kept and (i == 0 or in_branch[i - 1])) > MAX_EXCLUDED_RUNS
        return
    for rowid, entry_id in rows:
        assert any(low <= rowid <= high for low, high in runs) == (entry_id not in branch)
    assert list(runs) == sorted(runs)


# --- a long-lived service against fresh ones -------------------------------------------------------------


def _service(folder: Path, session_file: Path, session_id: str, leaf: Any) -> HistoryService:
    config = default_config()
    config["historyTools"]["allowProjectScope"] = True
    host = HistoryHost(session_file=str(session_file), project_path=CWD, project_trusted=True, config=config,
                       provider="ollama", leaf=leaf, session_id=session_id)
    return HistoryService(host, index_path=str(folder / "svc" / "index.sqlite"), clock=ManualClock(0))


def _hits(result: dict[str, Any]) -> list[tuple[str, str]]:
    return [(hit["entryId"], hit["relation"]) for hit in result.get("hits", [])]


def test_remembered_sets_follow_appends_leaves_and_a_deleted_index(tmp_path: Path) -> None:
    rng = random.Random(3)
    path = tmp_path / "s.jsonl"
    ids = _write_session(path, "s1-session", 120, rng)
    kept = _service(tmp_path, path, "s1-session", ids[60])

    def both(params: dict[str, Any]) -> list[tuple[str, str]]:
        fresh = _service(tmp_path, path, "s1-session", kept.host.leaf)
        answer = _hits(kept.recall(params).as_json())
        assert answer == _hits(fresh.recall(params).as_json())
        return answer

    for scope in ("current-branch", "current-session", "project"):
        both({"query": "heron `loadConfig`", "scope": scope})
    kept.host.leaf = ids[-1]  # another leaf, same index state
    assert both({"query": "heron", "scope": "current-branch"})
    new = _append(path, "s1-session", 120, 3, ids[-1])
    kept.host.leaf = DEFAULT_LEAF
    found = both({"query": "appended heron", "scope": "current-branch"})
    assert set(new) <= {entry_id for entry_id, _ in found}
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp_path / "svc" / "index.sqlite") + suffix).unlink(missing_ok=True)
    assert both({"query": "appended heron", "scope": "current-session"})
    kept.host.leaf = None
    assert both({"query": "heron", "scope": "current-branch"}) == []
    assert both({"query": "heron", "scope": "current-session"})


# --- the indexer's timestamp fast path -----------------------------------------------------------


class _Clockwork(_Scanner):
    def __init__(self) -> None:  # only what _created_ms uses
        self.hours = {}


def _same(a: float | int, b: float | int) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b and type(a) is type(b)


@examples(deep=300, ci=300, deadline=None)
@given(st.integers(0, 9999), st.integers(0, 13), st.integers(0, 33), st.integers(0, 25), st.integers(0, 61),
       st.integers(0, 61), st.integers(0, 999))
def test_timestamp_fast_path_equals_the_general_parser(
    year: int, month: int, day: int, hour: int, minute: int, second: int, ms: int
) -> None:
    scanner = _Clockwork()
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{ms:03d}Z"
    assert _same(scanner._created_ms(text), date_time_ms(text))
    assert _same(scanner._created_ms(text), date_time_ms(text))  # from the cached hour


@pytest.mark.parametrize("text", ["2024-02-29T24:00:00.000Z", "2024-02-29T24:00:01.000Z", "2025-06-01t12:00:00.000Z",
                                  "2025-06-01T12:00:00.000z", "2025-06-01T12:00:00Z", "\uff12025-06-01T12:00:00.000Z",
                                  "2025-02-31T10:00:00.000Z", "2025-06-01T12:00:00.000+02:00", ""])
def test_timestamp_edge_cases(text: str) -> None:
    assert _same(_Clockwork()._created_ms(text), date_time_ms(text))


# --- the fold's walk over non-ASCII runs only ------------------------------------------------------


def _fold_char_by_char(text: str) -> str:
    """``fold_for_match`` as it walked every character (the plain form of its fast path)."""
    import unicodedata

    from reference.recall.match_text import _is_latin
    from reference.recall.query_terms import js_lower

    if text.isascii():
        return js_lower(text)
    kept: list[str] = []
    after_latin = False
    for char in unicodedata.normalize("NFD", text):
        if after_latin and unicodedata.category(char)[0] == "M":
            continue
        kept.append(char)
        after_latin = _is_latin(char)
    return js_lower("".join(kept))


_FOLD_ALPHABET = "aZ09 _-.é\u0301\u0308\u0323ſµÅǠǡ\u0305\u0bcd\u0bbeகΣσςİıДж日本\U0001d400\ue000\u200d\u20dd\U000e0100ß\u1e9e"


@examples(deep=600, ci=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(_FOLD_ALPHABET), max_size=40) | st.text(max_size=40))
def test_fold_walks_non_ascii_runs_as_it_walked_every_character(text: str) -> None:
    from reference.recall.match_text import fold_for_match

    assert fold_for_match(text) == _fold_char_by_char(text)
