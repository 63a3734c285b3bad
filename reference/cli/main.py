"""``recall-rebase``: the console script.

Product commands (``session inspect``, ``history``, ``rebase``, ``host``, ``config``,
``fixtures``) live in this package; ``recall-rebase conformance ...`` and ``recall-rebase audit ...``
are handed whole to the toolkit's own command lines (:mod:`conformance.cli`,
:mod:`conformance.audit.cli`), which never import the reference. Bad input
gives one line ``recall-rebase: <code>: <message>`` on stderr, never a traceback; ``--json``
prints exactly one JSON document on stdout for scripts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from conformance.commandline import JSON_FLAG, USAGE, SingleValueParser, parse_arguments, run_handler
from reference import __version__
from reference.cli import (
    config_command,
    fixtures_command,
    history_command,
    interactive,
    output,
    rebase_command,
    session_command,
)
from reference.cli.output import fail, show_defaults
from reference.primitives.codes import Code

TOOLKIT_COMMAND = "conformance"
AUDIT_COMMAND = "audit"


def build_parser() -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = SingleValueParser(
        prog="recall-rebase",
        description="Conformance toolkit and reference implementation of Explicit History Recall "
        "and Session Rebase for Pi session files.",
    )
    parser.add_argument("--version", action="version", version=f"recall-rebase {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    session_command.add_parser(commands)
    config_command.add_parser(commands)
    fixtures_command.add_parser(commands)
    history_command.add_parser(commands)
    rebase_command.add_parser(commands)
    interactive.add_parser(commands)
    show_defaults(parser)  # the product commands' options show their defaults in --help
    commands.add_parser(TOOLKIT_COMMAND, add_help=False,
                        help="run or check the conformance suite (recall-rebase conformance --help)")
    commands.add_parser(AUDIT_COMMAND, add_help=False,
                        help="query the projections and journals against the canonical JSONL (recall-rebase audit --help)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from reference.primitives.errors import ContractViolation
    from reference.rebase.crashpoints import arm_from_environment

    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [TOOLKIT_COMMAND]:
        from conformance.cli import main as toolkit_main

        return toolkit_main(arguments[1:], prog=f"recall-rebase {TOOLKIT_COMMAND}")
    if arguments[:1] == [AUDIT_COMMAND]:
        from conformance.audit.cli import main as audit_main

        return audit_main(arguments[1:], prog=f"recall-rebase {AUDIT_COMMAND}")
    try:
        arm_from_environment()  # RECALL_REBASE_CRASH_AT is read once, at start-up (decisions D11)
    except ContractViolation as exc:
        return fail(exc.code, exc.message)
    output.JSON_REFUSALS = JSON_FLAG in arguments
    try:
        return _parse_and_run(arguments)
    finally:
        output.JSON_REFUSALS = False  # for this call only


def _parse_and_run(arguments: list[str]) -> int:
    parsed = parse_arguments(build_parser(), arguments, known=True)
    if isinstance(parsed, int):
        return parsed
    args, extras = parsed
    if extras:
        if getattr(args, "command", None) == "config":  # /context config semantics: one clear line
            return fail(Code.CONFIG_UNKNOWN_OPTION, config_command.unknown_options(args.config_command, extras))
        return fail(USAGE, f"unrecognized arguments: {' '.join(extras)} (see recall-rebase {args.command} --help)")
    return run_handler(args)
