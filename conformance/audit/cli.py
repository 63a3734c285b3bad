"""``recall-rebase audit [check]|sql|views|export``: the checks, and the auditor's own questions.

The product's ``recall-rebase`` hands ``audit ...`` here whole, as it does ``conformance``; it
never imports the reference. Bad input is one line ``recall-rebase: <code>: <message>`` on
stderr and exit 2. Nothing an audit reads is ever written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from conformance.audit.progress_bar import audit_progress
from conformance.commandline import (
    OneLineError,
    SingleValueParser,
    UsageError,
    fail,
    parse_arguments,
    run_handler,
)
from conformance.outputs import OUTPUT_UNWRITABLE

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

    from conformance.audit.inputs import AuditInputs
    from conformance.audit.mapping import ProjectionMapping

#: The exit code of an audit that found something (0: clean, 2: bad input).
EXIT_FINDINGS: Final = 1
#: The subcommands; anything else first on the command line is the checks' (``audit --sessions ...``).
SUBCOMMANDS: Final = ("check", "sql", "views", "export")


def _mapping(args: argparse.Namespace) -> ProjectionMapping:
    from conformance.audit.mapping import load_mapping, reference_mapping

    return load_mapping(Path(args.mapping)) if args.mapping else reference_mapping()


def _inputs(args: argparse.Namespace, mapping: ProjectionMapping) -> AuditInputs:
    """The folders and the index the options name: ``--sessions`` or ``--project``, and ``--index``
    or the index the mapping keeps under Pi's agent dir."""
    from conformance.audit.inputs import AuditInputs, InputError
    from conformance.audit.pi_locations import agent_dir, project_sessions

    home, cwd = str(Path.home()), os.getcwd()
    if args.project:
        folders = [project_sessions(args.project, os.environ, home, cwd)]
    else:
        folders = [Path(folder) for folder in args.sessions]
    if args.index:
        index = Path(args.index)
    elif mapping.default_index:
        index = agent_dir(os.environ, home, cwd) / mapping.default_index
    else:
        raise InputError(f"{mapping.source} names no default index: give --index PATH")
    return AuditInputs.of(folders, index)


def refuse(args: argparse.Namespace, error: OneLineError) -> int:
    """One line on stderr, exit 2; with the command's ``--json`` also ``{"code", "message"}`` on stdout."""
    return fail(error.code, error.message, as_json=bool(getattr(args, "json", False)))


def _loaded_then(args: argparse.Namespace, work: Callable[[DuckDBPyConnection], int]) -> int:
    """Load the inputs the options name into an offline DuckDB, then ``work(connection)``; every
    refusal of the inputs, the mapping or the query is one line and exit 2."""
    from conformance.audit.queries import loaded

    try:
        mapping = _mapping(args)
        with loaded(_inputs(args, mapping), mapping, memory_limit=args.memory_limit) as connection:
            return work(connection)
    except OneLineError as error:  # an input, the mapping, the index or the query refused
        return refuse(args, error)


def cmd_check(args: argparse.Namespace) -> int:
    """Run the checks; print what disagrees (or the JSON document); exit 0 clean, 1 with findings."""
    from conformance.audit.check_output import is_audit_report, render_text, selected_checks, write_report
    from conformance.audit.engine import run_audit
    from conformance.outputs import OutputKind, unwritable

    if args.report and (problem := unwritable(args.report, OutputKind("audit report", is_audit_report))) is not None:
        return fail(OUTPUT_UNWRITABLE, problem, as_json=args.json)
    try:
        only = selected_checks(args.check or ())
        mapping = _mapping(args)
        inputs = _inputs(args, mapping)
        with audit_progress(inputs, enabled=not args.json and not args.no_progress) as advance:
            result = run_audit(inputs, mapping, samples=args.samples, show_content=args.show_content,
                               memory_limit=args.memory_limit, only=only, progress=advance)
    except OneLineError as error:
        return refuse(args, error)
    document = result.to_json()
    if args.report:
        write_report(Path(args.report), document)
    if args.json:
        print(json.dumps(document, ensure_ascii=False, default=str))
    else:
        sys.stdout.write(render_text(result, inputs))
    return 0 if result.clean else EXIT_FINDINGS


def _query(args: argparse.Namespace) -> str:
    """``audit sql``'s QUERY. ``--sessions DIR...`` takes every word after it, so a query written
    after the folders (``--sessions DIR "SELECT 1"``) is the last of those words."""
    if args.query is None and args.sessions and len(args.sessions) > 1:
        args.query = args.sessions.pop()
    if args.query is None:
        raise UsageError(f"the following arguments are required: QUERY (see {args.prog} --help)")
    return str(args.query)


def cmd_sql(args: argparse.Namespace) -> int:
    from conformance.audit.queries import OutputFormat, run_query

    try:
        query = _query(args)
    except UsageError as error:
        return refuse(args, error)

    def answer(connection: DuckDBPyConnection) -> int:
        sys.stdout.write(run_query(connection, query, OutputFormat(args.format)))
        return 0

    return _loaded_then(args, answer)


def cmd_views(args: argparse.Namespace) -> int:
    from conformance.audit.queries import describe_views

    def listing(connection: DuckDBPyConnection) -> int:
        views = describe_views(connection)
        if args.json:
            print(json.dumps({name: [{"name": n, "type": t} for n, t in columns] for name, columns in views.items()}))
        else:
            for name, columns in views.items():
                print(f"{name}: " + ", ".join(f"{n} {t}" for n, t in columns))
        return 0

    return _loaded_then(args, listing)


def cmd_export(args: argparse.Namespace) -> int:
    from conformance.audit.queries import export_parquet

    folder = args.parquet
    if os.path.lexists(folder) and (os.path.islink(folder) or not os.path.isdir(folder)):
        return fail(OUTPUT_UNWRITABLE, f"cannot write the Parquet files to {folder}: it is not a folder")

    def export(connection: DuckDBPyConnection) -> int:
        try:
            written = export_parquet(connection, Path(folder))
        except OSError as exc:
            return fail(OUTPUT_UNWRITABLE, f"cannot write the Parquet files to {folder}: {exc.strerror or exc}")
        for path in written:
            print(path)
        return 0

    return _loaded_then(args, export)


def _positive(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--sessions", nargs="+", action="extend", metavar="DIR",
                       help="folders of Pi session files (*.jsonl); their .ds4-rebase/operations journals too "
                       "(repeatable: every folder named is read)")
    where.add_argument("--project", metavar="CWD",
                       help="the project whose sessions Pi keeps in <agent dir>/sessions/--<cwd>-- "
                       "(PI_CODING_AGENT_DIR, else ~/.pi/agent; PI_CODING_AGENT_SESSION_DIR replaces the folder)")
    parser.add_argument("--index", metavar="PATH",
                        help="the SQLite index (the projection); default: the one the mapping names under the "
                        "agent dir (the reference's: <agent dir>/recall-rebase/index.sqlite)")
    parser.add_argument("--mapping", metavar="FILE",
                        help="how the views map onto the index's tables (default: the reference's)")
    parser.add_argument("--memory-limit", default="2GB", metavar="SIZE",
                        help="DuckDB's memory_limit; beyond it, it spills to a private temporary folder (default 2GB)")


def build_parser(prog: str = "recall-rebase audit") -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = SingleValueParser(prog=prog, description="Hold the projections and journals against the "
                                     "canonical JSONL, read again from the bytes by DuckDB.")
    commands = parser.add_subparsers(dest="audit_command", metavar="SUBCOMMAND", required=True)
    check = commands.add_parser("check", help="run every check (the default: recall-rebase audit --sessions DIR)",
                                description="Hold the projection and the journals against the canonical JSONL: "
                                "each check (AUDIT-NNN, docs/audit.md) counts what disagrees and shows a few samples "
                                "(ids, offsets, hashes). Exit 0 when clean, 1 with findings, 2 for bad input.")
    check.add_argument("--json", action="store_true", help="print one JSON document (schemas/audit/findings.schema.json)")
    check.add_argument("--report", metavar="PATH", help="also write that JSON document to PATH (owner-only)")
    check.add_argument("--show-content", action="store_true",
                       help="add each sampled line's text to its sample (off: samples carry no content)")
    check.add_argument("--samples", type=_positive, default=5, metavar="N", help="rows shown per finding (default 5)")
    check.add_argument("--check", action="append", metavar="AUDIT-NNN", help="run only this check (repeatable)")
    check.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    _add_inputs(check)
    check.set_defaults(handler=cmd_check)
    sql = commands.add_parser("sql", help="run a query over the named views (docs/audit.md)",
                              description="Run one DuckDB query over jsonl_*, proj_* and journals; it can read "
                              "nothing else and write nothing.")
    sql.add_argument("query", metavar="QUERY", nargs="?",
                     help="one DuckDB query; written after --sessions DIR..., it is the last word")
    sql.add_argument("--format", choices=["table", "json", "csv"], default="table")
    _add_inputs(sql)
    sql.set_defaults(handler=cmd_sql, prog=sql.prog)
    views = commands.add_parser("views", help="list the views and their columns")
    views.add_argument("--json", action="store_true")
    _add_inputs(views)
    views.set_defaults(handler=cmd_views)
    export = commands.add_parser("export", help="write every view as Parquet, for any other tool")
    export.add_argument("--parquet", metavar="DIR", required=True, help="the folder of the .parquet files")
    _add_inputs(export)
    export.set_defaults(handler=cmd_export)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "recall-rebase audit") -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or arguments[0] not in (*SUBCOMMANDS, "-h", "--help"):
        arguments.insert(0, "check")  # recall-rebase audit --sessions DIR: the checks
    parsed = parse_arguments(build_parser(prog), arguments)
    return parsed if isinstance(parsed, int) else run_handler(parsed[0])
