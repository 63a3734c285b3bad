"""What every product command prints: one error line, or one JSON document."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any, Final

#: The one exit-code rule of the product commands (docs/errors.md, "Exit codes").
EXIT_REFUSED: Final = 2  # refused before it could run: argument errors, bad input the command line sees
EXIT_UNAVAILABLE: Final = 3  # it ran, and the answer is unavailable
EXIT_RECOVERABLE: Final = 4  # rebase: a journal says how to finish
#: Set by ``main`` when the command line has ``--json``: a refusal is then also one JSON document.
JSON_REFUSALS = False


#: What would break the one line (or a terminal): control characters and Unicode line breaks.
_UNPRINTABLE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with every control character written as an escape (``\\r``, ``\\x1b``), so a
    message that quotes the user's input stays one line and cannot drive the terminal."""
    return _UNPRINTABLE.sub(lambda match: repr(match.group(0))[1:-1], text)


def fail(code: str, message: str, *, exit_code: int = EXIT_REFUSED) -> int:
    """One readable line on stderr for bad input: ``recall-rebase: <code>: <message>``; with
    ``--json`` also ``{"code", "message"}`` as the one JSON document on stdout.  Returns
    ``exit_code``: 2, or 3 for a refusal that says the session cannot be used as it is."""
    if JSON_REFUSALS:
        print_json({"code": code, "message": message})
    print(f"recall-rebase: {code}: {one_line(message)}", file=sys.stderr)
    return exit_code


def print_json(value: Any) -> None:
    """Exactly one JSON document on stdout, with JavaScript's ``JSON.stringify`` bytes."""
    from reference.primitives.jsonbytes import js_stringify

    sys.stdout.write(js_stringify(value) + "\n")


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """``--help`` of a product command: every option with a value of its own shows its default
    (``(default: %(default)s)``), unless its help already says it; none for a flag or a None."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        if (text is None or text == argparse.SUPPRESS or "default" in text or not action.option_strings
                or action.nargs == 0):  # a flag: its default is its absence
            return text
        if action.default is None or action.default is False or action.default == argparse.SUPPRESS:
            return text
        return f"{text} (default: %(default)s)"


def show_defaults(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` and every sub-command under it :class:`DefaultsHelpFormatter`."""
    parser.formatter_class = DefaultsHelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                show_defaults(sub)
