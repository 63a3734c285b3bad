"""``recall-rebase audit sql|views|export``: the auditor's own questions over the named views.

The product's ``recall-rebase`` hands ``audit ...`` here whole, as it does ``conformance``; it
never imports the reference. Bad input is one line ``recall-rebase: <code>: <message>`` on
stderr and exit 2. Nothing an audit reads is ever written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.commandline import OneLineError, fail, run_handler

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection


def _loaded_then(args: argparse.Namespace, work: Callable[[DuckDBPyConnection], int]) -> int:
    """Load the inputs the options name into an offline DuckDB, then ``work(connection)``; every
    refusal of the inputs, the mapping or the query is one line and exit 2."""
    from conformance.audit.inputs import AuditInputs
    from conformance.audit.mapping import load_mapping, reference_mapping
    from conformance.audit.queries import loaded

    try:
        inputs = AuditInputs.of([Path(d) for d in args.sessions], Path(args.index))
        mapping = load_mapping(Path(args.mapping)) if args.mapping else reference_mapping()
        with loaded(inputs, mapping, memory_limit=args.memory_limit) as connection:
            return work(connection)
    except OneLineError as error:  # an input, the mapping, the index or the query refused
        return fail(error.code, error.message)


def cmd_sql(args: argparse.Namespace) -> int:
    from conformance.audit.queries import OutputFormat, run_query

    def answer(connection: DuckDBPyConnection) -> int:
        sys.stdout.write(run_query(connection, args.query, OutputFormat(args.format)))
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

    def export(connection: DuckDBPyConnection) -> int:
        for path in export_parquet(connection, Path(args.parquet)):
            print(path)
        return 0

    return _loaded_then(args, export)


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sessions", nargs="+", metavar="DIR", required=True,
                        help="folders of Pi session files (*.jsonl); their .ds4-rebase/operations journals too")
    parser.add_argument("--index", metavar="PATH", required=True, help="the SQLite index (the projection)")
    parser.add_argument("--mapping", metavar="FILE",
                        help="how the views map onto the index's tables (default: the reference's)")
    parser.add_argument("--memory-limit", default="2GB", metavar="SIZE",
                        help="DuckDB's memory_limit; beyond it, it spills to a private temporary folder (default 2GB)")


def build_parser(prog: str = "recall-rebase audit") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Hold the projections and journals against the "
                                     "canonical JSONL, read again from the bytes by DuckDB.")
    commands = parser.add_subparsers(dest="audit_command", metavar="SUBCOMMAND", required=True)
    sql = commands.add_parser("sql", help="run a query over the named views (docs/audit.md)",
                              description="Run one DuckDB query over jsonl_*, proj_* and journals; it can read "
                              "nothing else and write nothing.")
    sql.add_argument("query", metavar="QUERY")
    sql.add_argument("--format", choices=["table", "json", "csv"], default="table")
    _add_inputs(sql)
    sql.set_defaults(handler=cmd_sql)
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
    args = build_parser(prog).parse_args(list(sys.argv[1:] if argv is None else argv))
    return run_handler(args)
