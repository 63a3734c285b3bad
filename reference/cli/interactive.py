"""``recall-rebase host``: the long-lived reference host (decisions D10).

With ``--stdio`` it serves the adapter protocol for the conformance runner.  Without it, it is
a prompt that accepts the ``/context ...`` commands a person would type in Pi.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from reference.primitives.codes import Code
from reference.recall.tool_registry import history_tool_names

if TYPE_CHECKING:
    from reference.config.layering import LoadedConfig
    from reference.pi.host.facts import HostFacts
    from reference.rebase.service import RebaseService
    from reference.recall.host import HistoryOpening
    from reference.recall.service import HistoryService


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    host = commands.add_parser(
        "host",
        help="a long-lived host: /context commands for people, or the adapter protocol with --stdio",
    )
    host.add_argument("--stdio", action="store_true", help="serve the line-delimited JSON adapter protocol")
    host.add_argument("--session", metavar="FILE", help="the current Pi session file for /context history and "
                      "/context rebase (never written; default: none, so they answer ephemeral-session)")
    host.add_argument("--leaf", metavar="ID", help="the active leaf (default: the last entry, as Pi does)")
    host.add_argument("--cwd", metavar="DIR", help="the project folder; a session is used only from the project "
                      "its header's cwd names (default: the current directory)")
    host.add_argument("--provider", metavar="NAME", help="the model provider privacy is judged for "
                      "(default: the session's provider at the leaf)")
    host.add_argument("--index", metavar="PATH", help="the index file (default: <agentDir>/recall-rebase/index.sqlite)")
    host.set_defaults(handler=cmd_host)


def cmd_host(args: argparse.Namespace) -> int:
    if args.stdio:
        return run_host(stdio=True)
    if args.session is not None:
        from reference.cli.refusals import check_session

        refusal = check_session(os.path.abspath(args.session), args.leaf).refusal
        if refusal is not None:
            return refusal.report()
    # A line that is not UTF-8 is read (as lone surrogates) and answered, never a UnicodeDecodeError.
    sys.stdin.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    from reference.pi.leaf import leaf_from_cli
    from reference.recall.host import HistoryOpening

    return run_host(stdio=False, start=HistoryOpening(
        home=str(Path.home()), cwd=os.path.abspath(args.cwd or os.getcwd()), env=dict(os.environ), argv=(),
        session_file=os.path.abspath(args.session) if args.session else None, leaf=leaf_from_cli(args.leaf),
        provider=args.provider, index_path=args.index))


def run_host(*, stdio: bool, stdin: IO[str] | None = None, stdout: IO[str] | None = None,
             start: HistoryOpening | None = None) -> int:
    """The adapter protocol on stdin/stdout, or the prompt of a host that opens ``start``."""
    if stdio:
        from reference.adapter.operations import serve_stdio

        return serve_stdio()
    from reference.cli.progress_bar import catch_up_progress

    assert start is not None, "an interactive host opens a history"

    with catch_up_progress(enabled=True):  # stderr only, and only on a terminal
        return _interactive(stdin or sys.stdin, stdout or sys.stdout, start)


HELP = """commands:
  /context config                      show the configuration (same as /context config show)
  /context config set <path> <value> [--global]
  /context config unset <path> [--global]
  /context history [status]            index state of the current session (content-free)
  /context history search <query>      recall with default settings
  /context history read <sourceRef> [startLine] [maxLines]
  /context rebase [--dry-run | --recover <operationId>]
                                       rebase the current session onto a fresh target (never a tool)
  /tool <name> <JSON arguments>        call context_history_recall, _read or _status as a model would
  /help                                this text
  /quit                                leave the host"""
REBASE_USAGE = "/context rebase [--dry-run | --recover <operationId>]"

TOOLS = history_tool_names()


def _js_number(text: str) -> float:
    """JavaScript ``Number(text)``: NaN for anything that is not a number (then invalid-range)."""
    try:
        return float(text) if text.strip() else 0.0
    except ValueError:
        return math.nan


@dataclass
class _Host:
    """What one interactive host holds for its whole life (configuration is read once, at start)."""

    loaded: LoadedConfig
    facts: HostFacts
    service: HistoryService
    rebase: RebaseService


def _interactive(stdin: IO[str], stdout: IO[str], start: HistoryOpening) -> int:
    """A prompt: configuration is loaded once at start, as Pi loads it at session start."""
    from reference.primitives.errors import ContractViolation

    host = _start(start)
    prompt = stdin.isatty()
    stdout.write("recall-rebase host: type /help for commands, /quit to leave\n")
    stdout.flush()
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
        if command in ("/quit", "/exit"):
            return 0
        try:
            stdout.write(_answer(host, command, rest) + "\n")
        except ContractViolation as exc:  # one coded line; the host and its live references go on
            stdout.write(f"error: {exc.code}: {exc.message}\n")
        stdout.flush()


def _start(start: HistoryOpening) -> _Host:
    """The configuration, the history and the rebase of one host, each set up once."""
    from reference.config.layering import load_host_config
    from reference.pi.host.facts import resolve_host
    from reference.primitives.clock import SystemClock
    from reference.rebase.host import build_rebase_host
    from reference.rebase.service import RebaseService
    from reference.recall.host import open_history

    facts = resolve_host(home=start.home, cwd=start.cwd, env=start.env, argv=start.argv)
    service = open_history(start, clock=SystemClock())
    service.settle_provider()  # the host knows its provider from the start, as Pi does
    rebase_host, default_index = build_rebase_host(home=start.home, cwd=start.cwd, env=start.env, argv=start.argv,
                                                   session_file=service.host.session_file, leaf=service.host.leaf)
    rebase = RebaseService(rebase_host, index_path=start.index_path or default_index)
    return _Host(load_host_config(facts), facts, service, rebase)


def _answer(host: _Host, command: str, rest: str) -> str:
    """The text one command line prints."""
    from reference.config.commands import run_config_command
    from reference.primitives.jsonbytes import js_stringify

    words = rest.split()
    if command == "/help":
        return HELP
    if command == "/context" and words[:1] == ["config"]:
        return run_config_command(rest.strip()[len("config"):], loaded=host.loaded, host=host.facts)
    if command == "/context" and words[:1] == ["history"]:
        return js_stringify(_history_command(host.service, rest.strip()[len("history"):].strip()))
    if command == "/context" and words[:1] == ["rebase"]:
        return _rebase_command(host.rebase, host.service, words[1:])
    if command == "/tool":
        name, _, payload = rest.strip().partition(" ")
        if name not in TOOLS:
            return f"unknown tool {name!r}; tools: {', '.join(TOOLS)}"
        return js_stringify(host.service.call(name.removeprefix("context_history_"), tool_arguments(payload)).as_json())
    return f"unknown command {command!r}; type /help"


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def tool_arguments(payload: str) -> dict[str, Any]:
    """The JSON object of ``/tool NAME ARGS`` (none: ``{}``). Anything else is ``invalid-params``,
    as Pi checks a tool's arguments against its parameters before it calls the tool."""
    from reference.primitives.errors import ContractViolation

    if not payload.strip():
        return {}
    try:
        value = json.loads(payload, parse_constant=_not_json)
    except RecursionError:
        raise ContractViolation(Code.INVALID_PARAMS, "the tool arguments are nested too deeply") from None
    except ValueError as exc:  # not JSON, NaN, an integer of more than 4,300 digits
        raise ContractViolation(Code.INVALID_PARAMS, f"the tool arguments are not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ContractViolation(Code.INVALID_PARAMS, "the tool arguments must be a JSON object")
    return value


def _rebase_command(rebase: RebaseService, history: HistoryService, words: list[str]) -> str:
    """``/context rebase`` (contract §6.1): the result's JSON when the session was not replaced,
    else the notification, and the host's current session becomes the target."""
    from reference.artifacts.ids import is_operation_id
    from reference.pi.leaf import DEFAULT_LEAF
    from reference.primitives.jsonbytes import js_stringify
    from reference.rebase.service import RebaseRequest

    if words == []:
        result = rebase.rebase(RebaseRequest()).result.to_json()
    elif words == ["--dry-run"]:
        result = rebase.rebase(RebaseRequest.of(dry_run=True)).result.to_json()
    elif len(words) == 2 and words[0] == "--recover" and is_operation_id(words[1]):
        result = rebase.rebase(RebaseRequest.of(recover=words[1])).result.to_json()
    else:
        return f"usage: {REBASE_USAGE}"
    notes = list(rebase.host.notifications)
    rebase.host.notifications.clear()
    if not result.get("sessionReplaced"):
        return js_stringify(result)
    history.host.session_file = rebase.host.session_file  # the fresh context is the only one used now
    history.host.session_id = rebase.host.current_session_id()
    history.host.leaf = DEFAULT_LEAF
    return "\n".join(f"[{level}] {message}" for level, message in notes)


def _history_command(service: HistoryService, rest: str) -> dict[str, Any]:
    """``/context history …`` as the TypeScript commands parse it (contract §3.1, §4)."""
    from reference.primitives.errors import ContractViolation

    verb, _, argument = rest.partition(" ")
    if verb in ("", "status"):
        return dict(service.status().as_json())
    if verb == "search":
        return dict(service.recall({"query": argument}).as_json())
    if verb == "read":
        tokens = argument.split()
        if not tokens or len(tokens) > 3:
            raise ContractViolation(Code.INVALID_RANGE, "usage: /context history read <sourceRef> [startLine] [maxLines]")
        arguments: dict[str, Any] = {"sourceRef": tokens[0]}
        for key, token in zip(("startLine", "maxLines"), tokens[1:], strict=False):
            number = _js_number(token)
            arguments[key] = int(number) if number.is_integer() else number
        return dict(service.read(arguments).as_json())
    raise ContractViolation(Code.INVALID_QUERY, "usage: /context history [status | search <query> | read <sourceRef> ...]")
