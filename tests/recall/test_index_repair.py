"""A damaged index repairs itself and a same-size swap is seen (issue 12, docs/decisions.md D15).

Real SQLite files in a temp folder, damaged as the issue found them: 4 KiB of garbage after
the header (a whole file of garbage carries no signature of ours: issue 23, test_index_claim.py), a garbage magic, the file cut to half, 4 KiB of garbage in the middle, entry rows
deleted (with foreign keys on, and off so that orphans stay), and the session file rewritten in
place with its size and mtime put back.  After each, recall answers what a clean index answers,
the status never says ``complete`` for rows it does not hold, and the source is never written.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from testkit import history_service as testkit_session
from testkit.pilines import sha

from reference.primitives.platform_ops.family import POSIX, WINDOWS
from reference.primitives.platform_ops.identity import change_stamp
from reference.primitives.sqlite_errors import is_damage
from reference.recall.catchup import catch_up
from reference.recall.catchup_state import REASON_FILE_STAMP_CHANGED, REASON_ROWS_MISSING
from reference.recall.index_repair import CORRUPT_SUFFIX
from reference.recall.index_schema import MIGRATIONS, open_index
from reference.recall.service import HistoryService

SESSION_ID = testkit_session.SESSION_ID
_service = testkit_session.history_service


def _hits(service: HistoryService, query: str = "`quokka`") -> list[str]:
    result = service.recall({"query": query, "limit": 10}).as_json()
    assert result["status"] != "unavailable", result
    return [hit["entryId"] for hit in result["hits"]]


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    session, index = tmp_path / "session.jsonl", tmp_path / "idx" / "index.sqlite"
    testkit_session.write_session(session)
    service = _service(session, index)
    clean = _hits(service)
    assert clean and service.repairs == []
    return session, index, clean


def _garbage(index: Path) -> None:
    """4 KiB of garbage after our header (all garbage is not ours: test_index_claim.py)."""
    index.write_bytes(index.read_bytes()[:100] + os.urandom(4096))


def _garbage_header(index: Path) -> None:
    with index.open("r+b") as handle:
        handle.write(b"not an sqlite db")


def _half(index: Path) -> None:
    os.truncate(index, index.stat().st_size // 2)


def _garbage_middle(index: Path) -> None:
    size = index.stat().st_size
    with index.open("r+b") as handle:
        handle.seek(size // 2)
        handle.write(b"\xa5" * 4096)


@pytest.mark.parametrize("damage", [_garbage, _garbage_header, _half, _garbage_middle])
def test_a_corrupt_index_is_set_aside_and_recall_answers_as_a_clean_one(
    built: tuple[Path, Path, list[str]], damage: Any
) -> None:
    session, index, clean = built
    before = sha(session)
    damage(index)
    service = _service(session, index)
    assert _hits(service) == clean
    assert len(service.repairs) == 1 and service.repairs[0].startswith("index-rebuilt: ")
    assert Path(str(index) + CORRUPT_SUFFIX).is_file()
    status = service.status().as_json()
    assert status["status"] == "complete" and status["indexedEntries"] == 300
    assert sha(session) == before
    assert _hits(_service(session, index)) == clean  # the rebuilt file is sound for the next process


@pytest.mark.parametrize("damage", [_garbage, _garbage_header, _half])
def test_status_after_damage_is_never_complete(built: tuple[Path, Path, list[str]], damage: Any) -> None:
    session, index, _clean = built
    damage(index)
    status = _service(session, index).status().as_json()
    assert status["status"] == "partial" and status["warnings"] == ["index-not-yet-synchronized"]


@pytest.mark.parametrize("foreign_keys", ["ON", "OFF"])
def test_deleted_rows_are_not_complete_and_are_rebuilt(built: tuple[Path, Path, list[str]], foreign_keys: str) -> None:
    session, index, clean = built
    conn = sqlite3.connect(index)
    conn.execute(f"PRAGMA foreign_keys = {foreign_keys}")
    conn.execute("DELETE FROM entries WHERE rowid % 3 = 0")
    conn.commit()
    conn.close()
    service = _service(session, index)
    assert service.status().as_json()["status"] == "partial"
    assert _hits(service) == clean
    assert service.status().as_json()["status"] == "complete"


def test_the_catch_up_names_missing_rows(built: tuple[Path, Path, list[str]]) -> None:
    session, index, _clean = built
    conn = open_index(index)
    conn.execute("DELETE FROM entries WHERE entry_id = 'e00007'")
    state = catch_up(conn, str(session), session_id=SESSION_ID)
    assert state.rebuilt and state.rebuild_reason == REASON_ROWS_MISSING and state.indexed_entries == 300
    conn.close()


def test_one_row_fewer_is_seen_and_an_equal_count_is_not(built: tuple[Path, Path, list[str]]) -> None:
    session, index, _clean = built
    conn = open_index(index)
    assert catch_up(conn, str(session), session_id=SESSION_ID).rebuilt is False  # at the bound: nothing
    conn.execute("DELETE FROM entries_fts_keys WHERE fts_rowid = (SELECT max(fts_rowid) FROM entries_fts_keys)")
    assert catch_up(conn, str(session), session_id=SESSION_ID).rebuild_reason == REASON_ROWS_MISSING
    conn.close()


def test_a_same_size_same_mtime_rewrite_is_reindexed(built: tuple[Path, Path, list[str]]) -> None:
    session, index, _clean = built
    info = session.stat()
    data = session.read_bytes()
    at = data.index(b"quokka note 1 ")
    session.write_bytes(data[:at] + b"zebras" + data[at + 6:])  # same length, in place
    os.utime(session, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert session.stat().st_size == info.st_size and session.stat().st_mtime_ns == info.st_mtime_ns
    service = _service(session, index)
    assert _hits(service, "`zebras`") == ["e00001"]
    conn = open_index(index)
    assert catch_up(conn, str(session), session_id=SESSION_ID).rebuilt is False  # seen once, then settled
    conn.close()


def test_the_stamp_reason_is_named(built: tuple[Path, Path, list[str]]) -> None:
    session, index, _clean = built
    conn = open_index(index)
    conn.execute("UPDATE recall_rebase_file_stamps SET stamp = 'another-file'")
    state = catch_up(conn, str(session), session_id=SESSION_ID)
    assert state.rebuilt and state.rebuild_reason == REASON_FILE_STAMP_CHANGED
    conn.close()


def test_a_state_without_a_stamp_gets_one_without_a_rebuild(built: tuple[Path, Path, list[str]]) -> None:
    """An index written by upstream, or before stamps, is not rebuilt for lack of one."""
    session, index, _clean = built
    conn = open_index(index)
    conn.execute("DELETE FROM recall_rebase_file_stamps")
    assert catch_up(conn, str(session), session_id=SESSION_ID).rebuilt is False
    assert conn.execute("SELECT stamp FROM recall_rebase_file_stamps").fetchone()[0] == change_stamp(session.stat())
    conn.close()


def test_the_stamp_table_is_outside_the_migration_ledger(built: tuple[Path, Path, list[str]]) -> None:
    _session_file, index, _clean = built
    conn = sqlite3.connect(index)
    versions = [row[0] for row in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert versions == [version for version, _name, _sql in MIGRATIONS]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == MIGRATIONS[-1][0]
    conn.close()


def test_windows_stamps_are_the_identity_alone(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x")
    info = path.stat()
    assert change_stamp(info, platform=WINDOWS) == f"{info.st_dev}:{info.st_ino}"
    assert change_stamp(info, platform=POSIX) == f"{info.st_dev}:{info.st_ino}:{info.st_ctime_ns}"


@pytest.mark.parametrize(("error", "damaged"), [
    (sqlite3.DatabaseError("file is not a database"), True),
    (sqlite3.DatabaseError("database disk image is malformed"), True),
    (sqlite3.IntegrityError("UNIQUE constraint failed: t.x"), True),
    (sqlite3.OperationalError("Could not decode to UTF-8 column 'parent_id' with text 'x'"), True),
    (sqlite3.OperationalError("database is locked"), False),
    (sqlite3.OperationalError("attempt to write a readonly database"), False),
    (sqlite3.OperationalError("database or disk is full"), False),
    (sqlite3.OperationalError("fts5: syntax error near \"\""), False),
    (OSError("no"), False),
])
def test_only_damage_is_repaired(error: BaseException, damaged: bool) -> None:
    assert is_damage(error) is damaged


def test_an_error_that_is_not_damage_sets_nothing_aside(
    built: tuple[Path, Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A locked or read-only index (this may run as root, so no chmod) is the caller's error."""
    session, index, _clean = built

    def locked(*_args: Any, **_kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr("reference.recall.scope.catch_up", locked)
    service = _service(session, index)
    assert service.recall({"query": "`quokka`"}).as_json()["status"] == "unavailable"
    assert service.repairs == [] and not Path(str(index) + CORRUPT_SUFFIX).exists() and index.is_file()



def test_a_damaged_ledger_row_is_repaired_and_a_newer_ledger_is_not(built: tuple[Path, Path, list[str]]) -> None:
    session, index, clean = built
    conn = sqlite3.connect(index)
    conn.execute("UPDATE schema_migrations SET name = 'flipped' WHERE version = 1")
    conn.commit()
    conn.close()
    service = _service(session, index)
    assert _hits(service) == clean and len(service.repairs) == 1
    conn = sqlite3.connect(index)
    conn.execute("INSERT INTO schema_migrations(version, name, checksum, applied_at) VALUES (999, 'next', 'x', 0)")
    conn.commit()
    conn.close()
    newer = _service(session, index)
    assert newer.recall({"query": "`quokka`"}).as_json()["warnings"] == ["runtime-unavailable"]
    assert newer.repairs == [] and index.is_file()


@pytest.mark.parametrize("position", range(8))
def test_a_stored_value_of_the_wrong_type_is_damage(position: int) -> None:
    """A flipped record header can turn a stored text into a number (the fuzz campaign found it):
    the row is refused as damage, so the service repairs the index instead of raising."""
    from reference.primitives.sqlite_errors import StoredValueDamaged
    from reference.recall.candidate_rows import _row

    good = ["s:e1", "e1", "message", "user", 1, "a" * 64, "text", 3]
    assert _row(good).entry_id == "e1"
    bad = list(good)
    bad[position] = b"\x00" if isinstance(good[position], int) else 7
    with pytest.raises(StoredValueDamaged) as caught:
        _row(bad)
    assert is_damage(caught.value)
