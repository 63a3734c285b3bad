"""Hostile session files and clumsy command lines (issue 12, item 1): never a traceback.

Every case runs the console script in-process and checks the code, that the refusal is one
line, the exit code of docs/errors.md ("Exit codes"), and that the source session's SHA-256 is
unchanged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reference.cli.main import main
from reference.primitives.jsonbytes import js_parse

T = "2026-01-01T00:00:0{}.000Z"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Cli:
    """The project folder, its session and the console script, run in-process."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.cwd = root / "project"
        self.cwd.mkdir()
        self.session = root / "s.jsonl"
        self.index = root / "index.sqlite"
        self._capsys = capsys

    def header(self) -> str:
        return json.dumps({"type": "session", "version": 3, "id": "s-hostile", "timestamp": T.format(0),
                           "cwd": str(self.cwd)})

    def write(self, *extra: str, header: str | None = None) -> Path:
        lines = [
            self.header() if header is None else header,
            json.dumps({"type": "message", "id": "a1", "parentId": None, "timestamp": T.format(1),
                        "message": {"role": "user", "content": "Keep `LastExportUtc` as it is.", "timestamp": 1}}),
            *extra,
        ]
        self.session.write_bytes("".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass"))
        return self.session

    def __call__(self, *args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = self._capsys.readouterr()
        assert "Traceback" not in out + err
        return code, out, err

    def history(self, command: str, *args: str) -> tuple[int, str, str]:
        return self(*(["history", command, "LastExportUtc"] if command == "search" else ["history", command]),
                    "--session", str(self.session), "--index", str(self.index), *args)

    def rebase(self, *args: str) -> tuple[int, str, str]:
        return self("rebase", "--session", str(self.session), "--index", str(self.index), "--approve", *args)


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.delenv("RECALL_REBASE_CRASH_AT", raising=False)
    made = Cli(tmp_path, capsys)
    monkeypatch.chdir(made.cwd)
    return made


def one_line(err: str, code: str) -> None:
    assert err.startswith(f"recall-rebase: {code}: "), err
    assert len(err.splitlines()) == 1, err


# ----------------------------------------------------------------- deep nesting and huge integers

def _custom(data: str) -> str:
    return ('{"type":"custom","customType":"x","id":"b1","parentId":"a1","timestamp":"' + T.format(2)
            + '","data":' + data + "}")


def _user(extra: str) -> str:
    return ('{"type":"message","id":"b1","parentId":"a1","timestamp":"' + T.format(2) + '","message":'
            '{"role":"user","content":"LastExportUtc again","timestamp":2,"extra":' + extra + "}}")


HOSTILE_LINES = {
    "990-deep custom data": _custom("[" * 990 + "1" + "]" * 990),
    "990-deep message field": _user('{"k":' * 990 + "1" + "}" * 990),
    "100,000-deep custom data": _custom("[" * 100_000 + "1" + "]" * 100_000),
    "5,000-digit integer": _custom("9" * 5000),
    "4,301-digit negative integer in a message": _user("-" + "9" * 4301),
}


@pytest.mark.parametrize("line", HOSTILE_LINES.values(), ids=HOSTILE_LINES.keys())
def test_a_deep_or_huge_number_line_is_an_entry_in_every_command(cli: Cli, line: str) -> None:
    """Pi 0.84.3 keeps such a line as an entry (tests/oracle/test_hostile_lines_on_pi.py)."""
    session = cli.write(line)
    before = sha256(session)
    code, out, _ = cli("session", "inspect", str(session), "--json")
    report = js_parse(out)
    assert code == 0 and report["entryCount"] == 2 and report["leafId"] == "b1"
    assert report["diagnostics"]["malformedLines"]["count"] == 0
    code, out, _ = cli("session", "inspect", str(session))
    assert code == 0 and "entries   2" in out
    code, out, _ = cli.history("index", "--json")
    assert code == 0 and js_parse(out)["indexedEntries"] == 2
    code, out, _ = cli.history("status", "--json")
    assert code == 0 and js_parse(out)["indexedEntries"] == 2
    code, out, _ = cli.history("search", "--json")
    assert code == 0 and "a1" in [hit["entryId"] for hit in js_parse(out)["hits"]]
    code, out, _ = cli.rebase("--dry-run", "--json")
    if len(line) > 200_000:  # 200 kB of brackets in the recent tail: a named refusal, nothing written
        assert (code, js_parse(out)["warnings"]) == (3, ["checkpoint-budget"])
    else:
        assert code == 0 and js_parse(out)["status"] == "preview", out
        code, out, _ = cli.rebase("--json")
        assert code == 0 and js_parse(out)["status"] == "verified", out
    assert sha256(session) == before


# ----------------------------------------------------------------- argument errors

ARGUMENT_ERRORS = {
    "no command": [],
    "unknown command": ["bogus"],
    "conformance --timeout abc": ["conformance", "run", "--timeout", "abc"],
    "conformance unknown option": ["conformance", "run", "--bogus"],
    "audit sql without a query": ["audit", "sql"],
    "session without a sub-command": ["session"],
    "session inspect without a file": ["session", "inspect"],
    "session inspect extra word": ["session", "inspect", "a.jsonl", "b.jsonl"],
    "history search without --session": ["history", "search", "x"],
    "history search bad --scope": ["history", "search", "x", "--session", "s", "--scope", "bad"],
    "history search --limit abc": ["history", "search", "x", "--session", "s", "--limit", "abc"],
    "history index unknown option": ["history", "index", "--session", "s", "--bogus"],
    "rebase --session without a value": ["rebase", "--session"],
    "rebase --dry-run with --recover": ["rebase", "--session", "s", "--dry-run", "--recover", "x"],
    "fixtures generate --seed x": ["fixtures", "generate", "--seed", "x", "--out", "d"],
    "fixtures generate --legacy 3": ["fixtures", "generate", "--seed", "1", "--out", "d", "--legacy", "3"],
    "fixtures generate --entries -1": ["fixtures", "generate", "--seed", "1", "--out", "d", "--entries", "-1"],
    "host unknown option": ["host", "--bogus"],
}


@pytest.mark.parametrize("argv", ARGUMENT_ERRORS.values(), ids=ARGUMENT_ERRORS.keys())
def test_an_argument_error_is_one_usage_line_and_exit_2(cli: Cli, argv: list[str]) -> None:
    code, out, err = cli(*argv)
    assert code == 2 and out == ""
    one_line(err, "usage")
    assert "(see recall-rebase" in err and "--help)" in err


@pytest.mark.parametrize("argv", [
    ["history", "search", "x", "--session", "s", "--scope", "bad", "--json"],
    ["rebase", "--session", "--json"],
    ["session", "inspect", "--json"],
    ["conformance", "run", "--timeout", "abc", "--json"],
])
def test_with_json_an_argument_error_is_also_one_json_document(cli: Cli, argv: list[str]) -> None:
    code, out, err = cli(*argv)
    assert code == 2
    one_line(err, "usage")
    document = json.loads(out)
    assert document["code"] == "usage" and document["message"] == err.split(": ", 2)[2].rstrip("\n")


def test_with_json_a_refusal_is_also_one_json_document(cli: Cli) -> None:
    code, out, err = cli("session", "inspect", str(cli.root / "missing.jsonl"), "--json")
    assert code == 2
    one_line(err, "session-file-missing")
    assert json.loads(out)["code"] == "session-file-missing"


# ----------------------------------------------------------------- fixtures generate bounds

def _generate(cli: Cli, *options: str) -> tuple[int, str, str]:
    return cli("fixtures", "generate", "--seed", "1", "--out", str(cli.root / "fx"), *options)


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "0", "-1", "100001"])
def test_target_mb_must_be_finite_positive_and_bounded(cli: Cli, value: str) -> None:
    code, out, err = _generate(cli, f"--target-mb={value}")
    assert code == 2 and out == ""
    one_line(err, "bad-option")
    assert not (cli.root / "fx").exists()


@pytest.mark.parametrize(("option", "bound"), [("--sessions", 10_000), ("--entries", 10_000_000),
                                               ("--siblings", 100_000), ("--compactions", 100_000),
                                               ("--branches", 100_000), ("--malformed", 100_000),
                                               ("--blank", 100_000)])
def test_count_options_are_refused_past_their_bound(cli: Cli, option: str, bound: int) -> None:
    code, _, err = _generate(cli, option, str(bound + 1))
    assert code == 2
    one_line(err, "bad-option")
    assert f"past its bound of {bound:,}" in err
    assert not (cli.root / "fx").exists()


def test_count_options_at_and_before_their_bound_are_taken(cli: Cli) -> None:
    """At the bound (a header-only file with --siblings 100,000 stays small) and before it."""
    code, out, _ = _generate(cli, "--entries", "0", "--siblings", "100000", "--json")
    assert code == 0 and json.loads(out)[0]["entryCount"] == 0
    code, out, _ = _generate(cli, "--entries", "3", "--sessions", "2", "--target-mb", "0.001", "--json")
    assert code == 0 and len(json.loads(out)) == 2


# ----------------------------------------------------------------- the index path

def _real_open_index() -> Callable[..., Any]:
    from reference.recall import index_schema

    return index_schema.open_index


def test_history_index_on_a_folder_or_garbage_is_one_runtime_unavailable_line(cli: Cli) -> None:
    session = cli.write()
    before = sha256(session)
    folder = cli.root / "folder.sqlite"
    folder.mkdir()
    garbage = cli.root / "garbage.sqlite"
    garbage.write_bytes(bytes(range(256)) * 16)
    for index, words in ((folder, "is a folder"), (garbage, "is not an SQLite database")):
        for force in ([], ["--force"]):
            code, out, err = cli("history", "index", "--session", str(session), "--index", str(index), *force)
            assert (code, out) == (2, "")
            one_line(err, "runtime-unavailable")
            assert words in err and "nothing was indexed" in err
        for command in ("search", "status"):
            code, out, _ = cli("history", command, *(["x"] if command == "search" else []),
                               "--session", str(session), "--index", str(index))
            assert code == 3 and out.startswith("unavailable: runtime-unavailable (the index ") and words in out
    assert garbage.read_bytes() == bytes(range(256)) * 16
    assert sha256(session) == before


def test_a_damaged_sqlite_index_names_sqlites_words(cli: Cli) -> None:
    """A valid header, then garbage: every command says what SQLite said (rebuilding it is item 3)."""
    session = cli.write()
    before = sha256(session)
    assert cli.history("index")[0] == 0
    data = bytearray(cli.index.read_bytes())
    data[100:] = bytes(len(data) - 100)
    cli.index.write_bytes(bytes(data))
    for path in (cli.root / "index.sqlite-wal", cli.root / "index.sqlite-shm"):
        path.unlink(missing_ok=True)
    code, out, err = cli.history("index", "--force")
    assert (code, out) == (2, "")
    one_line(err, "runtime-unavailable")
    assert "malformed" in err or "not a database" in err
    code, out, _ = cli.history("search")
    assert code == 3 and out.startswith("unavailable: runtime-unavailable (the index ") and "cannot be opened (" in out
    assert sha256(session) == before


def test_history_index_read_only_or_on_a_full_disk_is_one_line(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read-only: SQLite's query_only (root ignores file modes); a full disk: max_page_count."""
    from reference.recall import index_schema

    session = cli.write()
    before = sha256(session)
    real = _real_open_index()
    assert cli.history("index")[0] == 0

    def read_only(path: Any) -> Any:
        conn = real(path)
        conn.execute("PRAGMA query_only = ON")
        return conn

    monkeypatch.setattr(index_schema, "open_index", read_only)
    code, out, err = cli.history("index", "--force")
    assert (code, out) == (2, "")
    one_line(err, "runtime-unavailable")
    assert "read-only" in err

    def full_disk(path: Any) -> Any:
        conn = real(path)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(index_schema, "open_index", full_disk)
    cli.index = cli.root / "fresh.sqlite"
    cli.write(*(json.dumps({"type": "message", "id": f"m{n}", "parentId": "a1" if n == 0 else f"m{n - 1}",
                            "timestamp": T.format(2), "message": {"role": "user", "content": "word " * 400,
                                                                  "timestamp": 2}}) for n in range(40)))
    before = sha256(session)
    code, out, err = cli.history("index")
    assert (code, out) == (2, "")
    one_line(err, "runtime-unavailable")
    assert "is full" in err
    assert sha256(session) == before


def test_history_on_a_session_path_that_is_not_utf8(cli: Cli) -> None:
    cli.write()
    odd = cli.root / b"s\xff.jsonl".decode("utf-8", "surrogateescape")
    odd.write_bytes(cli.session.read_bytes())
    before = sha256(odd)
    code, out, err = cli("history", "index", "--session", str(odd), "--index", str(cli.index))
    assert (code, out) == (2, "")
    one_line(err, "session-unreadable")
    assert "s\\xff.jsonl is not UTF-8" in err
    code, out, _ = cli("history", "status", "--session", str(odd), "--index", str(cli.index))
    assert code == 0 and "is not UTF-8" in out
    code, out, _ = cli("history", "search", "x", "--session", str(odd), "--index", str(cli.index))
    assert code == 3 and "unavailable: history-unavailable (the session path" in out
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
    assert (code, out) == (2, "")
    one_line(err, "ephemeral-session")
    assert "is not a Pi session file" in err
    code, out, _ = cli.rebase()
    assert code == 3 and "is not a Pi session file" in out
    missing = cli.root / "missing.jsonl"
    code, out, _ = cli("history", "search", "x", "--session", str(missing), "--index", str(cli.index))
    assert code == 3 and f"there is no session file at {missing}" in out
    assert sha256(cli.session) == before


def test_a_legacy_session_says_so_in_search_and_status(cli: Cli) -> None:
    header = json.dumps({"type": "session", "version": 2, "id": "s-legacy", "timestamp": T.format(0),
                         "cwd": str(cli.cwd)})
    session = cli.write(header=header)
    before = sha256(session)
    code, out, _ = cli.history("search")
    assert code == 3 and out.startswith("unavailable: history-unavailable (") and "legacy version 2 session" in out
    code, out, _ = cli.history("status")
    assert code == 0 and "index-not-yet-synchronized (" in out and "legacy version 2 session" in out
    code, out, err = cli.history("index")
    assert (code, out) == (2, "")
    one_line(err, "unsupported-source-version")
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
    code, out, _ = cli.rebase("--recover", "", "--json")
    assert (code, js_parse(out)) == (3, {"status": "unavailable", "warnings": ["invalid-operation"]})
    assert not (cli.root / ".ds4-rebase" / "operations").exists()
    code, out, _ = cli.rebase("--recover", "")
    assert code == 3 and out.startswith("unavailable: invalid-operation\n  --recover takes an operation id")
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
    from reference.rebase import lock

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


# ----------------------------------------------------------------- config --cwd

@pytest.mark.parametrize("argv", [["set", "historyTools.maxResults", "5"], ["unset", "historyTools.maxResults"],
                                  ["show"]])
def test_config_refuses_a_cwd_that_does_not_exist_and_creates_nothing(cli: Cli, argv: list[str]) -> None:
    missing = cli.root / "nonexistent"
    code, out, err = cli("config", *argv, "--cwd", str(missing))
    assert (code, out) == (2, "")
    one_line(err, "bad-option")
    assert not missing.exists()
    code, out, _ = cli("config", *argv, "--cwd", str(missing), "--json")
    assert code == 2 and json.loads(out)["code"] == "bad-option"
    assert not missing.exists()
