"""The one exit-code rule of the product commands (issue 23, item 5; docs/errors.md, "Exit codes").

Exit 2: refused before it could run (an argument error, a session path that is not a readable,
non-empty regular file with a UTF-8 name, an option out of range or unparsable, an unknown leaf):
one line ``recall-rebase: <code>: <message>`` on stderr, nothing on stdout, or with ``--json``
exactly one JSON document ``{"code", "message"}``.  Exit 3: it ran, and the session cannot be
used as it is (a legacy file): with ``--json`` one JSON document naming the code.  The matrix is
every product command crossed with every kind of bad input, with and without ``--json``.
"""

from __future__ import annotations

import io
import itertools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from testkit.hostile_cli import Cli, make_cli

OPERATION = "rebase_" + "0" * 32


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    made = make_cli(tmp_path, monkeypatch, capsys)
    made.write()
    # ``host`` reads its commands from stdin: an empty one, so a host that starts ends at once.
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8"))
    return made


# ------------------------------------------------------------------- the session file argument

#: The session commands: argv for a session path (index and trust given, so only the path varies).
SESSION_COMMANDS: dict[str, Callable[[Cli, str], list[str]]] = {
    "session inspect": lambda c, s: ["session", "inspect", s],
    "history search": lambda c, s: ["history", "search", "LastExportUtc", "--session", s, "--index", str(c.index)],
    "history status": lambda c, s: ["history", "status", "--session", s, "--index", str(c.index)],
    "history index": lambda c, s: ["history", "index", "--session", s, "--index", str(c.index)],
    "rebase": lambda c, s: ["rebase", "--session", s, "--index", str(c.index), "--approve", "--dry-run"],
    "rebase --recover": lambda c, s: ["rebase", "--session", s, "--index", str(c.index), "--approve",
                                      "--recover", OPERATION],
    "host --session": lambda c, s: ["host", "--session", s, "--index", str(c.index)],
}
TAKES_JSON = {name for name in SESSION_COMMANDS if not name.startswith("host")}


def _missing(c: Cli) -> str:
    return str(c.root / "missing.jsonl")


def _folder(c: Cli) -> str:
    (c.root / "folder.jsonl").mkdir()
    return str(c.root / "folder.jsonl")


def _empty(c: Cli) -> str:
    (c.root / "empty.jsonl").write_bytes(b"")
    return str(c.root / "empty.jsonl")


def _not_utf8(c: Cli) -> str:
    odd = c.root / b"s\xff.jsonl".decode("utf-8", "surrogateescape")
    odd.write_bytes(c.session.read_bytes())
    return str(odd)


def _legacy(c: Cli) -> str:
    header = json.dumps({"type": "session", "version": 2, "id": "s-legacy", "timestamp": "2026-01-01T00:00:00.000Z",
                         "cwd": str(c.cwd)})
    return str(c.write(header=header))


@dataclass(frozen=True)
class Expected:
    exit: int
    code: str | None  # None: the command ran (exit 0), no refusal


REFUSED = {"missing": Expected(2, "session-file-missing"), "folder": Expected(2, "session-not-a-file"),
           "empty": Expected(2, "session-empty"), "not-utf8": Expected(2, "session-unreadable"),
           "legacy": Expected(3, "unsupported-source-version")}
MAKE_SESSION: dict[str, Callable[[Cli], str]] = {"missing": _missing, "folder": _folder, "empty": _empty,
                                                 "not-utf8": _not_utf8, "legacy": _legacy}


def expected_for(command: str, kind: str) -> Expected:
    if command == "session inspect" and kind == "legacy":
        return Expected(0, None)  # inspect describes a legacy file as legacy
    if command == "host --session" and kind == "legacy":
        return Expected(0, None)  # the host starts; each /context command answers for itself
    if command == "rebase --recover" and kind == "legacy":
        return Expected(3, "operation-unavailable")  # the journal is looked for first (contract §6.2, 12)
    return REFUSED[kind]


def check(cli: Cli, argv: list[str], expected: Expected, *, as_json: bool) -> tuple[str, str]:
    """Run ``argv`` and hold the output to the rule; (stdout, stderr)."""
    code, out, err = cli(*argv, *(["--json"] if as_json else []))
    assert code == expected.exit, (argv, code, out, err)
    assert "Traceback" not in out + err
    if expected.exit == 2:
        assert len(err.splitlines()) == 1 and err.startswith(f"recall-rebase: {expected.code}: "), (argv, err)
        if as_json:
            assert json.loads(out) == {"code": expected.code, "message": json.loads(out)["message"]}
            assert len(out.splitlines()) == 1 and json.loads(out)["message"]
        else:
            assert out == "", (argv, out)
    elif expected.exit == 3:
        if as_json:
            assert len(out.splitlines()) == 1, out
            document = json.loads(out)
            assert expected.code in (document.get("code"), *document.get("warnings", [])), document
        else:
            assert expected.code in out + err, (out, err)
    return out, err


@pytest.mark.parametrize(("command", "kind", "as_json"), [
    (command, kind, as_json)
    for command, kind, as_json in itertools.product(SESSION_COMMANDS, MAKE_SESSION, (False, True))
    if command in TAKES_JSON or not as_json
])
def test_a_bad_session_file_follows_the_rule(cli: Cli, command: str, kind: str, as_json: bool) -> None:
    session = MAKE_SESSION[kind](cli)
    check(cli, SESSION_COMMANDS[command](cli, session), expected_for(command, kind), as_json=as_json)


def test_a_missing_session_file_never_says_ephemeral_session(cli: Cli) -> None:
    for command in SESSION_COMMANDS:
        code, out, err = cli(*SESSION_COMMANDS[command](cli, _missing(cli)))
        assert "ephemeral-session" not in out + err and code == 2, command


def test_a_refusal_names_what_to_do_next(cli: Cli) -> None:
    _, _, err = cli(*SESSION_COMMANDS["history search"](cli, _missing(cli)))
    assert "check the path" in err
    _, _, err = cli(*SESSION_COMMANDS["rebase"](cli, _not_utf8(cli)))
    assert "rename the file" in err
    for command in ("history status", "history search", "history index"):
        _, out, err = cli(*SESSION_COMMANDS[command](cli, _legacy(cli)))
        assert "legacy version 2" in out + err and "open it once in Pi 0.84.3" in out + err, command


# ------------------------------------------------------------------- options out of range or unparsable

def _search(c: Cli, *extra: str) -> list[str]:
    return [*SESSION_COMMANDS["history search"](c, str(c.session)), *extra]


OPTIONS: dict[str, tuple[Callable[[Cli], list[str]], Expected]] = {
    "search --limit 0": (lambda c: _search(c, "--limit", "0"), Expected(2, "invalid-budget")),
    "search --limit 13": (lambda c: _search(c, "--limit", "13"), Expected(2, "invalid-budget")),
    "search --limit x": (lambda c: _search(c, "--limit", "x"), Expected(2, "usage")),
    "search --max-output-tokens 10": (lambda c: _search(c, "--max-output-tokens", "10"), Expected(2, "invalid-budget")),
    "search --before yesterday": (lambda c: _search(c, "--before", "yesterday"), Expected(2, "invalid-date")),
    "search --after yesterday": (lambda c: _search(c, "--after", "yesterday"), Expected(2, "invalid-date")),
    "search --after > --before": (lambda c: _search(c, "--after", "2026-02-01T00:00:00Z", "--before",
                                                    "2026-01-01T00:00:00Z"), Expected(2, "invalid-date-range")),
    "search --role robot": (lambda c: _search(c, "--role", "robot"), Expected(2, "invalid-role")),
    "search --scope nowhere": (lambda c: _search(c, "--scope", "nowhere"), Expected(2, "usage")),
    "search blank query": (lambda c: ["history", "search", "  ", "--session", str(c.session), "--index",
                                      str(c.index)], Expected(2, "invalid-query")),
    "rebase --recover bogus": (lambda c: ["rebase", "--session", str(c.session), "--index", str(c.index),
                                          "--recover", "bogus"], Expected(2, "invalid-operation")),
    "rebase --recover ''": (lambda c: ["rebase", "--session", str(c.session), "--index", str(c.index),
                                       "--recover", ""], Expected(2, "invalid-operation")),
    "fixtures --sessions 20000": (lambda c: ["fixtures", "generate", "--seed", "1", "--out", str(c.root / "g"),
                                             "--sessions", "20000"], Expected(2, "bad-option")),
    "fixtures --sessions -1": (lambda c: ["fixtures", "generate", "--seed", "1", "--out", str(c.root / "g"),
                                          "--sessions", "-1"], Expected(2, "usage")),
    "fixtures --seed x": (lambda c: ["fixtures", "generate", "--seed", "x", "--out", str(c.root / "g")],
                          Expected(2, "usage")),
    "fixtures --target-mb 0": (lambda c: ["fixtures", "generate", "--seed", "1", "--out", str(c.root / "g"),
                                          "--target-mb", "0"], Expected(2, "bad-option")),
    "config set out of range": (lambda c: ["config", "set", "historyTools.maxResults", "99"],
                                Expected(2, "config-invalid")),
    "config set unknown path": (lambda c: ["config", "set", "nope", "1"], Expected(2, "config-unknown-path")),
    "config unset unknown path": (lambda c: ["config", "unset", "nope"], Expected(2, "config-unknown-path")),
    "config show --cwd missing": (lambda c: ["config", "show", "--cwd", str(c.root / "nowhere")],
                                  Expected(2, "bad-option")),
}


@pytest.mark.parametrize(("case", "as_json"), list(itertools.product(OPTIONS, (False, True))))
def test_an_option_out_of_range_or_unparsable_is_exit_2(cli: Cli, case: str, as_json: bool) -> None:
    argv, expected = OPTIONS[case]
    check(cli, argv(cli), expected, as_json=as_json)


# ------------------------------------------------------------------- an unknown leaf

LEAF_COMMANDS = ("session inspect", "history search", "history status", "history index", "rebase", "host --session")


@pytest.mark.parametrize(("command", "as_json"), [
    (command, as_json) for command, as_json in itertools.product(LEAF_COMMANDS, (False, True))
    if command in TAKES_JSON or not as_json
])
def test_an_unknown_leaf_is_unknown_leaf_exit_2(cli: Cli, command: str, as_json: bool) -> None:
    argv = [*SESSION_COMMANDS[command](cli, str(cli.session)), "--leaf", "zzz"]
    _, err = check(cli, argv, Expected(2, "unknown-leaf"), as_json=as_json)
    assert "zzz" in err and "session inspect" in err  # where to find an entry id


def test_a_leaf_that_is_only_a_word_of_the_file_is_unknown_to_rebase(cli: Cli) -> None:
    """``"user"`` is in the file (a role), not an id: the scan lets it through, the rebase's
    ``archive-branch-invalid`` is then checked against the entries and named."""
    code, out, err = cli.rebase("--dry-run", "--leaf", "user")
    assert (code, out) == (2, "") and err.startswith("recall-rebase: unknown-leaf: --leaf user: ")


def test_a_known_leaf_still_runs(cli: Cli) -> None:
    for command in ("history search", "history status", "rebase"):
        code, _, err = cli(*SESSION_COMMANDS[command](cli, str(cli.session)), "--leaf", "a1")
        assert code == 0, (command, err)


# ------------------------------------------------------------------- an unknown option

UNKNOWN_OPTION: dict[str, tuple[list[str], str]] = {
    "session inspect": (["session", "inspect", "{s}"], "usage"),
    "history search": (["history", "search", "x", "--session", "{s}"], "usage"),
    "history status": (["history", "status", "--session", "{s}"], "usage"),
    "history index": (["history", "index", "--session", "{s}"], "usage"),
    "rebase": (["rebase", "--session", "{s}"], "usage"),
    "rebase --recover": (["rebase", "--session", "{s}", "--recover", OPERATION], "usage"),
    "config show": (["config", "show"], "config-unknown-option"),
    "config set": (["config", "set", "historyTools.maxResults", "8"], "config-unknown-option"),
    "config unset": (["config", "unset", "historyTools.maxResults"], "config-unknown-option"),
    "fixtures generate": (["fixtures", "generate", "--seed", "1", "--out", "{root}/g"], "usage"),
    "host --session": (["host", "--session", "{s}"], "usage"),
}


@pytest.mark.parametrize(("command", "as_json"), list(itertools.product(UNKNOWN_OPTION, (False, True))))
def test_an_unknown_option_is_exit_2(cli: Cli, command: str, as_json: bool) -> None:
    words, code = UNKNOWN_OPTION[command]
    argv = [word.format(s=cli.session, root=cli.root) for word in words] + ["--bogus"]
    _, err = check(cli, argv, Expected(2, code), as_json=as_json)
    assert "--bogus" in err


def test_config_show_with_global_says_where_global_belongs(cli: Cli) -> None:
    _, err = check(cli, ["config", "show", "--global"], Expected(2, "config-unknown-option"), as_json=True)
    assert "only --global is accepted" not in err
    assert "config set" in err and "config unset" in err
