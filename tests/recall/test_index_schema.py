"""The index database: migration ledger, schema constraints and the FTS triggers (real SQLite files)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit.ftscheck import matches

from reference.primitives.errors import ContractViolation
from reference.recall import index_schema as index_db
from reference.recall.index_schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    default_index_path,
    migration_checksum,
    open_index,
    split_statements,
)

#: Pinned forever: a released migration must never change (add a new one instead).
GOLDEN_CHECKSUMS = {
    1: "22d5277b6e5832d7906ca4d65a3f1cab6047c5065b7b94aae941cd2263c2ab46",
    2: "ee25afeb4cb6eec31bec3f7e0174b466e2d610ec17243f878d7d62167b558875",
    3: "cce24edcad16ba1912209d4183a350df6cdf4bb196a2150afe09c52955d79179",
    4: "5981c5dd9a464868f94cc01f5bb97ba906046f8dae6754cb280d92259e661b70",
}


def fts_matches_reference(conn: sqlite3.Connection) -> bool:
    """The external-content FTS index holds exactly the token instances, and the bm25 statistics,
    of a fresh FTS5 table filled from ``entries_fts_content`` (a double delete breaks bm25)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.got_vocab USING fts5vocab(main, entries_fts, 'instance')")
    conn.execute("DROP TABLE IF EXISTS temp.expected")
    conn.execute("CREATE VIRTUAL TABLE temp.expected USING fts5(t, tokenize = 'unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO temp.expected(rowid, t) SELECT fts_rowid, searchable_text FROM entries_fts_content")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.want_vocab USING fts5vocab(temp, expected, 'instance')")
    got = sorted(conn.execute("SELECT term, doc, offset FROM temp.got_vocab").fetchall())
    want = sorted(conn.execute("SELECT term, doc, offset FROM temp.want_vocab").fetchall())
    if got != want:
        return False
    for term in sorted({row[0] for row in want})[:25]:
        quoted = '"' + term.replace('"', '""') + '"'
        got_scores = conn.execute(
            "SELECT rowid, round(bm25(entries_fts), 9) FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rowid",
            (quoted,),
        ).fetchall()
        want_scores = conn.execute(
            "SELECT rowid, round(bm25(expected), 9) FROM temp.expected WHERE expected MATCH ? ORDER BY rowid",
            (quoted,),
        ).fetchall()
        if got_scores != want_scores:
            return False
    return True


def add_entry(conn: sqlite3.Connection, key: str, text: str, session: str = "s") -> None:
    """Insert one row the way the indexer does: entry, FTS key, filter row, FTS row, locator."""
    conn.execute("INSERT OR IGNORE INTO sessions VALUES (?, '/f', NULL, 'h')", (session,))
    conn.execute(
        "INSERT INTO entries VALUES (?, ?, ?, NULL, 'message', 'user', 1, 'h', ?, 1, 1)",
        (key, session, key.split(":", 1)[1], text),
    )
    rowid = conn.execute("SELECT coalesce(max(fts_rowid), 0) + 1 FROM entries_fts_keys").fetchone()[0]
    conn.execute("INSERT INTO entries_fts_keys VALUES (?, ?)", (rowid, key))
    conn.execute("INSERT INTO entries_fts(rowid, searchable_text) VALUES (?, ?)", (rowid, text))
    conn.execute("INSERT INTO entry_filters SELECT ?, session_no, 1, 1, 1, ? FROM session_numbers WHERE session_id = ?",
                 (rowid, key.split(":", 1)[1], session))
    conn.execute("INSERT INTO entry_source_locations VALUES (?, 0, 10)", (key,))




@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = open_index(tmp_path / "index.sqlite")
    yield connection
    connection.close()


def test_golden_migration_checksums() -> None:
    assert [version for version, _name, _sql in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert {version: migration_checksum(version, name, sql) for version, name, sql in MIGRATIONS} == GOLDEN_CHECKSUMS
    assert [name for _version, name, _sql in MIGRATIONS] == ["session-index", "canonical-history-source-locations",
                                                                 "rebuildable-rebase-projections", "recall-filter-columns"]


def test_checksum_is_sha256_of_version_name_sql() -> None:
    assert migration_checksum(7, "name", "SELECT 1") == hashlib.sha256(b"7\nname\nSELECT 1").hexdigest()
    assert migration_checksum(1, "a", "x") != migration_checksum(1, "a", "x ")


def test_open_creates_a_migrated_wal_database(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "recall-rebase" / "index.sqlite"
    conn = open_index(path)
    assert path.is_file()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == index_db.BUSY_TIMEOUT_MS
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    ledger = conn.execute("SELECT version, name, checksum FROM schema_migrations ORDER BY version").fetchall()
    assert ledger == [(v, n, GOLDEN_CHECKSUMS[v]) for v, n, _sql in MIGRATIONS]
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    assert {"sessions", "entries", "entries_fts", "entries_fts_keys", "session_index_state",
            "entry_source_locations", "schema_migrations"} <= tables
    assert not conn.in_transaction
    conn.close()


def test_reopening_applies_nothing_again(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    open_index(path).close()
    first = sqlite3.connect(path).execute("SELECT * FROM schema_migrations").fetchall()
    open_index(path).close()
    assert sqlite3.connect(path).execute("SELECT * FROM schema_migrations").fetchall() == first


def test_default_index_path() -> None:
    agent = os.path.join("home", "u", ".pi", "agent")
    assert default_index_path(agent) == os.path.join(agent, "recall-rebase", "index.sqlite")


def test_a_recorded_unknown_version_is_newer(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    open_index(path).close()
    raw = sqlite3.connect(path)
    raw.execute("INSERT INTO schema_migrations VALUES (?, 'from-the-future', 'x', 0)", (SCHEMA_VERSION + 1,))
    raw.commit()
    raw.close()
    with pytest.raises(ContractViolation) as caught:
        open_index(path)
    assert caught.value.code == "index-schema-newer"
    assert f"latest {SCHEMA_VERSION}" in caught.value.message


def test_a_higher_user_version_is_newer(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    open_index(path).close()
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 9")
    raw.close()
    with pytest.raises(ContractViolation) as caught:
        open_index(path)
    assert caught.value.code == "index-schema-newer"


def test_a_changed_checksum_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    open_index(path).close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE schema_migrations SET checksum = 'f00d' WHERE version = 1")
    raw.commit()
    raw.close()
    with pytest.raises(ContractViolation) as caught:
        open_index(path)
    assert caught.value.code == "index-migration-changed"


def test_a_changed_migration_in_the_code_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "index.sqlite"
    open_index(path).close()
    version, name, sql = MIGRATIONS[1]
    monkeypatch.setattr(index_db, "MIGRATIONS", (MIGRATIONS[0], (version, name, sql + "\n"), *MIGRATIONS[2:]))
    with pytest.raises(ContractViolation) as caught:
        open_index(path)
    assert caught.value.code == "index-migration-changed"


def test_missing_migrations_are_applied_on_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "index.sqlite"
    with monkeypatch.context() as patch:
        patch.setattr(index_db, "MIGRATIONS", MIGRATIONS[:1])
        patch.setattr(index_db, "SCHEMA_VERSION", 1)
        open_index(path).close()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
    assert raw.execute("SELECT name FROM sqlite_master WHERE name = 'entry_source_locations'").fetchone() is None
    raw.close()
    conn = open_index(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [row[0] for row in conn.execute("SELECT version FROM schema_migrations")] == list(range(1, SCHEMA_VERSION + 1))
    conn.close()


def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "index.sqlite"
    open_index(path).close()
    broken = (SCHEMA_VERSION + 1, "broken", "CREATE TABLE half_done (x INTEGER) STRICT;\nCREATE TABLE oops (;")
    monkeypatch.setattr(index_db, "MIGRATIONS", (*MIGRATIONS, broken))
    monkeypatch.setattr(index_db, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(sqlite3.Error):
        open_index(path)
    raw = sqlite3.connect(path)
    assert raw.execute("SELECT name FROM sqlite_master WHERE name = 'half_done'").fetchone() is None
    assert raw.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == SCHEMA_VERSION
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_split_statements_keeps_trigger_bodies_whole() -> None:
    statements = split_statements(MIGRATIONS[0][2])
    assert all(sqlite3.complete_statement(statement) for statement in statements)
    triggers = [s for s in statements if s.startswith("CREATE TRIGGER")]
    assert len(triggers) == 5 and all(s.rstrip().endswith("END;") for s in triggers)
    assert split_statements("SELECT 1; ;\n SELECT 2;") == ["SELECT 1;", "SELECT 2;"]
    with pytest.raises(ValueError):
        split_statements("SELECT 1; CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1;")


def test_tables_are_strict_and_checked(conn: sqlite3.Connection) -> None:
    add_entry(conn, "s:a", "text")
    with pytest.raises(sqlite3.IntegrityError):  # STRICT: no text in an INTEGER column
        conn.execute("UPDATE entries SET token_estimate = 'many' WHERE entry_key = 's:a'")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE entry_source_locations SET start_offset = -1")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE entry_source_locations SET end_offset = start_offset")
    with pytest.raises(sqlite3.IntegrityError):  # a locator needs its entry
        conn.execute("INSERT INTO entry_source_locations VALUES ('s:none', 0, 1)")
    with pytest.raises(sqlite3.IntegrityError):  # an entry needs its session
        conn.execute("INSERT INTO entries VALUES ('x:a', 'x', 'a', NULL, 'message', NULL, NULL, 'h', '', 0, 0)")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE entries SET entry_key = 's:b'")


def test_fts_folds_case_and_diacritics(conn: sqlite3.Connection) -> None:
    add_entry(conn, "s:a", "Der Cache ist ungültig — Café naïve")
    add_entry(conn, "s:b", "nothing here")
    assert matches(conn, "cafe") == ["s:a"]
    assert matches(conn, '"ungultig"') == ["s:a"]
    assert matches(conn, "NAIVE") == ["s:a"]
    assert fts_matches_reference(conn)


def test_deleting_an_entry_removes_its_fts_row_key_and_locator(conn: sqlite3.Connection) -> None:
    add_entry(conn, "s:a", "alpha shared")
    add_entry(conn, "s:b", "beta shared")
    conn.execute("DELETE FROM entries WHERE entry_key = 's:a'")
    assert matches(conn, "shared") == ["s:b"]
    assert matches(conn, "alpha") == []
    assert conn.execute("SELECT count(*) FROM entries_fts_keys").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM entry_source_locations").fetchone()[0] == 1
    assert fts_matches_reference(conn)


def test_updating_the_text_updates_fts(conn: sqlite3.Connection) -> None:
    add_entry(conn, "s:a", "old words")
    conn.execute("UPDATE entries SET searchable_text = 'new words' WHERE entry_key = 's:a'")
    assert matches(conn, "old") == []
    assert matches(conn, "new") == ["s:a"]
    conn.execute("UPDATE entries SET role = 'assistant' WHERE entry_key = 's:a'")  # text unchanged: no FTS work
    assert fts_matches_reference(conn)


def test_deleting_a_key_row_removes_its_fts_row(conn: sqlite3.Connection) -> None:
    add_entry(conn, "s:a", "alpha")
    conn.execute("DELETE FROM entries_fts_keys WHERE entry_key = 's:a'")
    assert matches(conn, "alpha") == []
    assert fts_matches_reference(conn)


def test_deleting_sessions_cascades_without_orphan_fts_rows(conn: sqlite3.Connection) -> None:
    for index in range(5):
        add_entry(conn, f"s:{index}", f"common term{index}", session="s")
        add_entry(conn, f"t:{index}", f"common other{index}", session="t")
    conn.execute("INSERT INTO session_index_state VALUES ('s', '/f', 'h', 1, 1, 1, 0, 'x', 5, 0, 0)")
    conn.execute("DELETE FROM sessions WHERE session_id = 's'")
    assert matches(conn, "common") == [f"t:{index}" for index in range(5)]
    assert matches(conn, "term0 OR term4") == []
    assert conn.execute("SELECT count(*) FROM entries WHERE session_id = 's'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM entry_source_locations WHERE entry_key LIKE 's:%'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM session_index_state").fetchone()[0] == 0
    assert fts_matches_reference(conn)
    conn.execute("DELETE FROM sessions")
    assert matches(conn, "common") == []
    assert fts_matches_reference(conn)


def test_the_reference_check_can_fail(conn: sqlite3.Connection) -> None:
    add_entry(conn, "s:a", "alpha beta")
    add_entry(conn, "s:b", "gamma")
    conn.execute("INSERT INTO entries_fts(entries_fts, rowid, searchable_text) VALUES ('delete', 1, 'alpha beta')")
    assert not fts_matches_reference(conn)
