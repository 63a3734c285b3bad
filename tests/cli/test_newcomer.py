"""What a newcomer could not guess (issue 23, item 6): each trap, and that the output now says it.

A generated session (``fixtures generate``) is the newcomer's first session: its header's cwd is
not theirs, its default leaf ends on an open tool call, and it holds fake secrets.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from testkit.hostile_cli import Cli, make_cli
from testkit.paths import REPO_ROOT

from reference.cli.main import build_parser
from reference.primitives.jsonbytes import js_parse

GENERATED_CWD = "/home/user/projects/demo"  # what fixtures generate records by default


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return make_cli(tmp_path, monkeypatch, capsys)


def generated(cli: Cli) -> Path:
    code, out, _ = cli("fixtures", "generate", "--seed", "7", "--out", str(cli.root / "gen"), "--json")
    assert code == 0
    return Path(json.loads(out)[0]["path"])


# ------------------------------------------------------------------- the header's cwd and --cwd

def test_a_session_from_another_project_is_refused_naming_its_folder_and_cwd(cli: Cli) -> None:
    session = str(generated(cli))
    code, out, _ = cli("history", "search", "tapir", "--session", session, "--index", str(cli.index))
    assert code == 3 and "source-scope-mismatch" in out
    assert f"recorded in {GENERATED_CWD} (its header's cwd)" in out and f"pass --cwd {GENERATED_CWD}" in out
    code, out, _ = cli("rebase", "--session", session, "--index", str(cli.index), "--dry-run")
    assert code == 3 and f"pass --cwd {GENERATED_CWD}" in out
    code, out, err = cli("history", "index", "--session", session, "--index", str(cli.index))
    assert (code, out) == (3, "") and f"pass --cwd {GENERATED_CWD}" in err
    code, out, _ = cli("history", "search", "tapir", "--session", session, "--index", str(cli.index),
                       "--cwd", GENERATED_CWD)
    assert code == 0 and out.startswith("complete: 1 hit(s)")


def test_help_says_the_session_must_be_run_from_its_project(cli: Cli) -> None:
    for words in (["history", "search"], ["history", "status"], ["rebase"]):
        assert "header's cwd" in help_text(words), words


# ------------------------------------------------------------------- privacy-omitted and privacy.enabled

def test_privacy_omitted_explains_why_privacy_enabled_false_does_not_matter(cli: Cli) -> None:
    session = str(generated(cli))
    _, out, _ = cli("config", "show", "--json")
    assert js_parse(out)["config"]["privacy"]["enabled"] is False  # what the newcomer sees
    args = ["history", "search", "OPENAI_API_KEY", "--session", session, "--index", str(cli.index),
            "--cwd", GENERATED_CWD]
    code, out, _ = cli(*args)
    warning = next(line for line in out.splitlines() if "warning: privacy-omitted" in line)
    assert "privacy.enabled false" in warning and "provider policy" in warning and "--provider" in warning
    code, out, _ = cli(*args, "--provider", "ollama")  # the way out the hint names
    assert code == 0 and "privacy-omitted" not in out and "hit(s)" in out


# ------------------------------------------------------------------- a generated session's open tool call

def test_a_pending_tool_call_names_a_settled_leaf_that_works(cli: Cli) -> None:
    session = str(generated(cli))
    base = ["rebase", "--session", session, "--index", str(cli.index), "--cwd", GENERATED_CWD, "--approve"]
    code, out, _ = cli(*base, "--dry-run")
    assert code == 3 and out.startswith("unavailable: pending-or-orphan-tool-exchange")
    assert "session inspect" in out
    found = re.search(r"--leaf ([0-9a-f]{8})", out)
    assert found, out
    assert f"--cwd {GENERATED_CWD} --leaf" in out  # the command named keeps the --cwd given
    assert "end so on purpose" in out and "ends `fixtures" not in out
    code, out, _ = cli(*base, "--dry-run", "--leaf", found.group(1))
    assert code == 0 and out.startswith("preview: operation rebase_"), out


# ------------------------------------------------------------------- the lock file of a dry run

def test_a_dry_run_says_truthfully_what_it_wrote(cli: Cli) -> None:
    """The contract takes the lock on a dry run too (§6.2 step 14, §6.7): the output says so."""
    session = cli.write()
    locks = cli.root / ".ds4-rebase" / "locks"
    code, out, _ = cli.rebase("--dry-run")
    assert code == 0 and "nothing was written" not in out
    assert "no journal and no target were written" in out
    (lock,) = locks.iterdir()
    assert f"the rebase lock {lock} was created" in out
    assert not (cli.root / ".ds4-rebase" / "operations").exists()
    code, out, _ = cli.rebase("--dry-run")  # the lock is there already: nothing new to say
    assert code == 0 and "rebase lock" not in out
    lock.unlink()
    code, out, _ = cli.rebase("--dry-run", "--cwd", str(cli.root))  # a refusal after the lock was taken
    assert code == 3 and "source-scope-mismatch" in out and f"the rebase lock {lock} was created" in out
    assert session.exists()


# ------------------------------------------------------------------- config: DS4, columns, the CLI form

def test_config_help_and_show_say_what_ds4_is(cli: Cli) -> None:
    assert "DS4 is the name of the Pi context extension" in help_text(["config"])
    assert "DS4 is the name of the Pi context extension" in help_text(["rebase"])
    code, out, _ = cli("config", "show")
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("DS4 is the name of the Pi context extension (ds4-context-engine)")


def test_config_show_labels_its_columns_and_gives_the_cli_form(cli: Cli) -> None:
    code, out, _ = cli("config", "show")
    lines = out.splitlines()
    labels = next(number for number, line in enumerate(lines) if line.startswith("path "))
    assert lines[labels].split() == ["path", "active", "value", "default", "value", "values", "and", "kind"]
    assert lines[labels + 1] == "[enabled]"
    row = next(line for line in lines if line.startswith("historyTools.maxResults "))
    assert lines[labels].index("active value") == row.index("6")  # the labels sit over their columns
    assert "From a shell: recall-rebase config set <path> <value> [--global]" in lines
    assert "Set:   /context config set <path> <value> [--global]" in lines  # the in-Pi form stays
    code, out, _ = cli("config", "show", "--json")
    assert code == 0 and "recall-rebase config set" not in js_parse(out)["text"]  # --json keeps the contract's text


# ------------------------------------------------------------------- --help shows every default

def help_text(words: list[str]) -> str:
    parser = _subparser(build_parser(), words)
    return " ".join(parser.format_help().split())


def _subparser(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser:
    for word in words:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
    return parser


def _product_commands() -> list[list[str]]:
    found: list[list[str]] = []

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if words:
            found.append(words)
        for action in subs:
            for name, sub in action.choices.items():
                if name not in ("conformance", "audit"):
                    walk(sub, [*words, name])

    walk(build_parser(), [])
    return found


@pytest.mark.parametrize("words", _product_commands(), ids=" ".join)
def test_every_option_with_a_value_shows_its_default(words: list[str]) -> None:
    parser = _subparser(build_parser(), words)
    text = " ".join(parser.format_help().split())
    formatter = parser._get_formatter()
    for action in parser._actions:
        if not action.option_strings or action.nargs == 0 or action.required or action.help == argparse.SUPPRESS:
            continue
        shown = formatter._get_help_string(action) or ""
        assert "default" in shown, (words, action.option_strings, shown)
        assert " ".join(shown.split("(default")[0].split()) in text


def test_fixtures_generate_compactions_has_help() -> None:
    text = " ".join(help_text(["fixtures", "generate"]).split())
    assert "--compactions N compaction entries on the main path" in text and "(default: 1)" in text


# ------------------------------------------------------------------- README

def test_readme_lists_each_command_line_once() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## What you can do with it", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("  #")[0].strip() for line in block.splitlines() if line.startswith("recall-rebase ")]
    assert len(commands) == len(set(commands)), [c for c in commands if commands.count(c) > 1]
    assert not any(c.startswith("recall-rebase conformance privacy [") for c in commands)
    assert "write nothing" not in block  # a dry run takes the lock file (contract §6.7)
