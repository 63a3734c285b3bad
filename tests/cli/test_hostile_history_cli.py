"""Hostile index paths and session files for ``history`` and ``rebase`` (issue 12, item 1).

The code, one line, the exit code and the source session's SHA-256, as in test_hostile_cli.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from testkit.hostile_cli import Cli, T, make_cli, one_line, sha256

from reference.primitives.jsonbytes import js_parse


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return make_cli(tmp_path, monkeypatch, capsys)


# ----------------------------------------------------------------- the index path

def _real_open_index() -> Callable[..., Any]:
    from reference.recall import index_schema

    return index_schema.open_index


def test_history_index_on_a_folder_is_one_index_not_ours_line(cli: Cli) -> None:
    session = cli.write()
    before = sha256(session)
    folder = cli.root / "folder.sqlite"
    folder.mkdir()
    for force in ([], ["--force"]):
        code, out, err = cli("history", "index", "--session", str(session), "--index", str(folder), *force)
        assert (code, out) == (3, "")  # ran, and the index cannot be used (docs/errors.md, "Exit codes")
        one_line(err, "index-not-ours")
        assert "is a folder" in err and "nothing was changed" in err
    for command in ("search", "status"):
        code, out, _ = cli("history", command, *(["x"] if command == "search" else []),
                           "--session", str(session), "--index", str(folder))
        assert code == 3 and out.startswith("unavailable: index-not-ours (the index ") and "is a folder" in out
    assert folder.is_dir() and sha256(session) == before


def _repaired(err: str, index: Path) -> None:
    """One warning line: the damaged index was set aside and rebuilt (D15)."""
    assert err.startswith("recall-rebase: warning: index-rebuilt: the index ") and len(err.splitlines()) == 1, err
    assert f"moved to {index}.corrupt" in err


def test_an_index_that_is_not_sqlite_is_refused_and_left_as_it_is(cli: Cli) -> None:
    """A file without our signature is not ours to set aside (issue 23): refused, never moved."""
    session = cli.write()
    before = sha256(session)
    garbage = cli.root / "garbage.sqlite"
    junk = bytes(range(256)) * 16
    garbage.write_bytes(junk)
    for force in ([], ["--force"]):
        code, out, err = cli("history", "index", "--session", str(session), "--index", str(garbage), *force)
        assert (code, out) == (3, "")  # ran, and the index cannot be used
        one_line(err, "index-not-ours")
        assert garbage.read_bytes() == junk and not Path(f"{garbage}.corrupt").exists()
    assert not [p.name for p in cli.root.iterdir() if p.name.startswith("garbage.sqlite") and p != garbage]
    assert sha256(session) == before


def test_a_damaged_sqlite_index_is_set_aside_and_rebuilt(cli: Cli) -> None:
    """A valid header, then garbage: the next command rebuilds it and says so (D15)."""
    session = cli.write()
    before = sha256(session)
    assert cli.history("index")[0] == 0
    data = bytearray(cli.index.read_bytes())
    data[100:] = bytes(len(data) - 100)
    cli.index.write_bytes(bytes(data))
    for path in (cli.root / "index.sqlite-wal", cli.root / "index.sqlite-shm"):
        path.unlink(missing_ok=True)
    code, out, err = cli.history("index", "--force")
    assert code == 0 and "rebuilt (" in out
    _repaired(err, cli.index)
    assert "malformed" in err or "not a database" in err
    code, out, err = cli.history("search")
    assert code == 0 and err == ""
    assert sha256(session) == before


def test_history_index_read_only_or_on_a_full_disk_is_one_line(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read-only: SQLite's query_only (root ignores file modes); a full disk: max_page_count.
    Neither is damage: nothing is set aside."""
    from reference.recall import index_repair, index_schema

    session = cli.write()
    before = sha256(session)
    real = _real_open_index()
    assert cli.history("index")[0] == 0

    def read_only(path: Any, **claimed: Any) -> Any:
        conn = real(path, **claimed)
        conn.execute("PRAGMA query_only = ON")
        return conn

    monkeypatch.setattr(index_schema, "open_index", read_only)
    monkeypatch.setattr(index_repair, "open_index", read_only)
    code, out, err = cli.history("index", "--force")
    assert (code, out) == (3, "")
    one_line(err, "runtime-unavailable")
    assert "read-only" in err and not Path(f"{cli.index}.corrupt").exists()

    def full_disk(path: Any, **claimed: Any) -> Any:
        conn = real(path, **claimed)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(index_schema, "open_index", full_disk)
    monkeypatch.setattr(index_repair, "open_index", full_disk)
    cli.index = cli.root / "fresh.sqlite"
    cli.write(*(json.dumps({"type": "message", "id": f"m{n}", "parentId": "a1" if n == 0 else f"m{n - 1}",
                            "timestamp": T.format(2), "message": {"role": "user", "content": "word " * 400,
                                                                  "timestamp": 2}}) for n in range(40)))
    before = sha256(session)
    code, out, err = cli.history("index")
    assert (code, out) == (3, "")
    one_line(err, "runtime-unavailable")
    assert "is full" in err
    assert sha256(session) == before


def test_history_on_a_session_path_that_is_not_utf8(cli: Cli) -> None:
    cli.write()
    odd = cli.root / b"s\xff.jsonl".decode("utf-8", "surrogateescape")
    odd.write_bytes(cli.session.read_bytes())
    before = sha256(odd)
    for command in (["index"], ["status"], ["search", "x"]):  # refused before it runs (exit 2)
        code, out, err = cli("history", *command, "--session", str(odd), "--index", str(cli.index))
        assert (code, out) == (2, "")
        one_line(err, "session-unreadable")
        assert "s\\xff.jsonl is not UTF-8" in err
    assert sha256(odd) == before


# ----------------------------------------------------------------- what the session file is

def test_a_binary_file_is_called_not_a_session_file(cli: Cli) -> None:
    cli.session.write_bytes(b"\x00\x01\x02binary\xff\xfe\n" * 50)
    before = sha256(cli.session)
    for command in ("search", "status"):
        code, out, _ = cli.history(command)
        assert code == 3
        assert out.startswith("unavailable: ephemeral-session (") and "is not a Pi session file" in out
        assert "there is no session file" not in out
    code, out, err = cli.history("index")
    assert (code, out) == (3, "")
    one_line(err, "ephemeral-session")
    assert "is not a Pi session file" in err
    code, out, _ = cli.rebase()
    assert code == 3 and "is not a Pi session file" in out
    missing = cli.root / "missing.jsonl"
    code, out, err = cli("history", "search", "x", "--session", str(missing), "--index", str(cli.index))
    assert (code, out) == (2, "")  # a missing file is refused before the run, never ephemeral-session
    one_line(err, "session-file-missing")
    assert str(missing) in err
    assert sha256(cli.session) == before


def test_a_legacy_session_says_so_in_search_and_status(cli: Cli) -> None:
    header = json.dumps({"type": "session", "version": 2, "id": "s-legacy", "timestamp": T.format(0),
                         "cwd": str(cli.cwd)})
    session = cli.write(header=header)
    before = sha256(session)
    for command in ("search", "status", "index"):  # exit 3, never "partial ... index-not-yet-synchronized"
        code, out, err = cli.history(command)
        assert (code, out) == (3, "")
        one_line(err, "unsupported-source-version")
        assert "legacy version 2 Pi session" in err and "open it once in Pi 0.84.3" in err
    assert sha256(session) == before


@pytest.mark.parametrize(("first", "words"), [
    (b"\xef\xbb\xbf", "line 1 starts with a UTF-8 byte-order mark"),
    (b"\x00", "line 1 holds a NUL byte (at byte 0)"),
])
def test_a_bom_or_nul_on_line_1_is_named_on_line_1(cli: Cli, first: bytes, words: str) -> None:
    cli.write()
    cli.session.write_bytes(first + cli.session.read_bytes())
    before = sha256(cli.session)
    code, out, err = cli("session", "inspect", str(cli.session))
    assert (code, out) == (2, "")
    one_line(err, "session-no-header")
    assert words in err and "so line 2 is the first JSON value" in err
    assert sha256(cli.session) == before


def test_a_nul_at_the_end_of_line_1_is_named_with_its_byte(cli: Cli) -> None:
    cli.write()
    data = cli.session.read_bytes()
    end = data.index(b"\n")
    cli.session.write_bytes(data[:end] + b"\x00" + data[end:])
    code, _, err = cli("session", "inspect", str(cli.session))
    assert code == 2
    one_line(err, "session-no-header")
    assert f"line 1 holds a NUL byte (at byte {end})" in err


# ----------------------------------------------------------------- rebase

def test_recover_with_an_empty_id_is_invalid_operation(cli: Cli) -> None:
    session = cli.write()
    before = sha256(session)
    code, out, _ = cli.rebase("--recover", "", "--json")  # the command line sees it: exit 2
    assert (code, js_parse(out)["code"]) == (2, "invalid-operation")
    assert not (cli.root / ".ds4-rebase").exists()
    code, out, err = cli.rebase("--recover", "")
    assert (code, out) == (2, "")
    one_line(err, "invalid-operation")
    assert "--recover takes an operation id" in err
    assert sha256(session) == before


def test_operation_exists_prints_the_operation_id(cli: Cli) -> None:
    session = cli.write()
    code, out, _ = cli.rebase("--json")
    assert code == 0
    operation = js_parse(out)["operationId"]
    before = sha256(session)
    code, out, _ = cli.rebase()
    assert code == 3
    assert out.splitlines() == ["unavailable: operation-exists-use-recover",
                                f"  this source was already rebased at this leaf: run again with --recover {operation}"]
    assert sha256(session) == before


def test_an_entry_without_type_is_archive_invalid_ids(cli: Cli) -> None:
    session = cli.write(json.dumps({"id": "b1", "parentId": "a1", "timestamp": T.format(2),
                                    "message": {"role": "user", "content": "no type", "timestamp": 2}}))
    before = sha256(session)
    code, out, _ = cli.rebase("--json")
    assert (code, js_parse(out)["warnings"]) == (3, ["archive-invalid-ids"])
    assert sha256(session) == before


def test_a_full_disk_at_the_lock_says_so_not_that_another_rebase_runs(cli: Cli,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from reference.primitives.platform_ops import lock

    session = cli.write()
    before = sha256(session)
    monkeypatch.setattr(lock, "ACQUIRE_STATEMENTS", ("PRAGMA max_page_count = 1", *lock.ACQUIRE_STATEMENTS))
    code, out, _ = cli.rebase("--json")
    assert (code, js_parse(out)["warnings"]) == (3, ["rebase-busy"])  # the contract's code for any lock failure
    code, out, _ = cli.rebase()
    assert code == 3
    lines = out.splitlines()
    assert lines[0] == "unavailable: rebase-busy" and len(lines) == 2
    assert "could not be written (database or disk is full)" in lines[1] and "another rebase is running" not in out
    assert sha256(session) == before
