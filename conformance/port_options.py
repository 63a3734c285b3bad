"""The command-line options of the commands that drive an implementation (``run``, ``privacy``, ``smoke``).

``--stdio -- PORT ...`` (:class:`StdioOption`: the command after ``--`` is taken off the line by
``conformance.cli.main`` before argparse, so argparse meets ``--stdio`` only without it, and
refuses it), the timeouts in :func:`seconds`, and :func:`add_port_options`, the set ``privacy``
and ``smoke`` share: ``--json``, ``--adapter``, ``--timeout``, ``--start-timeout``, ``--stdio``.
"""

from __future__ import annotations

import argparse
from typing import Final

#: What ``--stdio`` without ``--`` is told (the port's command comes after ``--``, whole).
STDIO_WITHOUT_SEPARATOR: Final = "--stdio takes the port's command after --: --stdio -- ./port"


def seconds(text: str) -> float:
    """A number of seconds, not negative (``--timeout 0`` turns the request timeout off)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return value


def timeout_seconds(value: float | None, default: float) -> float | None:
    """A timeout option as a port takes it: ``default`` when not given, none at all for 0."""
    if value is None:
        return default
    return value or None


class StdioOption(argparse.Action):
    """``--stdio``: shown as ``--stdio -- PORT ...``; ``conformance.cli.main`` takes it and the command
    after ``--`` off the line before argparse, so argparse meets it only without ``--``: refused."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=None,
                         help="run the implementation PORT ... (every word after --) over the adapter protocol "
                         "on its stdio, instead of the in-process one")

    def format_usage(self) -> str:
        return "--stdio -- PORT ..."

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        parser.error(STDIO_WITHOUT_SEPARATOR)


def add_port_options(parser: argparse.ArgumentParser, *, json_help: str) -> None:
    """``--json``, ``--adapter``, ``--timeout``, ``--start-timeout`` and ``--stdio`` (``privacy``, ``smoke``)."""
    parser.add_argument("--json", action="store_true", help=json_help)
    parser.add_argument("--adapter", metavar="NAME", default="reference",
                        help="in-process adapter: a recall_rebase.adapters entry point or module:attr "
                        "(default: reference)")
    parser.add_argument("--timeout", metavar="SECONDS", type=seconds, default=None,
                        help="seconds a --stdio port may take per request (default 10; 0: none)")
    parser.add_argument("--start-timeout", metavar="SECONDS", type=seconds, default=None,
                        help="seconds a --stdio port may take to start (default 30)")
    parser.add_argument("--stdio", dest="stdio_command", action=StdioOption)
