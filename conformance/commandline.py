"""How every command of ours ends: one line for bad input, and the exit code of its handler.

Shared by the toolkit's command lines (``conformance``, ``audit``) and the product's, so that
Ctrl-C is exit 130 and a closed stdout (``| head``) exit 1 everywhere, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, ClassVar, Final, NoReturn

from conformance.suite import SuiteNotFound

EXIT_BAD_INPUT: Final = 2
EXIT_INTERRUPTED: Final = 130
EXIT_PIPE_CLOSED: Final = 1


class OneLineError(Exception):
    """Input a command refuses: its ``code`` (a class attribute) and one line for the user."""

    code: ClassVar[str]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


USAGE: Final = "usage"
JSON_FLAG: Final = "--json"


def fail(code: str, message: str, *, as_json: bool = False) -> int:
    """One readable line on stderr for bad input; the exit code of bad input.

    ``as_json`` (the command was given ``--json``) also prints the refusal as the one JSON
    document on stdout, ``{"code": ..., "message": ...}``, so a script always gets JSON.
    """
    if as_json:
        sys.stdout.write(json.dumps({"code": code, "message": message}, ensure_ascii=False) + "\n")
    print(f"recall-rebase: {code}: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


class UsageError(OneLineError):
    """An argument argparse refuses: a missing or unknown option, a bad value or choice."""

    code = USAGE


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that raises :class:`UsageError` instead of printing its usage block
    and exiting, so that every argument error is the one line ``recall-rebase: usage: <message>``.
    Sub-parsers are made of the same class (argparse's default ``parser_class``)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


class SingleValueParser(OneLineParser):
    """A :class:`OneLineParser` that refuses an option of one value given twice (``--report a
    --report b``), where argparse silently keeps the last: an option meant to be repeated says so
    with ``action="append"``/``"extend"`` or :class:`CommaJoined`. Its sub-parsers are of this class too."""

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        if args is not None:
            self._refuse_repeats(list(args))
        return super().parse_known_args(args, namespace)

    def _refuse_repeats(self, arguments: list[str]) -> None:
        seen: set[str] = set()
        for argument in arguments:
            if argument == "--":
                return
            if not argument.startswith("-"):
                continue
            action = self._option_string_actions.get(argument.split("=", 1)[0])
            if action is None or action.nargs == 0 or isinstance(action, _REPEATABLE_ACTIONS):
                continue
            if action.dest in seen:
                self.error(f"{'/'.join(action.option_strings)} was given twice; it takes one value")
            seen.add(action.dest)


class CommaJoined(argparse.Action):
    """A repeatable option of comma-separated values: ``--area A --area B`` is ``--area A,B``."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        previous = getattr(namespace, self.dest, None)
        setattr(namespace, self.dest, f"{previous},{values}" if previous else values)


#: The actions that accumulate their values (argparse's append, extend and count, and ours).
_REPEATABLE_ACTIONS: Final = (argparse._AppendAction, argparse._AppendConstAction, argparse._CountAction, CommaJoined)


def parse_arguments(parser: argparse.ArgumentParser, arguments: list[str],
                    *, known: bool = False) -> tuple[argparse.Namespace, list[str]] | int:
    """``parser.parse_args`` (``parse_known_args`` when ``known``), or the exit code of the one
    line (and, with ``--json``, the JSON document) that refuses them."""
    try:
        if known:
            return parser.parse_known_args(arguments)
        return parser.parse_args(arguments), []
    except UsageError as exc:
        return fail(exc.code, exc.message, as_json=JSON_FLAG in arguments)


def run_handler(args: argparse.Namespace) -> int:
    """``args.handler(args)``, with Ctrl-C and a closed pipe as exit codes."""
    try:
        result: int = args.handler(args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_PIPE_CLOSED
    except SuiteNotFound as exc:
        return fail(exc.code, exc.message, as_json=bool(getattr(args, "json", False)))
    return result
