"""How every command of ours ends: one line for bad input, and the exit code of its handler.

Shared by the toolkit's command lines (``conformance``, ``audit``) and the product's, so that
Ctrl-C is exit 130 and a closed stdout (``| head``) exit 1 everywhere, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import ClassVar, Final

EXIT_BAD_INPUT: Final = 2
EXIT_INTERRUPTED: Final = 130
EXIT_PIPE_CLOSED: Final = 1


class OneLineError(Exception):
    """Input a command refuses: its ``code`` (a class attribute) and one line for the user."""

    code: ClassVar[str]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def fail(code: str, message: str) -> int:
    """One readable line on stderr for bad input; the exit code of bad input."""
    print(f"recall-rebase: {code}: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run_handler(args: argparse.Namespace) -> int:
    """``args.handler(args)``, with Ctrl-C and a closed pipe as exit codes."""
    try:
        result: int = args.handler(args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_PIPE_CLOSED
    return result
