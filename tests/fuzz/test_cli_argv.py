"""Fuzz category ``cli_argv`` (issue 12): arbitrary argument vectors for every product command.

A vector is a command path (``history search``, ``rebase``, ``config set``, ``fixtures
generate``, ...) then tokens drawn from that command's own options and choices, hostile values
(empty, ``nan``, ``inf``, huge and negative numbers, NUL-free junk, paths that are folders,
missing, or the session itself) and random text.  Every run is in a fresh temp folder (the
current directory too), with HOME there.  Invariants: no traceback, an answer within the hang
bound, an exit code the README documents, and an error is one ``recall-rebase: <code>: ...``
line on stderr; the session file used as input is never written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from testkit.history_service import write_session

from fuzz.budget import fuzz_settings
from fuzz.invariants import run_cli, sha
from fuzz.tally import count_case
from reference.cli.main import build_parser

EXIT_CODES = {0, 1, 2, 3}
#: Commands that would start something long-lived or read the test's stdin: not fuzzed here.
SKIPPED = {("host",), ("conformance",), ("audit",)}


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """(command path, its option strings and choices) for every leaf command of the parser."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        tokens: list[str] = []
        for action in parser._actions:
            tokens.extend(action.option_strings)
            if action.choices:
                tokens.extend(str(choice) for choice in action.choices)
        yield path, tokens
        return
    for name, child in subparsers[0].choices.items():
        if (*path, name) not in SKIPPED:
            yield from _commands(child, (*path, name))


COMMANDS = sorted(_commands(build_parser()))
VALUES = ("", "0", "-1", "1", "5", "nan", "inf", "-inf", "1e309", "9" * 400, "1.5", "null", "true", "[]", "{}",
          "--", "-", "=", "historyTools.maxResults", "privacy.localProviders", "current-lineage", "rebase_" + "0" * 32,
          "'\"`", "\u202e", "\ud7ff", "é" * 50)


@st.composite
def argv(draw: st.DrawFn) -> tuple[tuple[str, ...], list[str]]:
    path, options = draw(st.sampled_from(COMMANDS))
    pool = st.one_of(
        st.sampled_from(options or ["--help"]),
        st.sampled_from(VALUES),
        st.sampled_from(("@SESSION", "@FOLDER", "@MISSING", "@INDEX")),
        st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
    )
    return path, draw(st.lists(pool, max_size=8))


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@given(case=argv())
@fuzz_settings("cli_argv")
def test_argument_vectors(case: tuple[tuple[str, ...], list[str]]) -> None:
    count_case("cli_argv")
    path, tokens = case
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        session = root / "session.jsonl"
        write_session(session, 5)
        before = sha(session)
        places = {"@SESSION": str(session), "@FOLDER": str(root), "@MISSING": str(root / "missing" / "x"),
                  "@INDEX": str(root / "index.sqlite")}
        vector = [*path, *(places.get(token, token) for token in tokens)]
        with _inside(root):
            code, _stdout, stderr = run_cli(vector, home=root / "home")
        assert code in EXIT_CODES, (vector, code)
        if code != 0 and stderr:
            lines = [line for line in stderr.splitlines() if not line.startswith("recall-rebase: warning: ")]
            assert len(lines) == 1 and lines[0].startswith("recall-rebase: "), (vector, stderr)
        assert sha(session) == before
