"""Incremental catch-up (contract §5.1) on real session files and real SQLite databases."""

from __future__ import annotations

import builtins
import hashlib
import io
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.ftscheck import matches
from testkit.profiles import examples

from reference.pi.exact.entries import is_pi_entry
from reference.pi.exact.reader import RecordKind, decode_value, iter_records
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify
from reference.recall import catchup as indexer
from reference.recall import catchup_source
from reference.recall.catchup import catch_up
from reference.recall.catchup_state import IndexState, index_state
from reference.recall.index_schema import MIGRATIONS, ROLE_CODES, TYPE_CODES, open_index
from reference.recall.searchable import searchable_text, token_estimate
from reference.recall.sqlite_text import storable

SID = "01972b5c-ee00-7000-8000-000000000001"
TS = "2025-06-01T12:00:00.000Z"
TS_MS = 1_748_779_200_000


def header(session_id: str = SID, cwd: str | None = "/home/user/demo", **extra: Any) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": session_id, "timestamp": TS, "cwd": cwd, **extra}


def user(entry_id: str, text: str, parent: str | None = None, timestamp: str = TS) -> dict[str, Any]:
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": timestamp,
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1},
    }


def line(value: Any) -> bytes:
    return js_stringify(value).encode() + b"\n"


def write(path: Path, *parts: Any) -> Path:
    path.write_bytes(b"".join(part if isinstance(part, bytes) else line(part) for part in parts))
    return path


def stored_row(path: Path) -> tuple[str, int, int, str]:
    """The state row's header hash, mtime and checkpoint hash span of a small session file whose
    last line is complete, as a catch-up of the whole file stores them."""
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    last_start = len(data) - len(lines[-1])
    return (hashlib.sha256(lines[0].rstrip(b"\n")).hexdigest(), path.stat().st_mtime_ns, last_start,
            hashlib.sha256(data[last_start:]).hexdigest())


def append(path: Path, *parts: Any) -> None:
    with open(path, "ab") as stream:
        stream.write(b"".join(part if isinstance(part, bytes) else line(part) for part in parts))


def snapshot(conn: sqlite3.Connection, session_id: str = SID) -> tuple[Any, ...]:
    """Everything the index holds for a session, except the ``indexed_at`` clock."""
    rows = conn.execute(
        "SELECT e.entry_key, e.session_id, e.entry_id, e.parent_id, e.entry_type, e.role, e.created_at,"
        " e.content_hash, e.searchable_text, e.token_estimate, l.start_offset, l.end_offset"
        " FROM entries AS e LEFT JOIN entry_source_locations AS l USING (entry_key)"
        " WHERE e.session_id = ? ORDER BY e.entry_key",
        (session_id,),
    ).fetchall()
    state = conn.execute("SELECT * FROM session_index_state WHERE session_id = ?", (session_id,)).fetchone()
    session = conn.execute("SELECT * FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    return rows, state, session


def fts_consistent(conn: sqlite3.Connection) -> bool:
    """FTS holds exactly the tokens (and bm25 statistics) of the entries' searchable text."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.got_vocab USING fts5vocab(main, entries_fts, 'instance')")
    conn.execute("DROP TABLE IF EXISTS temp.expected")
    conn.execute("CREATE VIRTUAL TABLE temp.expected USING fts5(t, tokenize = 'unicode61 remove_diacritics 2')")
    conn.execute(
        "INSERT INTO temp.expected(rowid, t) SELECT k.fts_rowid, e.searchable_text"
        " FROM entries AS e JOIN entries_fts_keys AS k USING (entry_key)"
    )
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.want_vocab USING fts5vocab(temp, expected, 'instance')")
    got = sorted(conn.execute("SELECT term, doc, offset FROM temp.got_vocab").fetchall())
    want = sorted(conn.execute("SELECT term, doc, offset FROM temp.want_vocab").fetchall())
    keyed = conn.execute("SELECT count(*) FROM entries LEFT JOIN entries_fts_keys USING (entry_key)"
                         " WHERE fts_rowid IS NULL").fetchone()[0]
    if got != want or keyed or not filters_consistent(conn):
        return False
    for term in sorted({row[0] for row in want})[:25]:
        quoted = '"' + term.replace('"', '""') + '"'
        scores = [
            conn.execute(
                f"SELECT rowid, round(bm25({table}), 9) FROM {table} WHERE {table} MATCH ? ORDER BY rowid", (quoted,)
            ).fetchall()
            for table in ("entries_fts", "expected")
        ]
        if scores[0] != scores[1]:
            return False
    return True


def filters_consistent(conn: sqlite3.Connection) -> bool:
    """``entry_filters`` (migration 4) holds one row per FTS key, derived from its entry."""
    got = sorted(conn.execute(
        "SELECT f.fts_rowid, n.session_id, f.type_code, f.role_code, f.created_at, f.entry_id"
        " FROM entry_filters AS f LEFT JOIN session_numbers AS n ON n.session_no = f.session_no"
    ).fetchall(), key=repr)
    want = sorted((
        (rowid, session_id, TYPE_CODES.get(kind, 0), None if role is None else ROLE_CODES.get(role, 0), created, entry_id)
        for rowid, session_id, kind, role, created, entry_id in conn.execute(
            "SELECT k.fts_rowid, e.session_id, e.entry_type, e.role, e.created_at, e.entry_id"
            " FROM entries_fts_keys AS k JOIN entries AS e USING (entry_key)"
        )
    ), key=repr)
    return got == want




@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = open_index(tmp_path / "index" / "index.sqlite")
    yield connection
    connection.close()


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write(
        tmp_path / "session.jsonl",
        header(),
        user("a1", "first question about caches"),
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2025-06-01T12:00:01.500Z",
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": "Looking."},
             {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "src/cache.ts"}}]}},
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": "not a date",
         "message": {"role": "toolResult", "toolCallId": "t1", "toolName": "read",
                     "content": [{"type": "text", "text": "export const cache = new Map();"}]}},
        {"type": "compaction", "id": "a4", "parentId": "a3", "timestamp": TS, "summary": "## Goal\n\nCaching",
         "firstKeptEntryId": "a3", "tokensBefore": 100},
        {"type": "custom", "id": "a5", "parentId": "a4", "timestamp": TS, "customType": "x", "data": {}},
    )


# ---------------------------------------------------------------------------------------------
# the initial index


def test_initial_index_rows_locators_and_state(conn: sqlite3.Connection, session: Path) -> None:
    state = catch_up(conn, str(session))
    data = session.read_bytes()
    assert state == IndexState(SID, str(session), 5, 0, len(data), len(data), False, *stored_row(session), True,
                               "initial-index", 0)
    assert not state.coverage_partial
    rows = conn.execute(
        "SELECT e.entry_id, e.parent_id, e.entry_type, e.role, e.created_at, e.content_hash, e.searchable_text,"
        " e.token_estimate, l.start_offset, l.end_offset, e.entry_key, e.session_id"
        " FROM entries AS e JOIN entry_source_locations AS l USING (entry_key) ORDER BY l.start_offset"
    ).fetchall()
    lines = data.split(b"\n")[1:-1]
    start = len(data.split(b"\n")[0]) + 1
    for row, raw in zip(rows, lines, strict=True):
        entry = __import__("json").loads(raw)
        entry_id, parent, kind, _role, _created, content_hash, text, tokens, lo, hi, key, sid = row
        assert (entry_id, parent, kind, key, sid) == (entry["id"], entry["parentId"], entry["type"], f"{SID}:{entry_id}", SID)
        assert content_hash == hashlib.sha256(raw).hexdigest()
        assert (lo, hi) == (start, start + len(raw) + 1)
        assert data[lo:hi] == raw + b"\n"
        assert text == searchable_text(entry)
        assert tokens == token_estimate(entry, text)
        start = hi
    assert [(r[0], r[3], r[4]) for r in rows] == [
        ("a1", "user", TS_MS), ("a2", "assistant", TS_MS + 1500), ("a3", "toolResult", None),
        ("a4", "summary", TS_MS), ("a5", None, TS_MS),
    ]
    assert rows[1][6] == 'Looking.\nread\n{"path":"src/cache.ts"}'
    assert conn.execute("SELECT * FROM sessions").fetchall() == [
        (SID, str(session), "/home/user/demo", hashlib.sha256(data.split(b"\n")[0]).hexdigest())
    ]
    assert matches(conn, "cache") == [f"{SID}:a2", f"{SID}:a3"]  # "src/cache.ts" is tokens too
    assert matches(conn, "caches OR caching") == [f"{SID}:a1", f"{SID}:a4"]
    assert fts_consistent(conn)


def test_unchanged_file_does_nothing(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    before = snapshot(conn)
    indexed_at = conn.execute("SELECT max(indexed_at) FROM entries").fetchone()[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(indexer, "_append", None)  # not even an empty append
        patch.setattr(indexer, "_rebuild", None)
        state = catch_up(conn, str(session))
    assert (state.rebuilt, state.rebuild_reason, state.appended, state.indexed_entries) == (False, None, 0, 5)
    assert snapshot(conn) == before
    assert conn.execute("SELECT max(indexed_at) FROM entries").fetchone()[0] == indexed_at


def test_appended_entries_are_indexed_incrementally(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    append(session, user("b1", "appended words", "a5"), b"\n", user("b2", "more", "b1"))
    state = catch_up(conn, str(session))
    size = session.stat().st_size
    assert (state.rebuilt, state.rebuild_reason, state.appended) == (False, None, 2)
    assert (state.indexed_entries, state.checkpoint_offset, state.file_size) == (7, size, size)
    assert matches(conn, "appended") == [f"{SID}:b1"]
    incremental = snapshot(conn)
    assert catch_up(conn, str(session), force=True).rebuild_reason == "forced"
    assert snapshot(conn) == incremental
    assert fts_consistent(conn)


# ---------------------------------------------------------------------------------------------
# rebuild triggers, each alone and in the contract's order


def _grow(path: Path) -> None:
    append(path, user("z9", "grown"))


def _rewrite_last_line_same_size(path: Path) -> None:
    data = path.read_bytes()
    assert b"first question" in data
    body, last = data[:-1].rsplit(b"\n", 1)
    changed = last.replace(b'"x"', b'"y"')
    assert changed != last and len(changed) == len(last)
    path.write_bytes(body + b"\n" + changed + b"\n")


def _bump_mtime(path: Path) -> None:
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 7_000_000_000))


def test_trigger_forced(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    assert catch_up(conn, str(session), force=True).rebuild_reason == "forced"


def test_trigger_locators_missing(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    before = snapshot(conn)
    conn.execute("DELETE FROM entry_source_locations")
    state = catch_up(conn, str(session))
    assert state.rebuild_reason == "source-locator-projection-missing"
    assert snapshot(conn) == before
    conn.execute("DELETE FROM entry_source_locations WHERE entry_key = ?", (f"{SID}:a3",))
    assert catch_up(conn, str(session)).rebuild_reason == "source-locator-projection-missing"
    assert snapshot(conn) == before
    assert catch_up(conn, str(session)).rebuilt is False


def test_trigger_path_changed(conn: sqlite3.Connection, session: Path, tmp_path: Path) -> None:
    catch_up(conn, str(session))
    moved = tmp_path / "moved.jsonl"
    os.replace(session, moved)
    state = catch_up(conn, str(moved))
    assert state.rebuild_reason == "session-file-path-changed"
    assert conn.execute("SELECT session_file FROM sessions").fetchone()[0] == str(moved)
    assert index_state(conn, SID) == IndexState(SID, str(moved), 5, 0, state.file_size, state.file_size, False,
                                                *stored_row(moved))


def test_trigger_header_changed(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    data = session.read_bytes()
    session.write_bytes(data.replace(b'"cwd":"/home/user/demo"', b'"cwd":"/home/user/other"', 1))
    assert catch_up(conn, str(session)).rebuild_reason == "header-changed"
    assert conn.execute("SELECT cwd FROM sessions").fetchone()[0] == "/home/user/other"


def test_trigger_shrank(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    data = session.read_bytes()
    session.write_bytes(data[: data[:-1].rindex(b"\n") + 1])  # the last entry is gone
    state = catch_up(conn, str(session))
    assert (state.rebuild_reason, state.indexed_entries) == ("file-shrank", 4)
    assert conn.execute("SELECT count(*) FROM entries WHERE entry_id = 'a5'").fetchone()[0] == 0
    assert fts_consistent(conn)


def test_trigger_changed_in_place(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    data = session.read_bytes()
    session.write_bytes(data.replace(b"first question about caches", b"first question about dishes"))
    _bump_mtime(session)
    state = catch_up(conn, str(session))
    assert state.rebuild_reason == "changed-in-place"
    assert matches(conn, "dishes") == [f"{SID}:a1"]
    assert matches(conn, "caches") == []
    assert fts_consistent(conn)


def test_trigger_grew_after_unterminated_tail(conn: sqlite3.Connection, tmp_path: Path) -> None:
    torn = line(user("b2", "torn tail"))
    path = write(tmp_path / "s.jsonl", header(), user("b1", "whole"), torn[:-1])
    state = catch_up(conn, str(path))
    size = path.stat().st_size
    assert (state.indexed_entries, state.tail_unterminated, state.checkpoint_offset, state.file_size) == (
        2, True, size - len(torn) + 1, size)
    assert state.coverage_partial
    assert conn.execute("SELECT end_offset FROM entry_source_locations WHERE entry_key = ?",
                        (f"{SID}:b2",)).fetchone()[0] == size
    append(path, b"\n", user("b3", "after"))
    state = catch_up(conn, str(path))
    assert state.rebuild_reason == "grew-after-unterminated-tail"
    assert (state.indexed_entries, state.tail_unterminated, state.coverage_partial) == (3, False, False)
    assert conn.execute("SELECT end_offset FROM entry_source_locations WHERE entry_key = ?",
                        (f"{SID}:b2",)).fetchone()[0] == size + 1


def test_torn_tail_that_is_not_json_yet(conn: sqlite3.Connection, tmp_path: Path) -> None:
    torn = line(user("b2", "half written"))
    path = write(tmp_path / "s.jsonl", header(), user("b1", "whole"), torn[:25])
    state = catch_up(conn, str(path))
    assert (state.indexed_entries, state.malformed_lines, state.tail_unterminated) == (1, 1, True)
    append(path, torn[25:])
    state = catch_up(conn, str(path))
    assert (state.rebuild_reason, state.indexed_entries, state.malformed_lines) == ("grew-after-unterminated-tail", 2, 0)
    assert not state.coverage_partial


def test_trigger_checkpoint_hash_missing(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    conn.execute("UPDATE session_index_state SET checkpoint_hash = NULL")
    assert catch_up(conn, str(session)).rebuild_reason == "checkpoint-hash-missing"
    assert conn.execute("SELECT checkpoint_hash FROM session_index_state").fetchone()[0] is not None


def test_trigger_checkpoint_mismatch(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    _rewrite_last_line_same_size(session)
    _grow(session)
    state = catch_up(conn, str(session))
    assert state.rebuild_reason == "checkpoint-mismatch"
    assert state.indexed_entries == 6


def test_checkpoint_hash_covers_at_most_64_kib_of_the_last_line(conn: sqlite3.Connection, tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), user("b1", "x" * 100_000))
    catch_up(conn, str(path))
    offset, start, digest = conn.execute(
        "SELECT checkpoint_offset, checkpoint_hash_start, checkpoint_hash FROM session_index_state").fetchone()
    data = path.read_bytes()
    assert (offset, start) == (len(data), len(data) - 64 * 1024)
    assert digest == hashlib.sha256(data[start:offset]).hexdigest()
    short = write(tmp_path / "t.jsonl", header(session_id="t"), user("b1", "short"))
    catch_up(conn, str(short))
    offset, start = conn.execute(
        "SELECT checkpoint_offset, checkpoint_hash_start FROM session_index_state WHERE session_id = 't'").fetchone()
    assert start == len(line(header(session_id="t"))) and offset == short.stat().st_size


Setup = Callable[[sqlite3.Connection, Path, Path], Path]


def _path_and_header(conn: sqlite3.Connection, path: Path, tmp: Path) -> Path:
    moved = tmp / "moved.jsonl"
    moved.write_bytes(path.read_bytes().replace(b"/home/user/demo", b"/home/user/else"))
    return moved


def _locators_and_path(conn: sqlite3.Connection, path: Path, tmp: Path) -> Path:
    conn.execute("DELETE FROM entry_source_locations")
    return _path_and_header(conn, path, tmp)


def _header_and_shrink(conn: sqlite3.Connection, path: Path, tmp: Path) -> Path:
    data = path.read_bytes().replace(b"/home/user/demo", b"/home/user/else")
    path.write_bytes(data[: data[:-1].rindex(b"\n") + 1])
    return path


def _in_place_and_mismatch(conn: sqlite3.Connection, path: Path, tmp: Path) -> Path:
    _rewrite_last_line_same_size(path)
    _bump_mtime(path)
    return path


def _hash_missing_and_mismatch(conn: sqlite3.Connection, path: Path, tmp: Path) -> Path:
    conn.execute("UPDATE session_index_state SET checkpoint_hash = NULL")
    _rewrite_last_line_same_size(path)
    _grow(path)
    return path


def _forced_with_everything(conn: sqlite3.Connection, path: Path, tmp: Path) -> Path:
    return _locators_and_path(conn, path, tmp)


@pytest.mark.parametrize(
    ("setup", "force", "reason"),
    [
        (_forced_with_everything, True, "forced"),
        (_locators_and_path, False, "source-locator-projection-missing"),
        (_path_and_header, False, "session-file-path-changed"),
        (_header_and_shrink, False, "header-changed"),
        (_in_place_and_mismatch, False, "changed-in-place"),
        (_hash_missing_and_mismatch, False, "checkpoint-hash-missing"),
    ],
)
def test_the_first_trigger_in_contract_order_wins(
    conn: sqlite3.Connection, session: Path, tmp_path: Path, setup: Setup, force: bool, reason: str
) -> None:
    catch_up(conn, str(session))
    path = setup(conn, session, tmp_path)
    assert catch_up(conn, str(path), force=force).rebuild_reason == reason
    assert fts_consistent(conn)


def test_grew_after_torn_tail_comes_before_the_checkpoint_check(conn: sqlite3.Connection, tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), user("b1", "whole"), b'{"type":"mess')
    catch_up(conn, str(path))
    data = path.read_bytes()
    path.write_bytes(data.replace(b"whole", b"WHOLE") + b'age"}\n')
    assert catch_up(conn, str(path)).rebuild_reason == "grew-after-unterminated-tail"


# ---------------------------------------------------------------------------------------------
# append-only, duplicates and odd lines


def test_append_only_violation_rebuilds(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    append(session, user("a1", "same id, other content"), user("b1", "new"))
    state = catch_up(conn, str(session))
    assert (state.rebuilt, state.rebuild_reason) == (True, "append-only-violation")
    # as in Pi's id index the later line is the entry; the shadowed one is skipped and counted
    assert (state.indexed_entries, state.malformed_lines, state.coverage_partial) == (6, 1, True)
    assert matches(conn, "other") == [f"{SID}:a1"]
    assert matches(conn, "caches") == []
    assert fts_consistent(conn)
    append(session, user("b2", "later"))
    assert catch_up(conn, str(session)).rebuilt is False  # the repeat does not rebuild forever


def test_an_identical_repeated_line_is_a_repeat_not_a_violation(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    copy = line(user("a1", "first question about caches"))
    size = session.stat().st_size
    append(session, copy)
    state = catch_up(conn, str(session))
    assert (state.rebuilt, state.appended, state.indexed_entries, state.malformed_lines) == (False, 0, 5, 1)
    locator = conn.execute("SELECT start_offset, end_offset FROM entry_source_locations WHERE entry_key = ?",
                           (f"{SID}:a1",)).fetchone()
    assert locator == (size, size + len(copy))  # the later copy is the entry
    incremental = snapshot(conn)
    fresh = catch_up(conn, str(session), force=True)
    assert (fresh.indexed_entries, fresh.malformed_lines) == (5, 1)
    assert snapshot(conn) == incremental


def test_repeated_ids_within_one_pass_and_across_batches(conn: sqlite3.Connection, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer, "BATCH_ROWS", 3)
    values = [user(f"h{i % 4}", f"version{i} of h{i % 4}") for i in range(10)]
    path = write(tmp_path / "s.jsonl", header(), *values)
    state = catch_up(conn, str(path))
    assert (state.indexed_entries, state.malformed_lines) == (4, 6)
    texts = dict(conn.execute("SELECT entry_id, searchable_text FROM entries").fetchall())
    assert texts == {"h0": "version8 of h0", "h1": "version9 of h1", "h2": "version6 of h2", "h3": "version7 of h3"}
    assert fts_consistent(conn)
    assert matches(conn, "version0") == []


def test_odd_lines_are_counted_and_skipped(conn: sqlite3.Connection, tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        b"\n", b"not json before the header\n", header(),
        user("c1", "kept"),
        b"\n", b"   \t\r\n",  # blank: skipped, not counted
        b"{broken json\n", b"null\n", b"0\n", b'""\n', b"false\n", b"[1,2]\n", b"42\n", b'"text"\n',
        b'{"no":"type"}\n',
        {"type": "message", "id": "c2", "parentId": "c1", "message": {}},  # no timestamp
        {"type": "message", "id": 7, "parentId": "c1", "timestamp": TS},  # id not a string
        {"type": "message", "id": "c3", "timestamp": TS},  # parentId missing
        {"type": "message", "id": "c4", "parentId": 5, "timestamp": TS},  # parentId not string/null
        {"type": 3, "id": "c5", "parentId": None, "timestamp": TS},
        header(session_id="another"),  # a later header: ignored, as Pi ignores it
        user("c1", "duplicate id"),
        user("c6", "kept too", "c1"),
        b'\xef\xbb\xbf{"type":"message"}\n',  # BOM: not JSON for JSON.parse
    )
    state = catch_up(conn, str(path))
    assert state.indexed_entries == 2
    assert state.malformed_lines == 1 + 8 + 1 + 5 + 1 + 1
    assert sorted(conn.execute("SELECT entry_id, searchable_text FROM entries")) == [
        ("c1", "duplicate id"), ("c6", "kept too")]
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1


def test_crlf_lines_keep_the_cr_in_the_hash(conn: sqlite3.Connection, tmp_path: Path) -> None:
    raw = line(user("d1", "windows"))[:-1] + b"\r\n"
    path = write(tmp_path / "s.jsonl", line(header())[:-1] + b"\r\n", raw)
    catch_up(conn, str(path))
    content_hash, start, end = conn.execute(
        "SELECT content_hash, start_offset, end_offset FROM entries JOIN entry_source_locations USING (entry_key)"
    ).fetchone()
    assert content_hash == hashlib.sha256(raw[:-1]).hexdigest()
    assert raw[:-2].endswith(b"}") and end - start == len(raw)


def test_lone_surrogates_are_stored_as_replacement_characters(conn: sqlite3.Connection, tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), user("d\ud800", "half \udc00 pair"))
    state = catch_up(conn, str(path))
    assert state.indexed_entries == 1
    assert conn.execute("SELECT entry_id, searchable_text FROM entries").fetchone() == ("d\ufffd", "half \ufffd pair")


def test_an_oversize_record_is_counted_not_indexed(conn: sqlite3.Connection, tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), user("e1", "y" * (4 * 1024 * 1024 + 10)), user("e2", "after"))
    state = catch_up(conn, str(path))
    assert (state.indexed_entries, state.malformed_lines) == (1, 1)
    assert matches(conn, "after") == [f"{SID}:e2"]


def test_long_lines_across_read_chunks(conn: sqlite3.Connection, tmp_path: Path) -> None:
    texts = [f"start{index} " + "z" * (700_000 + index * 300_001) + f" end{index}" for index in range(4)]
    path = write(tmp_path / "s.jsonl", header(), *(user(f"f{i}", text) for i, text in enumerate(texts)))
    catch_up(conn, str(path))
    stored = dict(conn.execute("SELECT entry_id, searchable_text FROM entries").fetchall())
    assert stored == {f"f{i}": text for i, text in enumerate(texts)}


def test_keys_another_session_owns_are_skipped(conn: sqlite3.Connection, tmp_path: Path) -> None:
    first = write(tmp_path / "a.jsonl", header(session_id="a"), user("b:c", "owned by a"))
    second = write(tmp_path / "ab.jsonl", header(session_id="a:b"), user("c", "clashes"), user("d", "fine"))
    catch_up(conn, str(first))
    state = catch_up(conn, str(second))
    assert (state.indexed_entries, state.malformed_lines) == (1, 1)
    assert conn.execute("SELECT session_id FROM entries WHERE entry_key = 'a:b:c'").fetchone()[0] == "a"
    assert catch_up(conn, str(second)).rebuilt is False
    assert catch_up(conn, str(first), force=True).indexed_entries == 1


# ---------------------------------------------------------------------------------------------
# the projection is disposable


def test_deleting_the_database_loses_nothing(tmp_path: Path, session: Path) -> None:
    db = tmp_path / "db" / "index.sqlite"
    conn = open_index(db)
    catch_up(conn, str(session))
    append(session, user("b1", "appended", "a5"))
    catch_up(conn, str(session))
    before = snapshot(conn)
    conn.close()
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    conn = open_index(db)
    assert catch_up(conn, str(session)).rebuild_reason == "initial-index"
    assert snapshot(conn) == before
    assert fts_consistent(conn)
    conn.close()


def test_deleting_sessions_cascades_and_the_next_catch_up_rebuilds(conn: sqlite3.Connection, session: Path) -> None:
    catch_up(conn, str(session))
    before = snapshot(conn)
    conn.execute("DELETE FROM sessions")
    for table in ("entries", "entries_fts_keys", "entry_source_locations", "session_index_state"):
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
    assert matches(conn, "caches OR cache OR caching OR looking") == []
    assert conn.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'cache'").fetchone()[0] == 0
    assert fts_consistent(conn)
    assert index_state(conn, SID) is None
    assert catch_up(conn, str(session)).rebuild_reason == "initial-index"
    assert snapshot(conn) == before


def test_filter_rows_follow_inserts_updates_deletes_and_rebuilds(conn: sqlite3.Connection, tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), user("a", "alpha"), user("b", "beta", "a"),
                 {"type": "custom_message", "id": "c", "parentId": "b", "timestamp": TS, "customType": "x",
                  "content": "gamma", "display": True},
                 {"type": "label", "id": "d", "parentId": "c", "timestamp": TS, "targetId": "a", "label": "L"})
    catch_up(conn, str(path))
    assert filters_consistent(conn)
    codes = conn.execute("SELECT entry_id, type_code, role_code FROM entry_filters ORDER BY entry_id").fetchall()
    assert [row for row in codes if row[0] in "abc"] == [("a", 1, 1), ("b", 1, 1), ("c", 2, 5)]
    # an update of the derived columns (another role and time) goes through the trigger
    write(path, header(), user("a", "alpha"), {**user("b", "beta", "a"), "timestamp": "2026-02-01T00:00:00.000Z",
                                                "message": {"role": "assistant", "content": [{"type": "text", "text": "beta"}]}})
    assert catch_up(conn, str(path)).rebuilt
    assert filters_consistent(conn)
    assert conn.execute("SELECT role_code FROM entry_filters WHERE entry_id = 'b'").fetchone() == (2,)
    # a lost filter row comes back with the next rebuild
    conn.execute("DELETE FROM entry_filters WHERE entry_id = 'a'")
    assert not filters_consistent(conn)
    catch_up(conn, str(path), force=True)
    assert filters_consistent(conn)
    # deleting the session leaves no filter row behind
    conn.execute("DELETE FROM sessions")
    assert conn.execute("SELECT count(*) FROM entry_filters").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM session_numbers").fetchone()[0] == 0


def test_migration_4_fills_the_filter_rows_of_an_older_index(tmp_path: Path, session: Path) -> None:
    other = write(tmp_path / "o.jsonl", header("other"), user("x", "cache miss"), user("y", "no cache", "x"))
    fresh = open_index(tmp_path / "fresh.sqlite")
    catch_up(fresh, str(session))
    catch_up(fresh, str(other))
    expected = conn_filters(fresh)
    # the same index as migrations 1-3 left it: no migration-4 objects, ledger and user_version at 3
    for statement in ("DROP TRIGGER entry_filters_after_update", "DROP TRIGGER session_numbers_after_session_insert",
                      "DROP TABLE entry_filters", "DROP TABLE session_numbers",
                      "DELETE FROM schema_migrations WHERE version = 4", "PRAGMA user_version = 3"):
        fresh.execute(statement)
    fresh.close()
    assert [version for version, _name, _sql in MIGRATIONS][-1] == 4
    migrated = open_index(tmp_path / "fresh.sqlite")
    assert filters_consistent(migrated)
    assert conn_filters(migrated) == expected
    assert not catch_up(migrated, str(session)).rebuilt


def conn_filters(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return conn.execute(
        "SELECT f.fts_rowid, n.session_id, f.type_code, f.role_code, f.created_at, f.entry_id FROM entry_filters AS f"
        " JOIN session_numbers AS n USING (session_no) ORDER BY f.fts_rowid"
    ).fetchall()


def test_index_state_is_read_only(conn: sqlite3.Connection, session: Path) -> None:
    assert index_state(conn, SID) is None
    caught = catch_up(conn, str(session))
    row = stored_row(session)
    append(session, user("b1", "not yet seen"))
    state = index_state(conn, SID)
    assert state == IndexState(SID, str(session), 5, 0, caught.file_size, caught.file_size, False, *row)
    assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 5


# ---------------------------------------------------------------------------------------------
# the session file is only ever read


def test_the_session_file_is_never_written(conn: sqlite3.Connection, session: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[tuple[str, str]] = []
    real_open = builtins.open
    real_os_open = os.open

    def spy_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        opened.append((os.fspath(file) if isinstance(file, (str, os.PathLike)) else repr(file), mode))
        return real_open(file, mode, *args, **kwargs)

    def spy_os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append((os.fspath(path), "os-write" if flags & (os.O_WRONLY | os.O_RDWR) else "os-read"))
        return real_os_open(path, flags, *args, **kwargs)

    def digest() -> tuple[str, int, int]:
        info = session.stat()
        return hashlib.sha256(session.read_bytes()).hexdigest(), info.st_size, info.st_mtime_ns

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    catch_up(conn, str(session))
    monkeypatch.undo()
    append(session, user("b1", "appended"))
    before = digest()
    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    catch_up(conn, str(session))
    catch_up(conn, str(session), force=True)
    catch_up(conn, str(session))
    monkeypatch.undo()
    assert digest() == before
    mine = [mode for path, mode in opened if path == str(session)]
    assert mine and set(mine) == {"rb"}


# ---------------------------------------------------------------------------------------------
# header checks and refusals


def _code(call: Callable[[], Any]) -> str:
    with pytest.raises(ContractViolation) as caught:
        call()
    return caught.value.code


def test_header_id_and_cwd_checks(conn: sqlite3.Connection, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = write(tmp_path / "s.jsonl", header(cwd=str(project)), user("a", "x"))
    assert _code(lambda: catch_up(conn, str(path), session_id="other")) == "source-scope-mismatch"
    assert _code(lambda: catch_up(conn, str(path), project_path=str(tmp_path))) == "source-scope-mismatch"
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
    state = catch_up(conn, str(path), session_id=SID, project_path=str(project / "." / ".." / "project"))
    assert state.indexed_entries == 1
    no_cwd = write(tmp_path / "n.jsonl", header(session_id="n", cwd=None), user("a", "x"))
    assert _code(lambda: catch_up(conn, str(no_cwd), project_path=str(project))) == "source-scope-mismatch"
    assert catch_up(conn, str(no_cwd)).indexed_entries == 1  # no project given: no cwd check


def test_cwd_is_compared_as_a_canonical_path(conn: sqlite3.Connection, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    try:
        link.symlink_to(real, target_is_directory=True)
    except (OSError, NotImplementedError):
        pytest.skip("no symlinks here")
    path = write(tmp_path / "s.jsonl", header(cwd=str(link)), user("a", "x"))
    assert catch_up(conn, str(path), project_path=str(real)).indexed_entries == 1


@pytest.mark.parametrize("version", ["absent", None, 1, 2, 2.5, 4, 3.5])
def test_unsupported_versions_are_refused(conn: sqlite3.Connection, tmp_path: Path, version: Any) -> None:
    value = header()
    if version == "absent":
        del value["version"]
    else:
        value["version"] = version
    path = write(tmp_path / "s.jsonl", value, user("a", "x"))
    assert _code(lambda: catch_up(conn, str(path))) == "unsupported-source-version"
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0


@pytest.mark.parametrize("version", [3, 3.0, "3", "4", True])
def test_version_three_and_non_numbers_are_read(conn: sqlite3.Connection, tmp_path: Path, version: Any) -> None:
    path = write(tmp_path / "s.jsonl", header(version=version), user("a", "x"))
    assert catch_up(conn, str(path)).indexed_entries == 1


def test_bad_inputs_are_refused(conn: sqlite3.Connection, tmp_path: Path) -> None:
    assert _code(lambda: catch_up(conn, str(tmp_path / "missing.jsonl"))) == "session-file-missing"
    assert _code(lambda: catch_up(conn, str(tmp_path))) == "session-not-a-file"
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert _code(lambda: catch_up(conn, str(tmp_path / "empty.jsonl"))) == "session-empty"
    entries_first = write(tmp_path / "e.jsonl", user("a", "x"), header())
    assert _code(lambda: catch_up(conn, str(entries_first))) == "session-no-header"
    (tmp_path / "blank.jsonl").write_bytes(b"\n \n")
    assert _code(lambda: catch_up(conn, str(tmp_path / "blank.jsonl"))) == "session-no-header"
    no_id = write(tmp_path / "i.jsonl", {"type": "session", "version": 3})
    assert _code(lambda: catch_up(conn, str(no_id))) == "session-no-header"
    late = tmp_path / "late.jsonl"
    late.write_bytes(b"x\n" * 600_000 + line(header()))
    assert _code(lambda: catch_up(conn, str(late))) == "session-header-scan-limit"
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
    assert not conn.in_transaction


def test_a_header_only_file(conn: sqlite3.Connection, tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header())
    state = catch_up(conn, str(path))
    assert (state.indexed_entries, state.checkpoint_offset, state.coverage_partial) == (0, path.stat().st_size, False)
    unterminated = tmp_path / "u.jsonl"
    unterminated.write_bytes(line(header(session_id="u"))[:-1])
    state = catch_up(conn, str(unterminated))
    assert (state.checkpoint_offset, state.tail_unterminated, state.coverage_partial) == (0, True, True)
    assert conn.execute("SELECT checkpoint_hash FROM session_index_state WHERE session_id = 'u'").fetchone() == (None,)
    assert catch_up(conn, str(unterminated)).rebuilt is False


def test_a_connection_inside_a_transaction_is_refused(conn: sqlite3.Connection, session: Path) -> None:
    conn.execute("BEGIN")
    with pytest.raises(ValueError):
        catch_up(conn, str(session))
    conn.execute("ROLLBACK")


def test_a_failure_rolls_everything_back(conn: sqlite3.Connection, session: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    catch_up(conn, str(session))
    before = snapshot(conn)
    append(session, *(user(f"g{i}", f"row {i}") for i in range(5)))

    def boom(conn: sqlite3.Connection, *args: Any, **done: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(indexer, "write_state", boom)
    with pytest.raises(RuntimeError):
        catch_up(conn, str(session))
    assert snapshot(conn) == before and not conn.in_transaction
    monkeypatch.undo()
    assert catch_up(conn, str(session)).appended == 5


# ---------------------------------------------------------------------------------------------
# appending in steps gives what one rebuild gives


_IDS = [f"{index:08x}" for index in range(10)]
_entries = st.builds(
    lambda entry_id, parent, text, role: {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": TS,
        "message": {"role": role, "content": text},
    },
    st.sampled_from(_IDS), st.none() | st.sampled_from(_IDS), st.text(max_size=24),
    st.sampled_from(["user", "assistant", "custom"]),
)
_lines = st.lists(
    _entries.map(line) | st.sampled_from([b"\n", b"{not json\n", b"null\n", b'{"type":"message"}\n',
                                          line(header(session_id="later"))]),
    max_size=14,
)


@examples(deep=60, ci=50, deadline=None)
@given(_lines, st.lists(st.integers(min_value=0, max_value=10**9), max_size=6), st.booleans())
def test_appending_in_steps_equals_one_rebuild(lines: list[bytes], cuts: list[int], torn_end: bool) -> None:
    """Cuts fall on line boundaries (pure appends) or anywhere (torn writes, then rebuilds)."""
    head = line(header())
    data = head + b"".join(lines)
    if torn_end and data.endswith(b"\n"):
        data = data[:-1]
    boundaries = [len(head)]
    for item in lines:
        boundaries.append(boundaries[-1] + len(item))
    points = set()
    for cut in cuts:
        if cut % 2:
            points.add(min(len(data), boundaries[cut // 2 % len(boundaries)]))
        else:
            points.add(len(head) - 1 + cut // 2 % (len(data) - len(head) + 2))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(b"")
        stepwise = open_index(Path(folder) / "steps.sqlite")
        written = 0
        for point in sorted(points | {len(data)}):
            append(path, data[written:point])
            written = point
            catch_up(stepwise, str(path))
        assert path.read_bytes() == data
        fresh = open_index(Path(folder) / "fresh.sqlite")
        state = catch_up(fresh, str(path))
        assert snapshot(stepwise) == snapshot(fresh)
        assert index_state(stepwise, SID) == index_state(fresh, SID)
        assert state.indexed_entries == len(snapshot(fresh)[0])
        assert fts_consistent(stepwise)
        stepwise.close()
        fresh.close()


# ---------------------------------------------------------------------------------------------
# the catch-up reads what the exact reader reads (one decode per line)


_odd_lines = st.lists(
    _entries.map(line)
    | _entries.map(lambda value: line(value)[:-1] + b"\r\n")
    | _entries.map(lambda value: b"  " + line(value))
    | st.sampled_from([
        b"\n", b"   \t\r\n", b"{not json\n", b"null\n", b"0\n", b'""\n', b"[1]\n", b'"text"\n', b"{}\n",
        b'{"type":"message"}\n', b'{"a":[{}\n', b'{}]}\n', b'{},{}\n', b'{"x":1} trailing\n',
        b'{"type":"message","id":"\\ud800","parentId":null,"timestamp":"t","message":{"role":"user","content":"\\udc00"}}\n',
        b'{"type":"message","id":"dup","id":"00000001","parentId":null,"timestamp":"t"}\n',
        line(header(session_id="later")), line(header()),
    ]),
    max_size=16,
)


@examples(deep=80, ci=55, deadline=None)
@given(_odd_lines, st.booleans(), st.booleans())
def test_the_catch_up_reads_what_the_exact_reader_reads(lines: list[bytes], torn_end: bool, crlf_header: bool) -> None:
    """Odd lines of every kind: the lines, values, hashes, spans and counts the catch-up reads,
    and its rows, locators, FTS and state, are those of the exact reader (``iter_records``)."""
    head = line(header())
    if crlf_header:
        head = head[:-1] + b"\r\n"
    data = head + b"".join(lines)
    if torn_end and data.endswith(b"\n"):
        data = data[:-1]
    records = list(iter_records(io.BytesIO(data)))
    objects = [(decode_value(data[r.start : r.end - r.terminated]), r.sha256, r.start, r.end)
               for r in records if r.kind is RecordKind.ENTRY and r.is_object]
    skipped = sum(r.kind in (RecordKind.MALFORMED, RecordKind.FALSY, RecordKind.OVERSIZE)
                  or (r.kind is RecordKind.ENTRY and not r.is_object) for r in records)
    located = {f"{SID}:{storable(value['id'])}": (sha256, start, end)
               for value, sha256, start, end in objects if is_pi_entry(value)}  # the later line wins
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(data)
        got: list[catchup_source.EntryLine] = []
        with open(path, "rb") as raw:
            source = catchup_source.OpenSession(raw, str(path), os.fstat(raw.fileno()),
                                                catchup_source.read_header(raw, str(path)))
            read = catchup_source.read_range(source, 0, got.append, rebuild=True)
        assert [(entry.value, entry.sha256, entry.start, entry.end) for entry in got] == objects
        assert read.malformed == skipped
        assert read.checkpoint == next(((r.start, r.end) for r in reversed(records) if r.terminated), None)
        index = open_index(Path(folder) / "index.sqlite")
        state = catch_up(index, str(path))
        rows = snapshot(index)[0]
        assert {row[0]: (row[7], row[10], row[11]) for row in rows} == located
        assert state.malformed_lines == skipped + len(objects) - len(located)
        assert state.checkpoint_offset == (read.checkpoint[1] if read.checkpoint else 0)
        assert fts_consistent(index)
        index.close()


@pytest.mark.parametrize("blank_lines", [0, 1], ids=["same-offset", "moved"])
def test_a_rebuild_refuses_a_header_that_changed_after_it_was_read(tmp_path: Path, blank_lines: int) -> None:
    """The header a rebuild checked first must be the session line it meets in the range
    (same bytes at the same offset), else ``session-changed``."""
    read_first = write(tmp_path / "first.jsonl", header(), user("a1", "one"))
    now = write(tmp_path / "now.jsonl", header(cwd="/elsewhere"), user("a1", "one"))  # other bytes
    if blank_lines:
        now.write_bytes(b"\n" + read_first.read_bytes())  # the same bytes, one byte later
    with open(read_first, "rb") as first, open(now, "rb") as raw:
        checked = catchup_source.read_header(first, str(read_first))
        source = catchup_source.OpenSession(raw, str(now), os.fstat(raw.fileno()), checked)
        with pytest.raises(ContractViolation) as refused:
            catchup_source.read_range(source, 0, lambda entry: None, rebuild=True)
    assert refused.value.code == "session-changed"
