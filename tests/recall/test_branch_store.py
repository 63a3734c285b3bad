"""The active branch (``active_branch``, its stored form the fast path) is Pi's branch.

* its entries, on the stored branch and on the walk alike, against the exact oracle (Pi's
  ``getBranch()`` in the record tree of the file read by the exact reader), for every
  leaf kind (default, explicit, an unknown id, off the main line), on sessions with forks,
  cycles, parents written after their child, missing parents and repeated ids, across appends
  that extend the branch, fork it, and bring a missing parent in;
* its ranges hold every row of the session, its runs hold exactly the rows off the branch;
* the default leaf read from the last line against the query over every row;
* recall through the service (stored branch kept) against the same service that never keeps one.
"""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from testkit.profiles import examples
from testkit.retrieval_oracle import excluded_runs

from reference.config.defaults import default_config
from reference.pi.exact.session import load_session
from reference.pi.leaf import DEFAULT_LEAF
from reference.primitives.clock import ManualClock
from reference.recall import active_branch as active_branch_module
from reference.recall import scope as scope_module
from reference.recall.active_branch import active_branch, keep_branch
from reference.recall.catchup import catch_up
from reference.recall.index_schema import open_index
from reference.recall.model_facts import default_leaf_id
from reference.recall.service import HistoryHost, HistoryService

CWD = "/home/user/projects/branch"
SID = "bs-session"
WORDS = ("heron", "quokka", "marmot", "ibis", "tapir", "okapi")


def _line(value: Any) -> bytes:
    return (json.dumps(value, separators=(",", ":")) + "\n").encode("utf-8")


def _entry(entry_id: str, parent: str | None, n: int, text: str) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": f"2026-01-01T00:00:{n % 60:02d}.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1767225600000 + n}}


def _write(path: Path, rows: list[tuple[str, str | None]], rng: random.Random, *, append: bool = False,
           start: int = 0) -> None:
    with path.open("ab" if append else "wb") as stream:
        if not append:
            stream.write(_line({"type": "session", "version": 3, "id": SID, "timestamp": "2026-01-01T00:00:00.000Z",
                                "cwd": CWD}))
        for n, (entry_id, parent) in enumerate(rows, start):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
            stream.write(_line(_entry(entry_id, parent, n, text)))


def _parents(conn: sqlite3.Connection) -> dict[str, str | None]:
    return dict(conn.execute("SELECT entry_id, parent_id FROM entries WHERE session_id = ?", (SID,)).fetchall())


def _plain_default(conn: sqlite3.Connection) -> Any:
    row = conn.execute(
        "SELECT e.entry_id FROM entries e JOIN entry_source_locations l ON l.entry_key = e.entry_key "
        "WHERE e.session_id = ? ORDER BY l.start_offset DESC LIMIT 1", (SID,)).fetchone()
    return None if row is None else row[0]


def _pi_branch(path: Path, leaf: Any) -> tuple[set[str], Any]:
    """The exact oracle: Pi's ``getBranch()`` of ``leaf`` in the record tree of the file as the
    exact reader reads it (``load_session``), and the leaf id (Pi's default: the last entry)."""
    tree = load_session(path).tree()
    leaf_id = tree.default_leaf_id if leaf is DEFAULT_LEAF else leaf
    return {record.id for record in tree.branch(leaf_id).path}, leaf_id


def _check(conn: sqlite3.Connection, path: Path, leaf: Any) -> None:
    """``active_branch`` of ``leaf`` (the stored branch kept, then read in a snapshot; and the walk)
    against Pi's branch read from the file."""
    parents = _parents(conn)
    assert default_leaf_id(conn, SID) == _plain_default(conn)
    expected, leaf_id = _pi_branch(path, leaf)
    keep_branch(conn, SID, leaf)
    conn.execute("BEGIN")
    try:
        for walked in (False, True):
            with mock.patch.object(active_branch_module, "_stored", lambda *_args: None) if walked \
                    else contextlib.nullcontext():
                branch = active_branch(conn, SID, leaf)
            assert (branch.branch_no is None) == (walked or leaf_id is None), (walked, leaf_id)
            assert set(branch.authorized_ids) == expected and len(branch.authorized_ids) == len(expected)
            assert set(branch.excluded_ids) == set(parents) - expected and len(branch.excluded_ids) == len(set(parents) - expected)
            for entry_id in [*parents, "no-such-id", leaf_id]:
                assert (entry_id in branch.authorized_ids) == (entry_id in expected)
                assert (entry_id in branch.excluded_ids) == (entry_id in parents and entry_id not in expected)
            rows = conn.execute(
                "SELECT k.fts_rowid, e.entry_id FROM entries_fts_keys k JOIN entries e ON e.entry_key = k.entry_key"
                " WHERE e.session_id = ?", (SID,)).fetchall()
            if branch.fts_rowid_ranges is not None:
                assert all(any(low <= rowid <= high for low, high in branch.fts_rowid_ranges) for rowid, _ in rows)
            plain_runs = excluded_runs(rows, frozenset(expected))
            if branch.excluded_runs is not None:
                for rowid, entry_id in rows:
                    assert any(low <= rowid <= high for low, high in branch.excluded_runs) == (entry_id not in expected)
            else:
                assert plain_runs is None or len(rows) - len(expected) > 0
    finally:
        conn.execute("ROLLBACK")


def _random_rows(rng: random.Random, count: int, prefix: str, earlier: list[str]) -> list[tuple[str, str | None]]:
    """Mostly a chain; some forks, forward parents (cycles possible), missing parents, repeats."""
    rows: list[tuple[str, str | None]] = []
    ids = list(earlier)
    for n in range(count):
        roll = rng.random()
        entry_id = f"{prefix}{n:04x}"
        if roll < 0.04 and ids:
            entry_id = rng.choice(ids)  # a repeated id: the later line wins
        if not ids or roll < 0.06:
            parent = None
        elif roll < 0.7:
            parent = ids[-1]
        elif roll < 0.85:
            parent = rng.choice(ids)
        elif roll < 0.93:
            parent = f"{prefix}{rng.randrange(count):04x}"  # maybe later in the file: a cycle can close
        else:
            parent = f"gone{rng.randrange(5)}"
        rows.append((entry_id, parent))
        ids.append(entry_id)
    return rows


@examples(deep=25, ci=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.randoms(use_true_random=False))
def test_active_branch_is_pis_branch_across_appends(tmp_path: Path, rng: random.Random) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    path = folder / "s.jsonl"
    rows = _random_rows(rng, rng.randint(1, 60), "a", [])
    _write(path, rows, rng)
    conn = open_index(folder / "index.sqlite")
    catch_up(conn, str(path))
    ids = [entry_id for entry_id, _ in rows]
    leaves: list[Any] = [DEFAULT_LEAF, rng.choice(ids), "no-such-leaf", "gone1", DEFAULT_LEAF]
    for leaf in leaves:
        _check(conn, path, leaf)
    for round_ in range(4):
        kind = rng.choice(("extend", "fork", "missing", "random"))
        last = _plain_default(conn)
        if kind == "extend":
            new = [(f"x{round_}{n}", None) for n in range(rng.randint(1, 5))]
            new = [(entry_id, last if n == 0 else new[n - 1][0]) for n, (entry_id, _) in enumerate(new)]
        elif kind == "fork":
            new = [(f"f{round_}", rng.choice(ids)), (f"g{round_}", f"f{round_}")]
        elif kind == "missing":
            new = [(f"gone{rng.randrange(5)}", rng.choice([None, *ids])), (f"m{round_}", last)]
        else:
            new = _random_rows(rng, rng.randint(1, 8), f"r{round_}", ids)
        _write(path, new, rng, append=True, start=len(ids))
        ids += [entry_id for entry_id, _ in new]
        catch_up(conn, str(path))
        for leaf in (DEFAULT_LEAF, rng.choice(ids), last, DEFAULT_LEAF):
            _check(conn, path, leaf)


def test_a_rebuild_drops_the_stored_branches(tmp_path: Path) -> None:
    """A rewritten file changes parents in place: the trigger forgets the session's branches."""
    rng = random.Random(5)
    path = tmp_path / "s.jsonl"
    rows = [(f"e{n}", None if n == 0 else f"e{n - 1}") for n in range(30)]
    _write(path, rows, rng)
    conn = open_index(tmp_path / "index.sqlite")
    catch_up(conn, str(path))
    _check(conn, path, DEFAULT_LEAF)
    _check(conn, path, "e10")
    rows[20] = ("e20", "e5")  # e20's parent changes: a rebuild (not an append)
    _write(path, rows, rng)
    assert catch_up(conn, str(path)).rebuilt
    assert conn.execute("SELECT count(*) FROM recall_rebase_branches").fetchone()[0] == 0
    _check(conn, path, DEFAULT_LEAF)
    _check(conn, path, "e10")
    del rows[25:]
    _write(path, rows, rng)
    catch_up(conn, str(path))
    _check(conn, path, DEFAULT_LEAF)


def test_a_long_line_at_the_end_and_a_non_entry_last_line(tmp_path: Path) -> None:
    rng = random.Random(6)
    path = tmp_path / "s.jsonl"
    _write(path, [("a", None), ("b", "a")], rng)
    with path.open("ab") as stream:
        stream.write(_line(_entry("c", "b", 3, "heron " * 40_000)))
    conn = open_index(tmp_path / "index.sqlite")
    catch_up(conn, str(path))
    assert default_leaf_id(conn, SID) == "c"
    with path.open("ab") as stream:
        stream.write(b"{not json\n")
    catch_up(conn, str(path))
    assert default_leaf_id(conn, SID) == "c" == _plain_default(conn)
    with path.open("ab") as stream:
        stream.write(_line(_entry("d", "c", 4, "tail"))[:-1])  # an unterminated tail: indexed
    catch_up(conn, str(path))
    assert default_leaf_id(conn, SID) == "d" == _plain_default(conn)
    _check(conn, path, DEFAULT_LEAF)
    with path.open("ab") as stream:
        stream.write(b"\n")
    catch_up(conn, str(path))
    assert default_leaf_id(conn, SID) == "d" == _plain_default(conn)
    with path.open("ab") as stream:
        stream.write(b'{"type":"message","id":"e","parentId":"d"')  # a torn tail: not indexed
    catch_up(conn, str(path))
    assert default_leaf_id(conn, SID) == "d" == _plain_default(conn)
    _check(conn, path, DEFAULT_LEAF)
    with path.open("ab") as stream:
        stream.write(_line(_entry("b", "a", 2, "")))  # the same id again, another line: a rebuild
    catch_up(conn, str(path))
    assert default_leaf_id(conn, SID) == _plain_default(conn)
    _check(conn, path, DEFAULT_LEAF)


# --- the service: stored branch against the plain path ------------------------------------------------


def _service(folder: Path, path: Path, leaf: Any, index: str) -> HistoryService:
    config = default_config()
    config["historyTools"]["allowProjectScope"] = True
    host = HistoryHost(session_file=str(path), project_path=CWD, project_trusted=True, config=config,
                       provider="ollama", leaf=leaf, session_id=SID)
    return HistoryService(host, index_path=str(folder / index), clock=ManualClock(0))


def _answer(result: dict[str, Any]) -> Any:
    return result["status"], result["warnings"], [
        (hit["entryId"], hit["relation"], hit["score"], hit.get("excerpt")) for hit in result["hits"]]


@pytest.mark.parametrize("seed", range(6))
def test_recall_with_the_stored_branch_equals_the_plain_path(tmp_path: Path, seed: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    path = tmp_path / "s.jsonl"
    rows = _random_rows(rng, 300, "a", [])
    _write(path, rows, rng)
    ids = [entry_id for entry_id, _ in rows]
    stored = _service(tmp_path, path, DEFAULT_LEAF, "stored.sqlite")
    plain = _service(tmp_path, path, DEFAULT_LEAF, "plain.sqlite")
    real_keep = scope_module.keep_branch

    def compare(leaf: Any) -> None:
        stored.host.leaf = plain.host.leaf = leaf
        for scope in ("current-branch", "current-session"):
            for query in ("heron", "quokka ibis", "tapir okapi marmot"):
                for extra in ({}, {"roles": ["user"]}, {"limit": 3}):
                    params = {"query": query, "scope": scope, **extra}
                    monkeypatch.setattr(scope_module, "keep_branch", real_keep)
                    fast = _answer(stored.recall(params).as_json())
                    monkeypatch.setattr(scope_module, "keep_branch", lambda *args: None)
                    assert _answer(plain.recall(params).as_json()) == fast, (leaf, params)

    for leaf in (DEFAULT_LEAF, rng.choice(ids), ids[len(ids) // 2], None, "no-such-leaf"):
        compare(leaf)
    last = ids[-1]
    for round_ in range(3):
        new = [(f"x{round_}{n}", last if n == 0 else f"x{round_}{n - 1}") for n in range(3)]
        if round_ == 1:
            new[0] = (new[0][0], rng.choice(ids))  # a fork from an earlier entry
        _write(path, new, rng, append=True, start=len(ids))
        ids += [entry_id for entry_id, _ in new]
        last = ids[-1]
        compare(DEFAULT_LEAF)
        compare(rng.choice(ids))


@pytest.mark.parametrize("seed", range(4))
def test_retrieve_over_a_stored_branch_equals_the_id_lists(tmp_path: Path, seed: int) -> None:
    """``retrieve`` with the lazy sets and ``branch_no`` (runs or the off-branch join) against the
    frozensets of ids (the JSON arrays), for several leaves and filters."""
    rng = random.Random(seed)
    path = tmp_path / "s.jsonl"
    rows = _random_rows(rng, 400, "a", [])
    _write(path, rows, rng)
    conn = open_index(tmp_path / "index.sqlite")
    catch_up(conn, str(path))
    parents = _parents(conn)
    for leaf in (DEFAULT_LEAF, *rng.sample(sorted(parents), 4)):
        expected = frozenset(_pi_branch(path, leaf)[0])
        keep_branch(conn, SID, leaf)
        conn.execute("BEGIN")
        try:
            branch = active_branch(conn, SID, leaf)
            assert branch.branch_no is not None
            for query in ("heron", "quokka ibis tapir", "okapi marmot"):
                for extra in ({}, {"roles": ["assistant"]}, {"max_results": 3}):
                    plain = _retrieve(conn, expected, query, **extra)
                    for runs in ({branch.excluded_runs}, {None}):
                        (chosen,) = runs
                        fast = _retrieve(conn, branch.authorized_ids, query, excluded_ids=branch.excluded_ids,
                                         fts_rowid_ranges=branch.fts_rowid_ranges, excluded_runs=chosen,
                                         branch_no=branch.branch_no, **extra)
                        assert fast == plain, (leaf, query, extra, chosen)
        finally:
            conn.execute("ROLLBACK")


def _retrieve(conn: sqlite3.Connection, authorized: Any, query: str, **extra: Any) -> Any:
    from reference.recall.candidate_rows import MAX_RESULTS, RetrievalQuery
    from reference.recall.query_terms import describe_query
    from reference.recall.retrieval import SourceEntries, retrieve

    wanted = RetrievalQuery(describe_query(query), roles=extra.pop("roles", None),
                            max_results=extra.pop("max_results", MAX_RESULTS))
    (result,) = retrieve(conn, [SourceEntries(SID, authorized, **extra)], wanted)
    return result


def test_a_damaged_row_of_ours_takes_the_plain_path_and_is_dropped(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    path = tmp_path / "s.jsonl"
    _write(path, _random_rows(rng, 80, "a", []), rng)
    stored = _service(tmp_path, path, DEFAULT_LEAF, "stored.sqlite")
    plain = _service(tmp_path, path, DEFAULT_LEAF, "plain.sqlite")
    params = {"query": "heron ibis", "scope": "current-branch"}
    first = _answer(stored.recall(params).as_json())
    conn = sqlite3.connect(tmp_path / "stored.sqlite")
    with conn:
        conn.execute("UPDATE recall_rebase_branches SET ranges = 'not json', runs = '[[1]]'")
    assert _answer(stored.recall(params).as_json()) == first
    assert conn.execute("SELECT count(*) FROM recall_rebase_branches WHERE ranges = 'not json'").fetchone()[0] == 0
    assert _answer(stored.recall(params).as_json()) == first
    monkeypatch.setattr(scope_module, "keep_branch", lambda *args: None)
    assert _answer(plain.recall(params).as_json()) == first
