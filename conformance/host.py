"""``recall-rebase host``: the long-lived reference host (decisions D10).

With ``--stdio`` it serves the adapter protocol for the conformance runner.  Without it, it is
a prompt that accepts the ``/context ...`` commands a person would type in Pi.
"""

from __future__ import annotations

import os
import shlex
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
    from reference.adapter import IMPLEMENTATION, OPERATIONS, dispatch
    from reference.errors import ContractViolation
    from reference.jsonbytes import js_stringify

    hello = {"implementation": IMPLEMENTATION, "protocolVersion": PROTOCOL_VERSION, "operations": list(OPERATIONS)}
    # Reconfigure so a crash in the middle of a line never leaves half a message behind.
    sys.stdout.reconfigure(line_buffering=True, encoding="utf-8")  # type: ignore[union-attr]
    return serve(dispatch, hello, ContractViolation, encode=js_stringify)


HELP = """commands:
  /context config                      show the configuration (same as /context config show)
  /context config set <path> <value> [--global]
  /context config unset <path> [--global]
  /help                                this text
  /quit                                leave the host
history recall and rebase commands arrive with their features (see CHANGELOG.md)"""


def _interactive(stdin: IO[str], stdout: IO[str]) -> int:
    from reference.config import op_config_set, op_config_show, op_config_unset
    from reference.errors import ContractViolation

    host = {"home": str(Path.home()), "cwd": os.getcwd(), "env": dict(os.environ), "argv": []}
    prompt = stdin.isatty()
    stdout.write("recall-rebase host: type /help for commands, /quit to leave\n")
    while True:
        if prompt:
            stdout.write("> ")
            stdout.flush()
        line = stdin.readline()
        if not line:
            return 0
        words = shlex.split(line.strip()) if line.strip() else []
        if not words:
            continue
        try:
            if words[0] in ("/quit", "/exit"):
                return 0
            if words[0] == "/help":
                stdout.write(HELP + "\n")
            elif words[:2] == ["/context", "config"]:
                rest = words[2:]
                flags = [w for w in rest if w.startswith("--")]
                plain = [w for w in rest if not w.startswith("--")]
                unknown = [f for f in flags if f != "--global"]
                if unknown:
                    raise ContractViolation("config-unknown-option", f"Unknown option(s): {' '.join(unknown)}")
                verb = plain[0] if plain else "show"
                if verb == "show":
                    stdout.write(op_config_show(host)["text"] + "\n")
                elif verb == "set" and len(plain) == 3:
                    reply = op_config_set({**host, "path": plain[1], "value": plain[2], "global": bool(flags)})
                    stdout.write(reply["message"] + "\n")
                elif verb == "unset" and len(plain) == 2:
                    reply = op_config_unset({**host, "path": plain[1], "global": bool(flags)})
                    stdout.write(reply["message"] + "\n")
                else:
                    stdout.write("usage: /context config [show | set <path> <value> | unset <path>] [--global]\n")
            else:
                stdout.write(f"unknown command {words[0]!r}; type /help\n")
        except ContractViolation as exc:
            stdout.write(f"error: {exc.code}: {exc.message}\n")
        stdout.flush()
