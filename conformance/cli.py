"""``recall-rebase``: the console script.

Sub-commands: ``session inspect``, ``config``, ``fixtures``, ``host`` and ``conformance``.
Bad input gives one line ``recall-rebase: <code>: <message>`` on stderr and exit 2, never a
traceback; ``--json`` prints exactly one JSON document on stdout for scripts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from conformance import __version__

EXIT_CONTRACT_ERROR = 2


def fail(code: str, message: str) -> int:
    """One readable line on stderr for bad input."""
    print(f"recall-rebase: {code}: {message}", file=sys.stderr)
    return EXIT_CONTRACT_ERROR


def _print_json(value: Any) -> None:
    from reference.jsonbytes import js_stringify

    sys.stdout.write(js_stringify(value) + "\n")


# ---------------------------------------------------------------- session inspect


def _leaf_argument(value: str | None) -> Any:
    from reference.inspect import DEFAULT_LEAF

    if value is None:
        return DEFAULT_LEAF
    return None if value == "null" else value


def _count(diagnostic: Any) -> int:
    return int(diagnostic["count"]) if isinstance(diagnostic, dict) else int(bool(diagnostic))


def _text(value: Any) -> str:
    return "none" if value is None else str(value)


def render_inspect(report: dict[str, Any]) -> str:
    """A person's summary of ``session inspect``."""
    diag = report["diagnostics"]
    version = "no version key: legacy 1" if report["version"] is None else f"version {report['version']}"
    lines = [
        f"session   {report['sessionId']}  ({version})",
        f"file      {report['file']['path']}  {report['file']['size']} bytes  sha256 {report['file']['sha256']}",
        f"cwd       {report['cwd']}",
    ]
    if report.get("parentSession"):
        lines.append(f"parent    {report['parentSession']}")
    lines.append(f"entries   {report['entryCount']}  default leaf {_text(report['defaultLeafId'])}  "
                 f"leaf {_text(report['leafId'])}")
    if diag["legacyVersion"] is not None:
        lines.append(
            f"legacy    version {diag['legacyVersion']} file: not read as version 3 "
            "(Pi would rewrite it on open; this tool never does)"
        )
    else:
        settings = report.get("settings") or {}
        model = settings.get("model")
        model_text = f"{model.get('provider')}/{model.get('modelId')}" if isinstance(model, dict) else "none"
        path_count = len(report["pathIds"])
        lines.append(f"path      {path_count} {'entry' if path_count == 1 else 'entries'} from the root to the leaf")
        context = report.get("context")
        if context is None:
            lines.append(f"context   cannot be built: {report.get('contextError')}")
        else:
            lines.append(
                f"context   {len(report['contextEntryIds'])} entries -> {len(context)} messages; "
                f"model {model_text}, thinking {settings.get('thinkingLevel')}"
            )
            tools = report["toolExchange"]
            lines.append(
                f"tools     {tools['activeIssueCount']} active and {tools['historicalIssueCount']} "
                "historical incomplete tool exchanges"
            )
    problems = [
        ("malformed line", _count(diag["malformedLines"]), diag["malformedLines"].get("lines")),
        ("blank line", _count(diag["blankLines"]), diag["blankLines"].get("lines")),
        ("non-entry line", _count(diag["nonEntryLines"]), diag["nonEntryLines"].get("lines")),
        ("oversize record", _count(diag["oversizeRecords"]), diag["oversizeRecords"].get("lines")),
        ("later session header", _count(diag["extraHeaderLines"]), diag["extraHeaderLines"].get("lines")),
        ("duplicate id", diag["duplicateIds"]["count"], diag["duplicateIds"]["ids"]),
        ("missing parent", diag["brokenAncestry"]["missingParents"]["count"],
         diag["brokenAncestry"]["missingParents"]["ids"]),
        ("entry on a parent cycle", diag["brokenAncestry"]["cycles"]["count"], diag["brokenAncestry"]["cycles"]["ids"]),
    ]
    found = [(name, count, sample) for name, count, sample in problems if count]
    if diag["unterminatedTail"]:
        found.append(("unterminated last line (torn tail)", 1, None))
    if diag["crlfLines"]:
        found.append(("line ending in CRLF", diag["crlfLines"], None))
    if diag["invalidHeaderFields"]:
        found.append(("header field that is not a string", len(diag["invalidHeaderFields"]),
                      diag["invalidHeaderFields"]))
    if found:
        lines.append("diagnostics:")
        for name, count, sample in found:
            where = f"  (e.g. {', '.join(map(str, sample[:8]))})" if sample else ""
            label = name if count == 1 or name.startswith("unterminated") else _plural_phrase(name)
            lines.append(f"  - {count} {label}{where}")
    else:
        lines.append("diagnostics: none")
    return "\n".join(lines)


def _plural_phrase(name: str) -> str:
    """'malformed line' -> 'malformed lines', 'entry on a parent cycle' -> 'entries on a parent cycle'."""
    head, _, tail = name.partition(" on ")
    head = head[:-1] + "ies" if head.endswith("entry") else head + "s"
    return f"{head} on {tail}" if tail else head


def cmd_session_inspect(args: argparse.Namespace) -> int:
    from reference.errors import ContractViolation
    from reference.inspect import inspect_session

    try:
        report = inspect_session(args.file, _leaf_argument(args.leaf))
    except ContractViolation as exc:
        return fail(exc.code, exc.message)
    if args.json:
        _print_json(report)
    else:
        print(render_inspect(report))
    return 0


# ---------------------------------------------------------------- host


def cmd_host(args: argparse.Namespace) -> int:
    from conformance.host import run_host

    if args.stdio:
        return run_host(stdio=True)
    return run_host(stdio=False, session=args.session, leaf=args.leaf, cwd=args.cwd, provider=args.provider,
                    index=args.index)


# ---------------------------------------------------------------- conformance


def cmd_conformance_run(args: argparse.Namespace) -> int:
    from conformance.runner import run_conformance

    return run_conformance(
        stdio_command=args.stdio_command,
        report=args.report,
        junitxml=args.junitxml,
        select=args.k,
        only=args.only,
        as_json=args.json,
        verbose=args.verbose,
    )


def cmd_conformance_check(args: argparse.Namespace) -> int:
    from conformance.check import run_check

    return run_check(as_json=args.json)


def cmd_conformance_list(args: argparse.Namespace) -> int:
    from conformance.check import list_scenarios

    scenarios = list_scenarios()
    if args.json:
        _print_json(scenarios)
    else:
        for item in scenarios:
            print(f"{item['id']:<14} {item['feature']}: {item['title']}")
    return 0


# ---------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="recall-rebase",
        description="Conformance toolkit and reference implementation of Explicit History Recall "
        "and Session Rebase for Pi session files.",
    )
    parser.add_argument("--version", action="version", version=f"recall-rebase {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    session = commands.add_parser("session", help="read Pi session files")
    session_commands = session.add_subparsers(dest="session_command", metavar="SUBCOMMAND", required=True)
    inspect = session_commands.add_parser(
        "inspect",
        help="show how Pi 0.84.3 reads a session file: tree, leaf, context and diagnostics",
        description="Read a session file read-only and describe it at the active leaf.",
    )
    inspect.add_argument("file", help="a Pi session .jsonl file (never written)")
    inspect.add_argument("--leaf", metavar="ID", help="entry id to use as the leaf, or 'null' for an empty leaf "
                         "(default: the last entry in file order, as Pi does on load)")
    inspect.add_argument("--json", action="store_true", help="print the full JSON object")
    inspect.set_defaults(handler=cmd_session_inspect)

    from conformance import cli_config, cli_fixtures, cli_history, cli_rebase

    cli_config.add_parser(commands)
    cli_fixtures.add_parser(commands)
    cli_history.add_parser(commands)
    cli_rebase.add_parser(commands)

    host = commands.add_parser(
        "host",
        help="a long-lived host: /context commands for people, or the adapter protocol with --stdio",
    )
    host.add_argument("--stdio", action="store_true", help="serve the line-delimited JSON adapter protocol")
    host.add_argument("--session", metavar="FILE", help="the current Pi session file for /context history (never written)")
    host.add_argument("--leaf", metavar="ID", help="the active leaf (default: the last entry, as Pi does)")
    host.add_argument("--cwd", metavar="DIR", help="the project folder (default: the current directory)")
    host.add_argument("--provider", metavar="NAME", help="the model provider privacy is judged for")
    host.add_argument("--index", metavar="PATH", help="the index file (default: <agentDir>/recall-rebase/index.sqlite)")
    host.set_defaults(handler=cmd_host)

    conformance = commands.add_parser("conformance", help="run or check the conformance suite")
    conformance_commands = conformance.add_subparsers(dest="conformance_command", metavar="SUBCOMMAND",
                                                      required=True)
    run = conformance_commands.add_parser(
        "run",
        help="run the packaged features against the reference, or against any --stdio implementation",
        description="Run every packaged scenario. By default the in-process reference runs; "
        "'--stdio -- CMD ARGS...' runs an implementation that serves the adapter protocol.",
    )
    run.add_argument("--report", metavar="PATH", help="write the NDJSON conformance report here")
    run.add_argument("--junitxml", metavar="PATH", help="also write JUnit XML")
    run.add_argument("--only", metavar="IDS", help="only these scenario ids, comma-separated patterns (e.g. 'TREE-*,READER-001')")
    run.add_argument("-k", metavar="EXPR", help="only scenarios whose test name matches this pytest -k expression")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("-v", "--verbose", action="store_true", help="show pytest's own output")
    run.set_defaults(handler=cmd_conformance_run, stdio_command=None)
    check = conformance_commands.add_parser(
        "check", help="suite sanity: ids unique, fixtures resolve, schemas valid, fixtures as declared"
    )
    check.add_argument("--json", action="store_true")
    check.set_defaults(handler=cmd_conformance_check)
    listing = conformance_commands.add_parser("list", help="list the scenarios by id")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=cmd_conformance_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from reference.crashpoints import arm_from_environment
    from reference.errors import ContractViolation

    try:
        arm_from_environment()  # RECALL_REBASE_CRASH_AT is read once, at start-up (decisions D11)
    except ContractViolation as exc:
        return fail(exc.code, exc.message)
    arguments = list(sys.argv[1:] if argv is None else argv)
    stdio_command: list[str] | None = None
    if "--stdio" in arguments and "--" in arguments and arguments[:1] == ["conformance"]:
        split = arguments.index("--")
        stdio_command = arguments[split + 1 :]
        arguments = [a for a in arguments[:split] if a != "--stdio"]
        if not stdio_command:
            return fail("usage", "--stdio -- needs the command that serves the adapter protocol")
    parser = build_parser()
    args, extras = parser.parse_known_args(arguments)
    if extras:
        if getattr(args, "command", None) == "config":  # /context config semantics: one clear line
            return fail("config-unknown-option", f"Unknown option(s): {' '.join(extras)}; only --global is accepted")
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    if stdio_command is not None:
        args.stdio_command = stdio_command
    try:
        result: int = args.handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    return result


if __name__ == "__main__":
    raise SystemExit(main())
