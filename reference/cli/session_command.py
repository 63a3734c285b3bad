"""``recall-rebase session inspect``: how Pi 0.84.3 reads a session file, for people and scripts."""

from __future__ import annotations

import argparse
import codecs
import sys
from typing import Any

from reference.cli.output import fail
from reference.cli.refusals import FIND_A_LEAF, check_session
from reference.primitives.codes import Code


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    inspect.add_argument("--redact", action="store_true",
                         help="redact secrets in every string shown, to share the output (default: the file's "
                         "text exactly as Pi reads it; docs/privacy.md)")
    inspect.set_defaults(handler=cmd_session_inspect)


def _count(diagnostic: Any) -> int:
    return int(diagnostic["count"]) if isinstance(diagnostic, dict) else int(bool(diagnostic))


def _text(value: Any) -> str:
    return "none" if value is None else str(value)


def render_inspect(report: dict[str, Any]) -> str:
    """A person's summary of ``session inspect``."""
    return "\n".join([*_identity_lines(report), *_reading_lines(report), *_diagnostic_lines(report["diagnostics"])])


def _identity_lines(report: dict[str, Any]) -> list[str]:
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
    return lines


def _reading_lines(report: dict[str, Any]) -> list[str]:
    """The path, context and tool exchanges at the leaf, or why a legacy file has none."""
    legacy = report["diagnostics"]["legacyVersion"]
    if legacy is not None:
        return [f"legacy    version {legacy} file: not read as version 3 "
                "(Pi would rewrite it on open; this tool never does)"]
    settings = report.get("settings") or {}
    model = settings.get("model")
    model_text = f"{model.get('provider')}/{model.get('modelId')}" if isinstance(model, dict) else "none"
    path_count = len(report["pathIds"])
    lines = [f"path      {path_count} {'entry' if path_count == 1 else 'entries'} from the root to the leaf"]
    context = report.get("context")
    if context is None:
        return [*lines, f"context   cannot be built: {report.get('contextError')}"]
    tools = report["toolExchange"]
    return [
        *lines,
        f"context   {len(report['contextEntryIds'])} entries -> {len(context)} messages; "
        f"model {model_text}, thinking {settings.get('thinkingLevel')}",
        f"tools     {tools['activeIssueCount']} active and {tools['historicalIssueCount']} "
        "historical incomplete tool exchanges",
    ]


def _diagnostic_lines(diag: dict[str, Any]) -> list[str]:
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
    if not found:
        return ["diagnostics: none"]
    lines = ["diagnostics:"]
    for name, count, sample in found:
        where = f"  (e.g. {', '.join(map(str, sample[:8]))})" if sample else ""
        label = name if count == 1 or name.startswith("unterminated") else _plural_phrase(name)
        lines.append(f"  - {count} {label}{where}")
    return lines


def _plural_phrase(name: str) -> str:
    """'malformed line' -> 'malformed lines', 'entry on a parent cycle' -> 'entries on a parent cycle'."""
    head, _, tail = name.partition(" on ")
    head = head[:-1] + "ies" if head.endswith("entry") else head + "s"
    return f"{head} on {tail}" if tail else head


def cmd_session_inspect(args: argparse.Namespace) -> int:
    from reference.pi.leaf import leaf_from_cli
    from reference.pi.session_inspect import inspect_report
    from reference.primitives.errors import ContractViolation

    refusal = check_session(args.file).refusal
    if refusal is not None:
        return refusal.report()
    try:
        report = inspect_report(args.file, leaf_from_cli(args.leaf), messages=args.json,
                                values=args.redact and args.json)  # the readable form shows no message
    except ContractViolation as exc:
        return fail(exc.code, f"{exc.message}; {FIND_A_LEAF}" if exc.code == Code.UNKNOWN_LEAF else exc.message)
    if args.redact:  # every string, the messages' included, through the chosen detector (D16)
        from reference.privacy.detection import redact_strings

        report, _found = redact_strings(report)
    if args.json:
        write_report_json(report)
    else:
        print(render_inspect(report))
    return 0


def write_report_json(report: dict[str, Any]) -> None:
    """What :func:`reference.cli.output.print_json` writes for the report, from its pieces."""
    from reference.pi.session_inspect import report_json

    stdout = sys.stdout
    binary = getattr(stdout, "buffer", None)
    if binary is None or codecs.lookup(stdout.encoding or "").name != "utf-8":
        stdout.write(b"".join(report_json(report)).decode("utf-8"))
        return
    stdout.flush()
    binary.writelines(report_json(report))
    binary.flush()
