"""``recall-rebase conformance new-port``: its arguments and its handler (the files are
:mod:`conformance.port_scaffold`'s)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from conformance.commandline import fail


def cmd_new_port(args: argparse.Namespace) -> int:
    """Write the port; print the files and the next command, or ``{"command", "files"}`` with ``--json``."""
    from conformance.port_scaffold import Language, ScaffoldRefused, new_port

    try:
        scaffold = new_port(args.directory, Language(args.language))
    except ScaffoldRefused as error:
        return fail(error.code, error.message, as_json=args.json)
    if args.json:
        sys.stdout.write(json.dumps({"command": list(scaffold.command), "files": list(scaffold.files)},
                                    ensure_ascii=False) + "\n")
        return 0
    print(f"wrote a {args.language} port in {scaffold.folder}:")
    for relative in scaffold.files:
        print(f"  {relative}")
    print(f"next: recall-rebase conformance smoke --stdio -- {shlex.join(scaffold.command)}")
    return 0


def _folder_name(text: str) -> str:
    """DIR as given; an empty one would be the current folder, which is never what was meant."""
    if not text.strip():
        raise argparse.ArgumentTypeError("DIR is empty: name the port's new folder")
    return text


def add_new_port(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    new_port = commands.add_parser(
        "new-port", help="write a runnable port that serves the protocol and declares no operation yet",
        description="Write, in DIR (a new folder, or an empty one), a port that serves the adapter protocol "
        "and declares no operation yet (python: port.py, standard library only; node: port.mjs), an empty "
        "expectations.toml, a README.md with the next steps and .github/workflows/conformance.yml (smoke and "
        "the suite). The port's name is DIR's. Nothing that exists is written into or replaced. The tutorial "
        "is docs/port-authors.md. Exit 0: written; 2: bad input (output-unwritable: DIR is not empty, is a "
        "file, its parent is missing, or it cannot be written).",
    )
    new_port.add_argument("directory", metavar="DIR", type=_folder_name, help="the port's folder: new, or empty")
    new_port.add_argument("--language", choices=["python", "node"], required=True,
                          help="python (port.py, run by this Python) or node (port.mjs, run by node)")
    new_port.add_argument("--json", action="store_true",
                          help='print {"command": [argv that starts the port], "files": [paths written]}')
    new_port.set_defaults(handler=cmd_new_port)
