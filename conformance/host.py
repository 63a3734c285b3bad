"""``recall-rebase host``: the long-lived reference host (decisions D10).

With ``--stdio`` it serves the adapter protocol for the conformance runner.  Without it, it is
a prompt that accepts the ``/context ...`` commands a person would type in Pi.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO


def run_host(*, stdio: bool, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    if stdio:
        return _serve_stdio()
    return _interactive(stdin or sys.stdin, stdout or sys.stdout)


def _serve_stdio() -> int:
    from conformance.protocol import PROTOCOL_VERSION
    from conformance.stdio import serve
    from reference.adapter import IMPLEMENTATION, OPERATIONS, STATEFUL_OPERATIONS, ReferenceAdapter
    from reference.errors import ContractViolation
    from reference.jsonbytes import js_stringify

    hello = {
        "implementation": IMPLEMENTATION,
        "protocolVersion": PROTOCOL_VERSION,
        "operations": [*OPERATIONS, *STATEFUL_OPERATIONS],
    }
    implementation = ReferenceAdapter()  # one host process: its references live as long as it does
    # Reconfigure so a crash in the middle of a line never leaves half a message behind.
    sys.stdout.reconfigure(line_buffering=True, encoding="utf-8")  # type: ignore[union-attr]
    return serve(implementation.dispatch, hello, ContractViolation, encode=js_stringify)


HELP = """commands:
  /context config                      show the configuration (same as /context config show)
  /context config set <path> <value> [--global]
  /context config unset <path> [--global]
  /help                                this text
  /quit                                leave the host
history recall and rebase commands arrive with their features (see CHANGELOG.md)"""


def _interactive(stdin: IO[str], stdout: IO[str]) -> int:
    """A prompt: configuration is loaded once at start, as Pi loads it at session start."""
    from reference.config import ConfigTargets, load_config, run_config_command
    from reference.errors import ContractViolation
    from reference.host import resolve_host

    facts = resolve_host(home=str(Path.home()), cwd=os.getcwd(), env=dict(os.environ), argv=())
    targets = ConfigTargets(facts.global_config_path, facts.project_config_path, facts.project_trusted)
    loaded = load_config(global_path=targets.global_path, project_path=targets.project_path,
                         project_trusted=targets.project_trusted)
    prompt = stdin.isatty()
    stdout.write("recall-rebase host: type /help for commands, /quit to leave\n")
    while True:
        if prompt:
            stdout.write("> ")
            stdout.flush()
        line = stdin.readline()
        if not line:
            return 0
        text = line.strip()
        if not text:
            continue
        command, _, rest = text.partition(" ")
        try:
            if command in ("/quit", "/exit"):
                return 0
            if command == "/help":
                stdout.write(HELP + "\n")
            elif command == "/context" and rest.strip().split(" ", 1)[0] == "config":
                arguments = rest.strip()[len("config"):]
                stdout.write(run_config_command(arguments, loaded=loaded, targets=targets) + "\n")
            else:
                stdout.write(f"unknown command {command!r}; type /help\n")
        except ContractViolation as exc:
            stdout.write(f"error: {exc.code}: {exc.message}\n")
        stdout.flush()
