"""The SQLite index: a rebuildable projection of session files, with a checksummed migration ledger.

Nothing in it is authority: deleting the database loses nothing, the next catch-up projects the
JSONL again.  Migrations are append-only; each one's SQL is pinned by a checksum in the ledger and
by a golden test, so a released migration can never change silently under an existing database.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.owner_only import create_owner_only, ensure_private_dir
from reference.recall.index_claim import APPLICATION_ID, INDEX_DIR_NAME, IndexClaim, claim_index
from reference.recall.model_facts import create_tables as create_model_facts

BUSY_TIMEOUT_MS: Final = 10_000  # a rebuild of a large session holds the write lock for seconds
INDEX_FILE_NAME: Final = "index.sqlite"

_SESSION_INDEX_SQL: Final = """
CREATE TABLE sessions (
  session_id TEXT PRIMARY KEY,
  session_file TEXT NOT NULL,
  cwd TEXT,
  header_hash TEXT NOT NULL
) STRICT;

CREATE TABLE entries (
  entry_key TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(session_id) ON DELETE CASCADE,
  entry_id TEXT NOT NULL,
  parent_id TEXT,
  entry_type TEXT NOT NULL,
  role TEXT,
  created_at INTEGER,
  content_hash TEXT NOT NULL,
  searchable_text TEXT NOT NULL,
  token_estimate INTEGER NOT NULL,
  indexed_at INTEGER NOT NULL
) STRICT;

CREATE INDEX entries_session_entry_idx ON entries(session_id, entry_id);
CREATE INDEX entries_session_created_idx ON entries(session_id, created_at);

CREATE TABLE entries_fts_keys (
  fts_rowid INTEGER PRIMARY KEY,
  entry_key TEXT NOT NULL UNIQUE REFERENCES entries(entry_key) ON DELETE CASCADE
) STRICT;

CREATE VIEW entries_fts_content AS
  SELECT k.fts_rowid AS fts_rowid, e.searchable_text AS searchable_text
  FROM entries_fts_keys AS k JOIN entries AS e ON e.entry_key = k.entry_key;

CREATE VIRTUAL TABLE entries_fts USING fts5(
  searchable_text,
  content = 'entries_fts_content',
  content_rowid = 'fts_rowid',
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER entries_fts_before_delete BEFORE DELETE ON entries BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, searchable_text)
    SELECT 'delete', k.fts_rowid, old.searchable_text FROM entries_fts_keys AS k
    WHERE k.entry_key = old.entry_key;
END;

CREATE TRIGGER entries_fts_before_update BEFORE UPDATE OF searchable_text ON entries
WHEN old.searchable_text IS NOT new.searchable_text BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, searchable_text)
    SELECT 'delete', k.fts_rowid, old.searchable_text FROM entries_fts_keys AS k
    WHERE k.entry_key = old.entry_key;
END;

CREATE TRIGGER entries_fts_after_update AFTER UPDATE OF searchable_text ON entries
WHEN old.searchable_text IS NOT new.searchable_text BEGIN
  INSERT INTO entries_fts(rowid, searchable_text)
    SELECT k.fts_rowid, new.searchable_text FROM entries_fts_keys AS k
    WHERE k.entry_key = new.entry_key;
END;

CREATE TRIGGER entries_key_immutable BEFORE UPDATE OF entry_key ON entries
WHEN old.entry_key IS NOT new.entry_key BEGIN
  SELECT RAISE(ABORT, 'entries.entry_key is immutable');
END;

CREATE TRIGGER entries_fts_keys_before_delete BEFORE DELETE ON entries_fts_keys BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, searchable_text)
    SELECT 'delete', old.fts_rowid, e.searchable_text FROM entries AS e
    WHERE e.entry_key = old.entry_key;
END;

CREATE TABLE session_index_state (
  session_id TEXT PRIMARY KEY REFERENCES sessions(session_id) ON DELETE CASCADE,
  session_file TEXT NOT NULL,
  header_hash TEXT NOT NULL,
  file_size INTEGER NOT NULL,
  file_mtime_ns INTEGER NOT NULL,
  checkpoint_offset INTEGER NOT NULL,
  checkpoint_hash_start INTEGER,
  checkpoint_hash TEXT,
  indexed_entries INTEGER NOT NULL,
  malformed_lines INTEGER NOT NULL,
  tail_unterminated INTEGER NOT NULL
) STRICT;
"""

_SOURCE_LOCATIONS_SQL: Final = """
CREATE TABLE entry_source_locations (
  entry_key TEXT PRIMARY KEY REFERENCES entries(entry_key) ON DELETE CASCADE,
  start_offset INTEGER NOT NULL CHECK (start_offset >= 0),
  end_offset INTEGER NOT NULL CHECK (end_offset > start_offset)
) STRICT;
"""

_REBASE_PROJECTIONS_SQL: Final = """
CREATE TABLE rebase_checkpoints (
  checkpoint_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE,
  payload_json TEXT NOT NULL
) STRICT;

CREATE TABLE session_lineage (
  target_session_id TEXT PRIMARY KEY,
  source_session_id TEXT NOT NULL,
  source_leaf_id TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  payload_json TEXT NOT NULL
) STRICT;

CREATE INDEX session_lineage_ancestor_idx ON session_lineage(source_session_id);

CREATE TABLE rebase_operations (
  operation_id TEXT PRIMARY KEY,
  phase TEXT NOT NULL,
  payload_json TEXT NOT NULL
) STRICT;
"""

_RECALL_FILTERS_SQL: Final = """
CREATE TABLE session_numbers (
  session_no INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE REFERENCES sessions(session_id) ON DELETE CASCADE
) STRICT;

CREATE TRIGGER session_numbers_after_session_insert AFTER INSERT ON sessions BEGIN
  INSERT OR IGNORE INTO session_numbers(session_id) VALUES (new.session_id);
END;

INSERT INTO session_numbers(session_id) SELECT session_id FROM sessions ORDER BY session_id;

CREATE TABLE entry_filters (
  fts_rowid INTEGER PRIMARY KEY REFERENCES entries_fts_keys(fts_rowid) ON DELETE CASCADE,
  session_no INTEGER NOT NULL,
  type_code INTEGER NOT NULL,
  role_code INTEGER,
  created_at INTEGER,
  entry_id TEXT NOT NULL
) STRICT;

INSERT INTO entry_filters(fts_rowid, session_no, type_code, role_code, created_at, entry_id)
  SELECT k.fts_rowid, n.session_no,
    CASE e.entry_type WHEN 'message' THEN 1 WHEN 'custom_message' THEN 2 WHEN 'compaction' THEN 3
      WHEN 'branch_summary' THEN 4 ELSE 0 END,
    CASE WHEN e.role IS NULL THEN NULL WHEN e.role = 'user' THEN 1 WHEN e.role = 'assistant' THEN 2
      WHEN e.role = 'toolResult' THEN 3 WHEN e.role = 'bashExecution' THEN 4 WHEN e.role = 'custom' THEN 5
      WHEN e.role = 'summary' THEN 6 ELSE 0 END,
    e.created_at, e.entry_id
  FROM entries_fts_keys AS k
  JOIN entries AS e ON e.entry_key = k.entry_key
  JOIN session_numbers AS n ON n.session_id = e.session_id
  ORDER BY k.fts_rowid;

CREATE TRIGGER entry_filters_after_update AFTER UPDATE OF session_id, entry_id, entry_type, role, created_at ON entries
WHEN old.session_id IS NOT new.session_id OR old.entry_id IS NOT new.entry_id
  OR old.entry_type IS NOT new.entry_type OR old.role IS NOT new.role OR old.created_at IS NOT new.created_at
BEGIN
  UPDATE entry_filters SET
    session_no = (SELECT n.session_no FROM session_numbers AS n WHERE n.session_id = new.session_id),
    type_code = CASE new.entry_type WHEN 'message' THEN 1 WHEN 'custom_message' THEN 2 WHEN 'compaction' THEN 3
      WHEN 'branch_summary' THEN 4 ELSE 0 END,
    role_code = CASE WHEN new.role IS NULL THEN NULL WHEN new.role = 'user' THEN 1 WHEN new.role = 'assistant' THEN 2
      WHEN new.role = 'toolResult' THEN 3 WHEN new.role = 'bashExecution' THEN 4 WHEN new.role = 'custom' THEN 5
      WHEN new.role = 'summary' THEN 6 ELSE 0 END,
    created_at = new.created_at,
    entry_id = new.entry_id
  WHERE fts_rowid = (SELECT k.fts_rowid FROM entries_fts_keys AS k WHERE k.entry_key = new.entry_key);
END;
"""

#: The codes of ``entry_filters`` (migration 4): entry types and index roles; any other type or
#: role is 0, a NULL role stays NULL.  The SQL of migration 4 spells out the same mapping.
TYPE_CODES: Final = {"message": 1, "custom_message": 2, "compaction": 3, "branch_summary": 4}
ROLE_CODES: Final = {"user": 1, "assistant": 2, "toolResult": 3, "bashExecution": 4, "custom": 5, "summary": 6}

#: ``(version, name, sql)`` in order.  Append only: never edit a released entry (golden test).
MIGRATIONS: Final[tuple[tuple[int, str, str], ...]] = (
    (1, "session-index", _SESSION_INDEX_SQL),
    (2, "canonical-history-source-locations", _SOURCE_LOCATIONS_SQL),
    (3, "rebuildable-rebase-projections", _REBASE_PROJECTIONS_SQL),
    (4, "recall-filter-columns", _RECALL_FILTERS_SQL),
)
SCHEMA_VERSION: Final = MIGRATIONS[-1][0]
#: Ours, outside the migration ledger so the TypeScript implementation still opens the file (a
#: migration it does not know would be ``index-schema-newer`` to it): each session file's change
#: stamp when its state was last written (``primitives.platform_ops.identity``, issue 12, D15).
FILE_STAMPS_SQL: Final = """
CREATE TABLE IF NOT EXISTS recall_rebase_file_stamps (
  session_id TEXT PRIMARY KEY,
  stamp TEXT NOT NULL
) STRICT
"""

_LEDGER_SQL: Final = """
CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at INTEGER NOT NULL
) STRICT
"""


def migration_checksum(version: int, name: str, sql: str) -> str:
    """SHA-256 hex of ``"<version>\\n<name>\\n<sql>"``, as the upstream framework computes it."""
    return hashlib.sha256(f"{version}\n{name}\n{sql}".encode()).hexdigest()


def default_index_path(agent_dir: str) -> str:
    """``<agentDir>/recall-rebase/index.sqlite``: ours, apart from any other extension's database."""
    return os.path.join(agent_dir, INDEX_DIR_NAME, INDEX_FILE_NAME)


def split_statements(sql: str) -> list[str]:
    """One SQL script as single statements (trigger bodies kept whole), for ``execute``.

    ``executescript`` would commit the migration transaction half way.
    """
    statements: list[str] = []
    pending = ""
    for piece in sql.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip().strip(";").strip():
                statements.append(pending.strip())
            pending = ""
    if pending.strip().strip(";").strip():
        raise ValueError(f"incomplete SQL statement: {pending.strip()[:80]}")
    return statements


@contextmanager
def write_transaction(conn: sqlite3.Connection, *, cache_kib: int | None = None) -> Iterator[None]:
    """The block in one ``BEGIN IMMEDIATE`` transaction (the write lock from the start), committed
    at its end, rolled back on any error (unless SQLite already did, after ``SQLITE_FULL`` say);
    ``cache_kib``: SQLite's page cache meanwhile (the default is 2 MiB)."""
    cache_size = int(conn.execute("PRAGMA cache_size").fetchone()[0])
    if cache_kib is not None:
        conn.execute(f"PRAGMA cache_size = {-cache_kib:d}")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    finally:
        conn.execute(f"PRAGMA cache_size = {cache_size:d}")


def _newer(version: int) -> ContractViolation:
    return ContractViolation(
        Code.INDEX_SCHEMA_NEWER,
        f"index database schema version {version} is newer than this implementation supports "
        f"(latest {SCHEMA_VERSION}); use a newer recall-rebase or delete the index to rebuild it",
    )


def migrate(conn: sqlite3.Connection) -> None:
    """Check the ledger and apply every missing migration in one transaction."""
    known = {version: (name, migration_checksum(version, name, sql)) for version, name, sql in MIGRATIONS}
    with write_transaction(conn):
        conn.execute(_LEDGER_SQL)
        recorded = conn.execute("SELECT version, name, checksum FROM schema_migrations ORDER BY version").fetchall()
        for version, _name, _checksum in recorded:
            if version not in known:
                raise _newer(version)
        user_version = conn.execute("PRAGMA user_version").fetchone()[0]
        if user_version > SCHEMA_VERSION:
            raise _newer(user_version)
        for version, name, checksum in recorded:
            if (name, checksum) != known[version]:
                raise ContractViolation(
                    Code.INDEX_MIGRATION_CHANGED,
                    f"migration {version} {name!r} was recorded with checksum {checksum}, this "
                    f"implementation has {known[version][1]} ({known[version][0]!r}); delete the index to rebuild it",
                )
        applied = {row[0] for row in recorded}
        now_ms = time.time_ns() // 1_000_000
        for version, name, sql in MIGRATIONS:
            if version in applied:
                continue
            for statement in split_statements(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations(version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                (version, name, known[version][1], now_ms),
            )
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")  # an index made before the id


def _connect(location: str, claim: IndexClaim) -> sqlite3.Connection:
    """SQLite's connection to the index file, which SQLite itself never creates.

    Every folder is created 0700 and a new file 0600 before SQLite opens it, so its -wal and -shm
    get 0600 too (SQLite copies the database's mode; AUDIT-017, OWNER-001); a file that is ours is
    there already.  SQLite opens the path read-write without create (``mode=rw``): a file removed
    after the look at it is created again 0600 here, never by SQLite with the umask's mode.
    """
    if location == ":memory:" or location.startswith("file:"):
        return sqlite3.connect(location, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    ensure_private_dir(os.path.dirname(os.path.abspath(location)))
    uri = Path(os.path.abspath(location)).as_uri() + "?mode=rw"
    if claim is not IndexClaim.OURS:
        create_owner_only(location)
    try:
        return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.OperationalError:
        if claim is not IndexClaim.OURS or os.path.lexists(location):
            raise
    create_owner_only(location)  # ours was removed since the look: a new index, as for a missing path
    return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)


def open_index(path: str | Path, *, claim: IndexClaim | None = None) -> sqlite3.Connection:
    """Open (creating if needed) the index: WAL, foreign keys on, busy timeout, migrated.

    ``claim``: what :func:`claim_index` has just answered for the path (the caller's one look at
    it: ``index_repair.open_repaired``), else the path is looked at here.  The connection is in
    autocommit mode (``isolation_level=None``): writers open their own ``BEGIN IMMEDIATE``
    transactions, readers need none.
    """
    location = os.fspath(path)
    if claim is None:
        claim = claim_index(location)  # a file we did not make is refused before SQLite opens it (I14)
    conn = _connect(location, claim)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
        if conn.execute("PRAGMA page_count").fetchone()[0] == 0:
            # A new file: the id is its first write, in rollback mode, so it is in the file's own
            # header (never only in a -wal) from the moment the file has one.
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = WAL").fetchone()
        conn.execute("PRAGMA synchronous = NORMAL")  # a projection: a lost last commit is rebuilt
        migrate(conn)
        conn.execute(FILE_STAMPS_SQL)
        create_model_facts(conn)
    except BaseException:
        conn.close()
        raise
    return conn
