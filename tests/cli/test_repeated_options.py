"""Repeatable options either accumulate or are refused (issue 23, item 6).

argparse keeps the last value of an option given twice, in silence: ``conformance run --area
PRIM --area RECALL`` ran RECALL only. Every option of every command is read off the parsers
themselves (the product's, ``conformance``'s and ``audit``'s), so an option added later is
covered without a line here: an option meant to be repeated accumulates (argparse's ``append``,
``extend``, ``count`` or the toolkit's ``CommaJoined``), and any other option that takes one value
refuses a second one with one ``usage`` line and exit 2, before the command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.audit.cli import build_parser as audit_parser
from conformance.audit.cli import main as audit_main
from conformance.cli import build_parser as toolkit_parser
from conformance.cli import main as toolkit_main
from conformance.commandline import CommaJoined
from reference.cli.main import build_parser as product_parser
from reference.cli.main import main as product_main

ACCUMULATING = (argparse._AppendAction, argparse._ExtendAction, argparse._CountAction, CommaJoined)


@dataclass(frozen=True)
class Option:
    """One option of one (sub)command, as its parser declares it."""

    words: tuple[str, ...]  # the command words before it: ("history", "search")
    flag: str
    accumulates: bool
    choice: str | None

    def __str__(self) -> str:
        return " ".join((*self.words, self.flag))


def _walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> Iterator[Option]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*words, name))
        elif action.option_strings and action.nargs != 0 and not isinstance(action, argparse._HelpAction):
            flag = max(action.option_strings, key=len)
            choice = str(next(iter(action.choices))) if action.choices else None
            yield Option(words, flag, isinstance(action, ACCUMULATING), choice)


Main = Callable[[Sequence[str]], int]
PARSERS: list[tuple[str, argparse.ArgumentParser, Main, tuple[str, ...]]] = [
    ("product", product_parser(), product_main, ()),
    ("conformance", toolkit_parser(), toolkit_main, ()),
    ("audit", audit_parser(), audit_main, ()),
]
OPTIONS = [(name, run, option) for name, parser, run, _ in PARSERS for option in _walk(parser, ())
           if option.words[:1] not in (("conformance",), ("audit",))]  # the product's hand-overs


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that wrongly runs writes into a temporary folder, never into the checkout."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))


def _run(run: Main, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = run(argv)
        except SystemExit as exit_:  # --version and the like
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_the_walk_finds_the_options_users_meet() -> None:
    found = {(name, str(option)) for name, _, option in OPTIONS}
    for expected in [("product", "history search --session"), ("product", "rebase --leaf"),
                     ("conformance", "run --area"), ("conformance", "run --report"),
                     ("audit", "--sessions")]:
        assert any(name == expected[0] and text.endswith(expected[1]) for name, text in found), expected
    assert len(OPTIONS) > 80


@pytest.mark.parametrize(("name", "run", "option"),
                         [pytest.param(n, r, o, id=f"{n}:{o}") for n, r, o in OPTIONS if not o.accumulates])
def test_a_one_value_option_given_twice_is_refused(name: str, run: Main, option: Option) -> None:
    value = option.choice or ("1" if option.flag != "--out" else "out")
    code, out, err = _run(run, [*option.words, option.flag, value, option.flag, value])
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("recall-rebase: usage: ") and "given twice" in line, line
    assert out == ""


@pytest.mark.parametrize(("name", "run", "option"),
                         [pytest.param(n, r, o, id=f"{n}:{o}") for n, r, o in OPTIONS if o.accumulates])
def test_an_accumulating_option_given_twice_is_not_refused_as_a_repeat(name: str, run: Main, option: Option) -> None:
    value = option.choice or "PRIM"
    code, _, err = _run(run, [*option.words, option.flag, value, option.flag, value, "--help"])
    assert "given twice" not in err and code == 0, err
