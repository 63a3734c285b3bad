"""``recall-rebase config show|set|unset``: Pi's ``/context config`` from a shell.

The command runs as a fresh host start in ``--cwd`` with the real environment and home, so
``show`` reports what the next Pi session there would load.  Pi's own command line is not ours:
``--approve`` / ``--no-approve`` stand in for Pi's trust flags (without either, Pi's saved
trust decisions apply).  Bad input gives one line ``recall-rebase: <code>: <message>`` on stderr
and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from reference.cli.history_command import add_trust_arguments, trust_argv
from reference.cli.output import fail
from reference.primitives.codes import Code


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    parser.add_argument("--cwd", default=None, help="the Pi working directory (default: the current one)")
    add_trust_arguments(parser)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``config`` and its sub-commands on the main parser."""
    config = subparsers.add_parser(
        "config",
        help="show or edit the saved DS4 context configuration (ds4-context.json)",
        description="DS4 is the name of the Pi context extension (ds4-context-engine) whose history recall "
        "and session rebase this tool implements; its configuration is ds4-context.json, global "
        "(<agentDir>/ds4-context.json) and per project (.pi/ds4-context.json). "
        "Saved changes apply when the next Pi session starts; a running session keeps "
        "the configuration it loaded. In Pi the same commands are /context config show|set|unset.",
    )
    commands = config.add_subparsers(dest="config_command", metavar="SUBCOMMAND")
    # After add_subparsers, so that a bare ``config`` means ``config show``.
    config.set_defaults(handler=run, config_command="show", json=False, cwd=None, approve=False, no_approve=False)
    show = commands.add_parser("show", help="effective configuration, files, warnings and every catalog path")
    _common(show)
    edit = commands.add_parser("set", help="save one value (project file unless --global)")
    edit.add_argument("path", help="catalog path, e.g. historyTools.maxResults")
    edit.add_argument("value", help="the value as typed: true/false, an integer, an enum value or JSON")
    edit.add_argument("--global", dest="global_target", action="store_true",
                      help="write <agentDir>/ds4-context.json instead of the project file")
    _common(edit)
    remove = commands.add_parser("unset", help="remove one saved value and empty parent objects")
    remove.add_argument("path", help="catalog path")
    remove.add_argument("--global", dest="global_target", action="store_true",
                        help="edit <agentDir>/ds4-context.json instead of the project file")
    _common(remove)


def unknown_options(command: str, extras: list[str]) -> str:
    """The refusal of options ``config COMMAND`` does not take, naming the ones it does."""
    takes = "--json, --cwd DIR, --approve, --no-approve" + (", --global" if command != "show" else "")
    where = (" (--global belongs to config set and config unset: show lists both files)"
             if command == "show" and "--global" in extras else "")
    return f"Unknown option(s): {' '.join(extras)}; config {command} takes {takes}{where}"


def run(args: argparse.Namespace) -> int:
    """Run one ``config`` sub-command; contract errors become one stderr line and exit 2."""
    from reference.config.edits import set_value, unset_value
    from reference.config.layering import load_host_config
    from reference.config.show import for_shell, show_json
    from reference.pi.host.facts import resolve_host
    from reference.primitives.errors import ContractViolation
    from reference.primitives.jsonbytes import js_stringify

    if args.cwd is not None and not os.path.isdir(args.cwd):  # never create a project folder (issue 12)
        return fail(Code.BAD_OPTION, f"--cwd {args.cwd} is not a folder; nothing was read or written")
    host = resolve_host(home=str(Path.home()), cwd=os.path.abspath(args.cwd or os.getcwd()), env=dict(os.environ),
                        argv=trust_argv(args))
    try:
        if args.config_command == "show":
            result = show_json(load_host_config(host))
            text = for_shell(result["text"])
        else:
            change = (set_value(args.path, args.value, global_target=args.global_target, host=host)
                      if args.config_command == "set" else
                      unset_value(args.path, global_target=args.global_target, host=host))
            result, text = change.to_json(), change.message
    except ContractViolation as exc:
        return fail(exc.code, exc.message)
    sys.stdout.write((js_stringify(result) if args.json else text) + "\n")
    return 0
