"""What the checks need of the files beyond their lines: paths, folders, modes, hashes, integrity.

Loaded into the audit's DuckDB before it is sealed (``sql/facts_tables.sql`` declares the tables).
Every file is only opened for reading. Byte ranges are hashed with ``hashlib`` straight from the
file (a range can be a 1 GB prefix, which DuckDB's one-shot ``sha256()`` would hold in memory), and
only in files among the audited ones: a journal naming ``/dev/zero`` gets ``not-audited``, not a read.
The integrity statements of a mapping (FTS5's ``'integrity-check'`` is an INSERT) run on a private
copy of the index, never on the index itself.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, Final

import duckdb

from conformance.audit.index_snapshot import read_only_index
from conformance.audit.inputs import AuditInputs
from conformance.audit.ndjson_load import load_rows
from conformance.audit.sql_files import sql_text

CHUNK: Final = 1024 * 1024
#: The custom entry types of a rebase whose place on the active branch a check asks about.
REBASE_CUSTOM_TYPES: Final = ("ds4-rebase-checkpoint-v1", "ds4-rebase-link-v1")
#: Whether this OS gives files permission bits the owner-only check can read.
HAS_PERMISSION_BITS: Final = os.name == "posix"
_SIDE_FILES: Final = (("index", ""), ("index-wal", "-wal"), ("index-shm", "-shm"))
_REBASE_TYPE_PATTERN: Final = re.compile(rb'"customType"\s*:\s*"ds4-rebase-(checkpoint|link)-v1"')


def _real(path: Path) -> str:
    return str(Path(os.path.realpath(path)))


def _mode(path: Path) -> int | None:
    return stat.S_IMODE(path.lstat().st_mode) if HAS_PERMISSION_BITS else None


def _insert(connection: duckdb.DuckDBPyConnection, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
    if rows:
        marks = ", ".join("?" * len(rows[0]))
        connection.executemany(f"INSERT INTO {table} VALUES ({marks})", list(rows))


def load_paths(connection: duckdb.DuckDBPyConnection, inputs: AuditInputs) -> None:
    """``audit_paths``, ``audit_folder_entries`` and ``audit_files`` (modes of the projection's files)."""
    _insert(connection, "audit_paths", [(str(path), _real(path), _real(path.parent)) for path in inputs.session_files])
    entries: list[tuple[Any, ...]] = []
    for folder in (*inputs.session_dirs, *inputs.journal_dirs):
        for child in sorted(folder.iterdir()):
            entries.append((_real(folder), child.name, _real(child), child.is_file()))
    _insert(connection, "audit_folder_entries", entries)
    files: list[tuple[Any, ...]] = []
    for role, suffix in _SIDE_FILES:
        side = Path(f"{inputs.index}{suffix}")
        if side.exists():
            files.append((str(side.absolute()), role, _mode(side)))
    for folder in inputs.journal_dirs:
        files.append((str(folder.absolute()), "operations-folder", _mode(folder)))
        files += [(str(path.absolute()), "journal", _mode(path)) for path in sorted(folder.glob("*.json"))]
    _insert(connection, "audit_files", files)


def read_range(path: str, start: int, end: int) -> bytes:
    """Bytes ``[start, end)`` of the file at ``path`` (fewer at its end), opened read-only."""
    with open(path, "rb") as stream:
        stream.seek(start)
        return stream.read(end - start)


def _hash_range(path: str, start: Any, end: Any, audited: set[str]) -> tuple[str | None, str | None]:
    """The SHA-256 of ``[start, end)`` of ``path``, or why there is none."""
    if not (isinstance(start, int) and isinstance(end, int)) or start < 0 or end < start:
        return None, "bad-range"
    if _real(Path(path)) not in audited:
        return None, "not-audited" if Path(path).exists() else "missing"
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            stream.seek(start)
            left = end - start
            while left > 0 and (chunk := stream.read(min(CHUNK, left))):
                digest.update(chunk)
                left -= len(chunk)
    except OSError:
        return None, "unreadable"
    return (None, "shorter") if left > 0 else (digest.hexdigest(), None)


def load_hashes(connection: duckdb.DuckDBPyConnection) -> None:
    """``audit_hashes``: every range ``sql/facts_hash_requests.sql`` asks for, hashed from the file."""
    audited = {str(row[0]) for row in connection.execute("SELECT real_path FROM audit_paths").fetchall()}
    requests = connection.execute(sql_text("facts_hash_requests")).fetchall()
    rows = [(path, start, end, *_hash_range(str(path), start, end, audited)) for path, start, end in requests]
    _insert(connection, "audit_hashes", rows)


def _active_branch(connection: duckdb.DuckDBPyConnection, session_file: str) -> set[str]:
    """The entry ids from the file's last entry back to its root (each id once: a cycle ends it)."""
    parents: dict[str, str | None] = {}
    leaf = None
    for entry_id, parent_id in connection.execute(sql_text("facts_branch_links"), {"session_file": session_file}).fetchall():
        parents[entry_id] = parent_id  # a repeated id: the later line wins, as in Pi's id index
        leaf = entry_id
    branch: set[str] = set()
    while leaf is not None and leaf not in branch:
        branch.add(leaf)
        leaf = parents.get(leaf)
    return branch


def _custom_rows(connection: duckdb.DuckDBPyConnection) -> Iterator[dict[str, Any]]:
    """The custom entries with their line's text; a rebase checkpoint or link knows its branch."""
    branches: dict[str, set[str]] = {}
    for session_file, line_no, start, end, entry_id in connection.execute(sql_text("facts_custom_lines")).fetchall():
        data = read_range(session_file, start, end)
        rebase_type = _REBASE_TYPE_PATTERN.search(data) is not None
        if rebase_type and session_file not in branches:
            branches[session_file] = _active_branch(connection, session_file)
        yield {"session_file": session_file, "line_no": line_no, "entry_id": entry_id,
               "line_text": data.decode("utf-8", "replace"),
               "on_active_branch": entry_id in branches.get(session_file, set())}


def load_custom(connection: duckdb.DuckDBPyConnection, scratch: Path) -> None:
    """``jsonl_custom``: DuckDB reads customType and data from each custom entry's line."""
    columns = {"session_file": "VARCHAR", "line_no": "BIGINT", "entry_id": "VARCHAR", "line_text": "VARCHAR",
               "on_active_branch": "BOOLEAN"}
    connection.execute("CREATE TEMP TABLE jsonl_custom_lines (session_file VARCHAR, line_no BIGINT, "
                       "entry_id VARCHAR, line_text VARCHAR, on_active_branch BOOLEAN)")
    load_rows(connection, "jsonl_custom_lines", columns, _custom_rows(connection), scratch)
    connection.execute(sql_text("facts_custom_insert"))
    connection.execute("DROP TABLE jsonl_custom_lines")


def _integrity_rows(index: Path, statements: Sequence[str]) -> list[tuple[str, bool, str]]:
    """SQLite's quick_check on the index itself, then each statement on a private copy."""
    rows: list[tuple[str, bool, str]] = []
    with read_only_index(index) as source:
        messages = [str(row[0]) for row in source.execute("PRAGMA quick_check").fetchall()]
        rows.append(("PRAGMA quick_check", messages == ["ok"], "; ".join(messages)[:500]))
        if not statements:
            return rows
        with tempfile.TemporaryDirectory(prefix="recall-rebase-audit-copy-") as private, \
                closing(sqlite3.connect(Path(private) / "index.sqlite", isolation_level=None)) as copy:
            source.backup(copy)
            for statement in statements:
                try:
                    copy.execute(statement)
                    rows.append((statement, True, "ok"))
                except sqlite3.Error as error:
                    rows.append((statement, False, str(error)[:500]))
    return rows


def load_integrity(connection: duckdb.DuckDBPyConnection, index: Path, statements: Sequence[str]) -> None:
    """``audit_integrity``: what SQLite and the mapping's statements say of the index."""
    _insert(connection, "audit_integrity", _integrity_rows(index, statements))


def load_facts(connection: duckdb.DuckDBPyConnection, inputs: AuditInputs, integrity: Sequence[str],
               scratch: Path) -> None:
    """Every fact table, once the canonical and projection views are loaded."""
    connection.execute(sql_text("facts_tables"))
    load_paths(connection, inputs)
    load_hashes(connection)
    load_custom(connection, scratch)
    load_integrity(connection, inputs.index, integrity)
