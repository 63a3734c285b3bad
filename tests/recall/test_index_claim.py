"""The index takes over only what it made (issue 23, item 3; docs/index.md I14, decisions D15).

A file given as the index is our projection only when it carries our signature: the SQLite
header with our ``application_id``, or (an index of the TypeScript implementation, or one made
before the id) the contract's migration ledger and index state.  Anything else is refused with
``index-not-ours`` and left exactly as it was: its name, bytes and mode, and nothing created
beside it (no ``-wal``, ``-shm``, ``-journal``, ``.corrupt``).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest
from testkit import history_service as testkit_session
from testkit.hostile_cli import Cli, make_cli, one_line

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.recall.index_claim import (
    APPLICATION_ID,
    HEADER_BYTES,
    INDEX_DIR_NAME,
    IndexClaim,
    claim_index,
)
from reference.recall.index_repair import CORRUPT_SUFFIX
from reference.recall.index_schema import open_index

_service = testkit_session.history_service


def _picture(folder: Path) -> dict[str, tuple[int, int, bytes | str]]:
    """Every name in the folder with its mode, size and bytes (a link: its target)."""
    seen: dict[str, tuple[int, int, bytes | str]] = {}
    for name in sorted(os.listdir(folder)):
        path = folder / name
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            seen[name] = (info.st_mode, 0, os.readlink(path))
        elif stat.S_ISREG(info.st_mode):
            seen[name] = (info.st_mode, info.st_size, path.read_bytes())
        else:
            seen[name] = (info.st_mode, 0, "")
    return seen


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return make_cli(tmp_path, monkeypatch, capsys)


# ------------------------------------------------------------------ the user's report, first


def test_the_session_given_as_index_is_never_renamed_or_written(cli: Cli) -> None:
    """``history search foo --session S.jsonl --index S.jsonl`` renamed S.jsonl to S.jsonl.corrupt."""
    session = cli.write()
    before = _picture(cli.root)
    for command in ("search", "status", "index"):
        args = ["history", command, *(["foo"] if command == "search" else []), "--session", str(session),
                "--index", str(session)]
        code, out, err = cli(*args)
        assert _picture(cli.root) == before, command
        if command == "index":
            assert (code, out) == (3, "")  # ran, and the index cannot be used
            one_line(err, "index-not-ours")
            assert str(session) in err
        else:
            assert code == 3 and out.startswith("unavailable: index-not-ours (") and str(session) in out, out
            assert "index-rebuilt" not in err
    assert not Path(f"{session}{CORRUPT_SUFFIX}").exists()


# ------------------------------------------------------------------ what is refused


def _session_lines(path: Path) -> None:
    testkit_session.write_session(path, 3)


def _text(path: Path) -> None:
    path.write_text("notes, not an index\n" * 40)


def _foreign_sqlite(path: Path, *, wal: bool = False, application_id: int = 0) -> None:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    if application_id:
        conn.execute(f"PRAGMA application_id = {application_id:d}")
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.commit()
    conn.close()


def _foreign_crashed(path: Path, *, wal: bool) -> None:
    """A foreign database left by a crash: a hot ``-journal`` (a transaction SQLite would roll back
    when it opens the file read-write), or a ``-wal`` holding a commit (SQLite would replay it and
    make a ``-shm``)."""
    _foreign_sqlite(path, wal=wal)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA cache_size = 1")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO notes SELECT hex(randomblob(3000)) FROM (WITH RECURSIVE r(i) AS "
                 "(SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 300) SELECT i FROM r)")
    if wal:
        conn.execute("COMMIT")
    side = Path(f"{path}-wal" if wal else f"{path}-journal")
    left = path.read_bytes(), side.read_bytes()
    if not wal:
        conn.execute("ROLLBACK")
    conn.close()
    path.write_bytes(left[0])
    side.write_bytes(left[1])
    assert len(left[1]) > 0


def _foreign_migrations(path: Path) -> None:
    """Another framework's ``schema_migrations`` (Rails has one: a single ``version`` column)."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version TEXT PRIMARY KEY)")
    conn.execute("CREATE TABLE session_index_state (x)")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("make", [
    _session_lines, _text, _foreign_sqlite, _foreign_migrations,
    lambda path: _foreign_sqlite(path, wal=True),
    lambda path: _foreign_crashed(path, wal=False),
    lambda path: _foreign_crashed(path, wal=True),
    lambda path: _foreign_sqlite(path, application_id=0x47504B47),  # a GeoPackage
    lambda path: path.write_bytes(os.urandom(4096)),
    lambda path: path.write_bytes(b""),  # outside our folder, an empty file is someone's
    lambda path: path.write_bytes(b"SQLite format 3\x00"),
], ids=["session", "text", "foreign-sqlite", "foreign-migrations", "foreign-wal", "foreign-hot-journal",
        "foreign-live-wal", "foreign-app-id", "random",
        "empty-elsewhere", "magic-only"])
def test_a_file_that_is_not_ours_is_refused_and_left_as_it_was(tmp_path: Path, make: object) -> None:
    session, index = tmp_path / "session.jsonl", tmp_path / "other.db"
    testkit_session.write_session(session, 20)
    make(index)  # type: ignore[operator]
    os.chmod(index, 0o640)
    before = _picture(tmp_path)
    with pytest.raises(ContractViolation) as caught:
        claim_index(str(index))
    assert caught.value.code == Code.INDEX_NOT_OURS and str(index) in caught.value.message
    with pytest.raises(ContractViolation):
        open_index(index)
    service = _service(session, index)
    assert service.recall({"query": "`quokka`"}).as_json()["warnings"] == [Code.INDEX_NOT_OURS]
    assert service.status().as_json()["warnings"] == [Code.INDEX_NOT_OURS]
    assert service.read({"sourceRef": "hist_" + "0" * 32}).as_json()["status"] == "unavailable"
    assert service.repairs == []
    assert _picture(tmp_path) == before


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="posix links")
def test_a_link_to_the_session_or_to_our_own_index_is_refused(tmp_path: Path) -> None:
    session = tmp_path / "session.jsonl"
    testkit_session.write_session(session, 20)
    ours = tmp_path / INDEX_DIR_NAME / "index.sqlite"
    open_index(ours).close()
    for name, target in (("to-session", session), ("to-ours", ours), ("dangling", tmp_path / "nowhere")):
        link = tmp_path / name
        link.symlink_to(target)
        before = _picture(tmp_path)
        with pytest.raises(ContractViolation) as caught:
            claim_index(str(link))
        assert caught.value.code == Code.INDEX_NOT_OURS and "symbolic link" in caught.value.message
        assert _service(session, link).recall({"query": "`quokka`"}).as_json()["warnings"] == [Code.INDEX_NOT_OURS]
        assert _picture(tmp_path) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="posix FIFOs")
def test_a_folder_a_fifo_and_a_device_are_refused_without_blocking(tmp_path: Path) -> None:
    folder, fifo = tmp_path / "folder.sqlite", tmp_path / "fifo.sqlite"
    folder.mkdir()
    os.mkfifo(fifo)
    before = _picture(tmp_path)
    for path, words in ((folder, "folder"), (fifo, "FIFO"), (Path("/dev/zero"), "device")):
        with pytest.raises(ContractViolation) as caught:
            claim_index(str(path))
        assert caught.value.code == Code.INDEX_NOT_OURS and words in caught.value.message, caught.value.message
    assert _picture(tmp_path) == before


# ------------------------------------------------------------------ the header's bounds


@pytest.mark.parametrize("size", [HEADER_BYTES - 1, HEADER_BYTES, HEADER_BYTES + 1])
def test_our_header_bytes_at_and_around_the_header_length(tmp_path: Path, size: int) -> None:
    """99 bytes is shorter than any SQLite header: not ours (outside our folder); 100 or more
    bytes with our magic and application id are ours, however damaged the rest."""
    ours = tmp_path / "made.sqlite"
    open_index(ours).close()
    header = ours.read_bytes()[:HEADER_BYTES]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes((header + b"\x00" * 8)[:size])
    if size < HEADER_BYTES:
        with pytest.raises(ContractViolation):
            claim_index(str(cut))
    else:
        assert claim_index(str(cut)) is IndexClaim.OURS


def test_a_missing_path_is_ours_to_create(tmp_path: Path) -> None:
    assert claim_index(str(tmp_path / "new" / "index.sqlite")) is IndexClaim.NEW
    assert claim_index(":memory:") is IndexClaim.NEW


@pytest.mark.parametrize("size", [0, 1, HEADER_BYTES - 1])
def test_in_our_folder_an_empty_or_cut_file_is_our_interrupted_creation(tmp_path: Path, size: int) -> None:
    session = tmp_path / "session.jsonl"
    testkit_session.write_session(session, 20)
    index = tmp_path / INDEX_DIR_NAME / "index.sqlite"
    index.parent.mkdir()
    index.write_bytes(b"\x01" * size)
    assert claim_index(str(index)) is (IndexClaim.OURS if size == 0 else IndexClaim.INTERRUPTED)
    service = _service(session, index)
    assert service.recall({"query": "`quokka`"}).as_json()["status"] == "complete"
    assert len(service.repairs) == (0 if size == 0 else 1)
    aside = Path(f"{index}{CORRUPT_SUFFIX}")
    assert aside.exists() is (size > 0) and aside.parent == index.parent
    assert claim_index(str(index)) is IndexClaim.OURS


@pytest.mark.parametrize("size", [HEADER_BYTES, HEADER_BYTES + 1])
def test_in_our_folder_a_whole_header_without_our_signature_is_not_ours(tmp_path: Path, size: int) -> None:
    """Past the bound, a file in our folder is judged by its header like any other."""
    index = tmp_path / INDEX_DIR_NAME / "index.sqlite"
    index.parent.mkdir()
    index.write_bytes(b"\x01" * size)
    with pytest.raises(ContractViolation):
        claim_index(str(index))
    assert index.read_bytes() == b"\x01" * size and os.listdir(index.parent) == ["index.sqlite"]


def test_outside_our_folder_a_cut_file_is_not_ours(tmp_path: Path) -> None:
    index = tmp_path / "elsewhere" / "index.sqlite"
    index.parent.mkdir()
    index.write_bytes(b"\x01" * 10)
    with pytest.raises(ContractViolation):
        claim_index(str(index))


# ------------------------------------------------------------------ what is ours


def test_a_new_index_carries_our_application_id(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    conn = open_index(index)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
    assert int.from_bytes(index.read_bytes()[68:72], "big") == APPLICATION_ID  # on disk, not only in the WAL
    assert claim_index(str(index)) is IndexClaim.OURS


def _ledger_only(path: Path, *, with_state: bool = True) -> None:
    """An index as the TypeScript implementation (or this one before the id) leaves it: the
    contract's ledger and state table, application_id 0."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                 "checksum TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT")
    if with_state:
        conn.execute("CREATE TABLE session_index_state (session_id TEXT PRIMARY KEY)")
    conn.commit()
    conn.close()


def test_an_index_with_the_contract_ledger_is_ours_and_nothing_is_left_beside_it(tmp_path: Path) -> None:
    index = tmp_path / "ts.sqlite"
    _ledger_only(index)
    before = _picture(tmp_path)
    assert claim_index(str(index)) is IndexClaim.OURS
    assert _picture(tmp_path) == before  # the probe wrote nothing, created nothing


def test_our_index_with_damaged_id_bytes_is_still_ours_by_its_ledger(tmp_path: Path) -> None:
    """The signature is the id OR the ledger: a flipped id byte alone does not disown our index."""
    session, index = tmp_path / "session.jsonl", tmp_path / "index.sqlite"
    testkit_session.write_session(session, 20)
    assert _service(session, index).recall({"query": "`quokka`"}).as_json()["status"] == "complete"
    data = bytearray(index.read_bytes())
    data[69] ^= 0xFF
    index.write_bytes(bytes(data))
    assert claim_index(str(index)) is IndexClaim.OURS
    assert _service(session, index).recall({"query": "`quokka`"}).as_json()["status"] == "complete"
    assert int.from_bytes(index.read_bytes()[68:72], "big") == APPLICATION_ID  # written again
    data = bytearray(index.read_bytes())
    data[0] ^= 0xFF  # the magic too: nothing of the signature is left
    data[69] ^= 0xFF
    index.write_bytes(bytes(data))
    with pytest.raises(ContractViolation):
        claim_index(str(index))


def test_a_ledger_without_the_index_state_is_not_ours(tmp_path: Path) -> None:
    index = tmp_path / "half.sqlite"
    _ledger_only(index, with_state=False)
    with pytest.raises(ContractViolation):
        claim_index(str(index))


def test_an_index_made_before_the_application_id_is_opened_and_gets_it(tmp_path: Path) -> None:
    session, index = tmp_path / "session.jsonl", tmp_path / "old.sqlite"
    testkit_session.write_session(session, 20)
    open_index(index).close()
    conn = sqlite3.connect(index)
    conn.execute("PRAGMA application_id = 0")
    conn.close()
    assert int.from_bytes(index.read_bytes()[68:72], "big") == 0
    assert claim_index(str(index)) is IndexClaim.OURS
    assert _service(session, index).recall({"query": "`quokka`"}).as_json()["status"] == "complete"
    assert int.from_bytes(index.read_bytes()[68:72], "big") == APPLICATION_ID


def test_a_typescript_index_is_ours_and_its_newer_ledger_is_left_alone(tmp_path: Path) -> None:
    """The TypeScript ledger has versions this code does not know: ``index-schema-newer``, never
    set aside, never refused as not ours."""
    session, index = tmp_path / "session.jsonl", tmp_path / "ts.sqlite"
    testkit_session.write_session(session, 20)
    _ledger_only(index)
    conn = sqlite3.connect(index)
    conn.execute("INSERT INTO schema_migrations VALUES (18, 'rebuildable-rebase-projections', 'x', 0)")
    conn.commit()
    conn.close()
    before = _picture(tmp_path)
    with pytest.raises(ContractViolation) as caught:
        open_index(index)
    assert caught.value.code == Code.INDEX_SCHEMA_NEWER
    service = _service(session, index)
    assert service.recall({"query": "`quokka`"}).as_json()["warnings"] == [Code.RUNTIME_UNAVAILABLE]
    assert service.repairs == []
    after = _picture(tmp_path)
    assert after[index.name][2] == before[index.name][2] and not Path(f"{index}{CORRUPT_SUFFIX}").exists()


def test_our_damaged_index_is_still_set_aside_inside_our_folder(tmp_path: Path) -> None:
    session, index = tmp_path / "session.jsonl", tmp_path / "idx" / "index.sqlite"
    testkit_session.write_session(session, 20)
    assert _service(session, index).recall({"query": "`quokka`"}).as_json()["status"] == "complete"
    data = bytearray(index.read_bytes())
    data[HEADER_BYTES:] = os.urandom(len(data) - HEADER_BYTES)
    index.write_bytes(bytes(data))
    service = _service(session, index)
    assert service.recall({"query": "`quokka`"}).as_json()["status"] == "complete"
    assert len(service.repairs) == 1 and service.repairs[0].startswith("index-rebuilt: ")
    assert sorted(os.listdir(index.parent)) == ["index.sqlite", "index.sqlite.corrupt"]
    assert Path(f"{index}{CORRUPT_SUFFIX}").read_bytes() == bytes(data)


def test_a_rebase_with_a_text_file_as_index_runs_without_its_projection_and_leaves_the_file(cli: Cli) -> None:
    """The rebase opens the index only for its projection (errors never block it): the same check."""
    cli.write()
    cli.index = cli.root / "notes.txt"
    _text(cli.index)
    before = cli.index.read_bytes(), cli.index.stat().st_mode, cli.session.read_bytes()
    code, _out, _err = cli.rebase()
    assert code == 0
    assert (cli.index.read_bytes(), cli.index.stat().st_mode, cli.session.read_bytes()) == before
    assert [p.name for p in cli.root.iterdir() if p.name.startswith("notes.txt")] == ["notes.txt"]


def _modes(folder: Path) -> dict[str, int]:
    return {name: stat.S_IMODE(os.lstat(folder / name).st_mode) for name in sorted(os.listdir(folder))}


@pytest.mark.parametrize("removed", ["after-the-claim", "after-the-owner-only-create"])
def test_an_index_removed_before_sqlite_opens_it_is_never_created_with_other_than_owner_only_mode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, removed: str) -> None:
    """The window between the look at the path (``claim_index``, or the 0600 create of a new
    index) and SQLite's open: a file removed there must not come back with the umask's mode."""
    from reference.recall import index_repair, index_schema

    folder = tmp_path / "recall-rebase"
    folder.mkdir(mode=0o700)
    path = folder / "index.sqlite"
    if removed == "after-the-claim":
        open_index(path).close()
    real_claim, real_create = index_repair.claim_index, index_schema.create_owner_only

    def remove(location: str | os.PathLike[str]) -> None:
        for name in os.listdir(folder):
            os.unlink(folder / name)
        assert not os.path.lexists(location)

    def claim_then_remove(location: str) -> IndexClaim:
        claim = real_claim(location)
        remove(location)
        return claim

    def create_then_remove(location: str | os.PathLike[str]) -> None:
        real_create(location)
        assert stat.S_IMODE(os.stat(location).st_mode) == 0o600
        remove(location)

    if removed == "after-the-claim":
        monkeypatch.setattr(index_repair, "claim_index", claim_then_remove)
    else:
        monkeypatch.setattr(index_schema, "create_owner_only", create_then_remove)
    old_umask = os.umask(0o022)  # SQLite's own create would give 0644
    try:
        try:
            conn = index_repair.open_repaired(str(path), [])
        except sqlite3.Error:
            conn = None  # refused to create: nothing there, and that is the point
        if conn is not None:
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
            conn.close()
    finally:
        os.umask(old_umask)
    assert all(mode == 0o600 for mode in _modes(folder).values()), _modes(folder)
    if removed == "after-the-owner-only-create":
        assert _modes(folder) == {}, "SQLite created the file we had removed"
