"""Hostile session files and clumsy command lines (issue 12, item 1): never a traceback.

Every case runs the console script in-process (tests/testkit/hostile_cli.py) and checks the code,
that a refusal is one line, the exit code of docs/errors.md ("Exit codes"), and that the source
session's SHA-256 is unchanged. The history and rebase cases are in test_hostile_history_cli.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit.hostile_cli import Cli, T, make_cli, one_line, sha256

from reference.primitives.jsonbytes import js_parse


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return make_cli(tmp_path, monkeypatch, capsys)


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
