"""The toolkit's command line: ``recall-rebase conformance run|check|list|coverage|update-expectations|summary|validate-report|privacy|diff|merge|smoke|new-port``.

It never imports the reference: ``run`` reaches an implementation through the
``recall_rebase.adapters`` entry point group (in-process) or ``--stdio -- CMD ARGS...``. The
product's ``recall-rebase`` hands ``conformance ...`` here whole; ``python -m conformance`` runs
it alone. Bad input gives one line ``recall-rebase: <code>: <message>`` on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance import __version__
from conformance.commandline import (
    JSON_FLAG,
    CommaJoined,
    SingleValueParser,
    fail,
    parse_arguments,
    run_handler,
)
from conformance.coverage_command import add_coverage as _add_coverage
from conformance.new_port_command import add_new_port as _add_new_port
from conformance.port_options import StdioOption, add_port_options, seconds
from conformance.summary_command import cmd_summary


def refuse(args: argparse.Namespace, code: str, message: str) -> int:
    """One line on stderr, exit 2; with the command's ``--json`` also ``{"code", "message"}`` on stdout."""
    return fail(code, message, as_json=bool(getattr(args, "json", False)))


def _manifest_problem(args: argparse.Namespace) -> int | None:
    """Exit 2 with one line when ``--expectations FILE`` cannot be read or is not a manifest."""
    from conformance.expectations import ManifestError, load_manifest

    try:
        if args.expectations:
            load_manifest(Path(args.expectations))
    except ManifestError as error:
        return refuse(args, error.code, error.message)
    return None


def _selection_problem(args: argparse.Namespace) -> int | None:
    """Exit 2 with one line for a selection that matches no row, or a ``-k`` pytest would refuse."""
    from conformance.selection import Selection, empty_selection, keyword_problem

    selection = Selection.parse([args.only, args.ids], args.area, args.tag)
    message = empty_selection(selection) or keyword_problem(getattr(args, "k", None))
    return refuse(args, "usage", message) if message else None


def _ids(args: argparse.Namespace) -> str | None:
    """``--id`` and its alias ``--only``, joined."""
    return ",".join(text for text in (args.only, args.ids) if text) or None


def cmd_run(args: argparse.Namespace) -> int:
    from conformance.runner import RunOptions, run_conformance

    if (problem := _manifest_problem(args) or _selection_problem(args)) is not None:
        return problem
    options = RunOptions(
        stdio_command=args.stdio_command,
        report=args.report,
        junitxml=args.junitxml,
        select=args.k,
        only=_ids(args),
        area=args.area,
        tag=args.tag,
        max_fail=1 if args.exitfirst else args.max_fail,
        as_json=args.json,
        verbose=args.verbose,
        expectations=args.expectations,
        timeout=args.timeout,
        start_timeout=args.start_timeout,
        validate_messages=args.validate_messages,
        jobs=args.jobs,
        progress=not args.no_progress,
        cucumber_json=args.cucumber_json,
        audit=args.audit,
        shard=args.shard,
    )
    if args.repeat is not None:
        from conformance.repeat import run_repeated

        return run_repeated(options, args.repeat)
    return run_conformance(options)


def cmd_check(args: argparse.Namespace) -> int:
    from conformance.check import run_check

    if (problem := _manifest_problem(args)) is not None:
        return problem
    return run_check(as_json=args.json, expectations=args.expectations)


def cmd_update_expectations(args: argparse.Namespace) -> int:
    from conformance.expectation_updates import UpdateError, update_expectations

    try:
        print(update_expectations(Path(args.report), Path(args.write)))
    except UpdateError as error:
        return fail(error.code, error.message)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """One line (or JSON object) per row a run reports: the scenario ids, and ``ID[case]`` of outlines."""
    from conformance.selection import Selection, selected_rows

    if (problem := _selection_problem(args)) is not None:
        return problem
    rows = selected_rows(Selection.parse([args.only, args.ids], args.area, args.tag))
    if args.json:
        sys.stdout.write(json.dumps([row.to_json() for row in rows], ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        width = max((len(row.id) for row in rows), default=0)
        for row in rows:
            print(f"{row.id:<{width}} {row.scenario.feature}: {row.scenario.title}")
    scenarios = len({row.scenario.id for row in rows})
    print(f"recall-rebase: {len(rows)} rows of {scenarios} scenarios", file=sys.stderr)
    return 0


def cmd_validate_report(args: argparse.Namespace) -> int:
    """Every problem of each report (``conformance.report_validation``): exit 0 valid, 1 invalid."""
    from conformance.report_validation import print_verdicts, validate

    return print_verdicts(validate(args.reports), as_json=args.json)


def cmd_privacy(args: argparse.Namespace) -> int:
    """The privacy corpus over every output path (``conformance.privacy_command``)."""
    from conformance.privacy_command import run_privacy

    return run_privacy(stdio_command=args.stdio_command, adapter_name=args.adapter, as_json=args.json,
                       timeout=args.timeout, start_timeout=args.start_timeout)


def _add_privacy(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    privacy = commands.add_parser(
        "privacy", help="walk the labelled privacy corpus over every output path and print the numbers",
        description="Walk fixtures/privacy over recall, read, status, rebase (preview, run, recover, the "
        "target's context) and egress, for a remote (openai) and a local (ollama) provider: one row per path "
        "and provider with the outputs walked, the secrets leaked and the near-miss false positives. By default "
        "the in-process reference; '--stdio -- CMD ARGS...' any implementation of the adapter protocol. "
        "Exit 0: no leak and at most 2%% false positives on every path; 1: not so; 2: bad input.",
    )
    add_port_options(privacy, json_help="print the rows and the verdict as one JSON object")
    privacy.set_defaults(handler=cmd_privacy)


def cmd_smoke(args: argparse.Namespace) -> int:
    """The handshake, then each declared operation once (``conformance.smoke``)."""
    from conformance.smoke import run_smoke

    return run_smoke(stdio_command=args.stdio_command, adapter_name=args.adapter, as_json=args.json,
                     timeout=args.timeout, start_timeout=args.start_timeout)


def _add_smoke(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    smoke = commands.add_parser(
        "smoke", help="the handshake, then every operation the implementation declares, once, in seconds",
        description="The handshake, then each operation the hello declares once with a minimal valid request, "
        "every message held to schemas/adapter/v1: one line each, ok, refused CODE (a code of schemas/codes/v1: "
        "well-formed) or malformed: why. In-process reference by default, or '--stdio -- CMD ARGS...'. Exit 0: "
        "every answer well-formed; 1: one is not; 2: bad input; 3: the port does not start.",
    )
    add_port_options(smoke, json_help="print the hello and the answers as one JSON object")
    smoke.set_defaults(handler=cmd_smoke)


def _shard(text: str) -> str:
    """``--shard K/N`` (checked here, so a bad one is a usage line before anything runs)."""
    from conformance.shards import MachineShard, ShardSyntaxError

    try:
        return str(MachineShard.parse(text))
    except ShardSyntaxError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def cmd_merge(args: argparse.Namespace) -> int:
    from conformance.shard_merge import run_merge

    return run_merge(args.reports, args.output, as_json=args.json)


def _add_merge(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    merge = commands.add_parser(
        "merge", help="the reports of 'conformance run --shard K/N' on N machines as one run's report",
        description="Merge the NDJSON reports of shards 1/N to N/N of one run (same implementation, suite, "
        "selection and N, each shard once) into the report one unsharded run writes. Exit 0: written; "
        "2: a report is invalid, the shards do not add up (shards-mismatch), or the output cannot be written.",
    )
    merge.add_argument("reports", metavar="REPORT", nargs="+", help="the shards' NDJSON reports, in any order")
    merge.add_argument("-o", "--output", metavar="FULL.ndjson", required=True, help="write the merged report here")
    merge.add_argument("--json", action="store_true", help="print what was merged as one JSON object")
    merge.set_defaults(handler=cmd_merge)


def _add_report_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``summary`` and ``validate-report``: they read NDJSON reports, they run nothing."""
    summary = commands.add_parser(
        "summary", help="several implementations' reports side by side, per area (as bowtie summary)",
        description="Lay NDJSON reports side by side: one column per report, one line per area, a total. "
        "A cell is 'passed/rows (other statuses)'; a status that fails a run stands out; '—': no row there.",
    )
    summary.add_argument("reports", metavar="REPORT", nargs="+", help="NDJSON reports of conformance run --report")
    summary.add_argument("--format", choices=["text", "markdown", "json", "html", "svg"], default="text",
                         help="text (default: aligned columns), markdown (a GFM table), json "
                         "(schemas/summary/v1/summary.schema.json), html (one self-contained page) or svg "
                         "(a badge: passed/rows, green when conformant; of several reports, how many are)")
    summary.add_argument("--output", metavar="PATH", help="write here instead of stdout")
    summary.add_argument("--show", metavar="areas|failures|failures,unsupported", type=_shown, default={"areas"},
                         help="failures: also list, per report, the rows not PASS with their message's first line "
                         "(UNSUPPORTED ones counted only); failures,unsupported: list those too")
    summary.set_defaults(handler=cmd_summary)
    validate = commands.add_parser(
        "validate-report", help="check NDJSON reports against schemas/report/v1 and list every problem",
        description="Check each report: JSON lines valid against schemas/report/v1, one header first, one "
        "summary last, ids unique, total, counts and 'conformant' that follow from the rows. "
        "Exit 0: all valid; 1: one is invalid (or cannot be read); 2: usage.",
    )
    validate.add_argument("reports", metavar="REPORT", nargs="+", help="NDJSON reports to check")
    validate.add_argument("--json", action="store_true",
                          help="print schemas/validate-report/v1/verdicts.schema.json instead of text")
    validate.set_defaults(handler=cmd_validate_report)


def _add_diff(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``diff OLD NEW``: what changed between two runs (``conformance.report_diff``, imported when it runs)."""

    def cmd_diff(args: argparse.Namespace) -> int:
        from conformance.report_diff import Format, run_diff

        return run_diff(args.old, args.new, Format.JSON if args.json else Format(args.format))

    diff = commands.add_parser(
        "diff", help="what changed between two runs' reports: rows regressed, fixed, newly failing, new, removed",
        description="Compare two NDJSON reports row by row: regressed (passed or expected before, failing now), "
        "fixed, newly failing (only in NEW, failing), changed in reason (failing in both, with another status, "
        "step or message), new and removed. Exit 0: no row regressed; 1: a row regressed; 2: bad input.",
    )
    diff.add_argument("old", metavar="OLD", help="the NDJSON report of the earlier run")
    diff.add_argument("new", metavar="NEW", help="the NDJSON report of the later run")
    diff.add_argument("--format", choices=["text", "markdown", "json"], default="text",
                      help="text (default), markdown (a pull-request comment) or json "
                      "(schemas/diff/v1/diff.schema.json)")
    diff.add_argument("--json", action="store_true", help="the same as --format json")
    diff.set_defaults(handler=cmd_diff)


def _add_selection(parser: argparse.ArgumentParser) -> None:
    """``--id``/``--only``, ``--area``, ``--tag``: an intersection (see conformance.selection); each
    repeatable, its values joined (``--area A --area B`` is ``--area A,B``)."""
    parser.add_argument("--id", dest="ids", metavar="IDS", action=CommaJoined,
                        help="only these scenarios or rows, comma-separated, globs allowed "
                        "(READER-021 selects every READER-021[case]); repeatable")
    parser.add_argument("--only", metavar="IDS", action=CommaJoined, help="the same as --id")
    parser.add_argument("--area", metavar="AREAS", action=CommaJoined,
                        help="only these areas, comma-separated (e.g. READER,TREE); repeatable")
    parser.add_argument("--tag", metavar="TAGS", action=CommaJoined,
                        help="only scenarios with one of these Gherkin tags (no @), comma-separated; repeatable")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive count")
    return int(text)


def _repeat(text: str) -> int:
    """``--repeat N``: 1 to 100 runs of the selection (``conformance.repeat``)."""
    from conformance.repeat import MAX_REPEAT

    if not text.isdigit() or not 1 <= int(text) <= MAX_REPEAT:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count from 1 to {MAX_REPEAT}")
    return int(text)


def _shown(text: str) -> frozenset[str]:
    """``--show`` of ``summary``: ``areas``, ``failures``, or ``failures,unsupported``."""
    words = frozenset(text.split(","))
    if text in ("areas", "failures") or words == {"failures", "unsupported"}:
        return words
    raise argparse.ArgumentTypeError(f"{text!r} is none of areas, failures, failures,unsupported")


def _jobs(text: str) -> int:
    """``-j N`` (a positive count) or ``-j auto`` (one worker per CPU)."""
    if text == "auto":
        return os.cpu_count() or 1
    return _positive(text)


def _add_parallel(parser: argparse.ArgumentParser) -> None:
    """``-j N``, ``--no-progress`` and ``--cucumber-json`` (see conformance.parallel, conformance.progress)."""
    parser.add_argument("-j", "--jobs", metavar="N", type=_jobs, default=1,
                        help="split the rows over N worker processes, one port each ('auto': one per CPU)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no live progress on stderr (a bar on a terminal, a few plain lines otherwise)")
    parser.add_argument("--cucumber-json", metavar="PATH", help="also write pytest-bdd's Cucumber JSON")


def build_parser(prog: str = "recall-rebase conformance") -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = SingleValueParser(prog=prog, description="Run or check the conformance suite.")
    parser.add_argument("--version", action="version", version=f"recall-rebase conformance {__version__}")
    commands = parser.add_subparsers(dest="conformance_command", metavar="SUBCOMMAND", required=True)
    run = commands.add_parser(
        "run",
        help="run the packaged features against the reference, or against any --stdio implementation",
        description="Run every packaged scenario. By default the in-process reference runs; "
        "'--stdio -- CMD ARGS...' runs an implementation that serves the adapter protocol.",
    )
    run.add_argument("--report", metavar="PATH", help="write the NDJSON conformance report here")
    run.add_argument("--junitxml", metavar="PATH", help="also write JUnit XML")
    _add_selection(run)
    run.add_argument("-x", "--exitfirst", action="store_true", help="stop after the first unexpected outcome")
    run.add_argument("--max-fail", metavar="N", type=_positive, help="stop after N unexpected outcomes")
    run.add_argument("-k", metavar="EXPR", help="only scenarios whose test name matches this pytest -k expression")
    run.add_argument("--expectations", metavar="FILE", help="the implementation's expectations manifest (TOML)")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("--timeout", metavar="SECONDS", type=seconds, default=None,
                     help="seconds a --stdio port may take per request (default 10; 0: none); "
                     "a scenario tagged @timeout:N gets N times as long")
    run.add_argument("--start-timeout", metavar="SECONDS", type=seconds, default=None,
                     help="seconds a --stdio port may take to start and answer its handshake (default 30)")
    run.add_argument("-V", "--validate-messages", action="store_true",
                     help="check every request and response against schemas/adapter/v1 (as Bowtie's -V): "
                     "a response off the schema fails its scenario, a request off it is an ERROR")
    run.add_argument("--audit", action="store_true",
                     help="after each recall or rebase scenario, audit the sessions folder and index it left "
                     "through the mapping the implementation's hello declares (docs/audit.md): any finding "
                     "fails the scenario with its AUDIT-NNN ids")
    run.add_argument("-v", "--verbose", action="store_true", help="show pytest's own output and list every row: "
                     "PASS ids, UNSUPPORTED and SKIP rows (else counted per area with what they lack)")
    run.add_argument("--shard", metavar="K/N", type=_shard, help="run only shard K of N (by a hash of each "
                     "scenario id: the same on every machine); 'conformance merge' adds the N reports up")
    run.add_argument("--repeat", metavar="N", type=_repeat, help="run the selection N times (1-100) and fold: "
                     "a row with mixed outcomes is FLAKY, with the expectations entry to paste")
    _add_parallel(run)
    run.add_argument("--stdio", dest="stdio_command", action=StdioOption)
    run.set_defaults(handler=cmd_run)
    check = commands.add_parser(
        "check", help="suite sanity: ids unique, fixtures resolve, schemas valid, fixtures as declared"
    )
    check.add_argument("--json", action="store_true")
    check.add_argument("--expectations", metavar="FILE", help="also check that every id of this manifest exists")
    check.set_defaults(handler=cmd_check)
    update = commands.add_parser(
        "update-expectations", help="add xfail entries for a report's failures, drop those that now pass",
        description="Rewrite an expectations manifest from an NDJSON report: comments kept, ids sorted.",
    )
    update.add_argument("report", metavar="REPORT", help="the NDJSON report of a run")
    update.add_argument("--write", metavar="FILE", required=True, help="the manifest to update (created if absent)")
    update.set_defaults(handler=cmd_update_expectations)
    listing = commands.add_parser("list", help="list the rows a run reports: scenario ids and outline rows")
    listing.add_argument("--json", action="store_true")
    _add_selection(listing)
    listing.set_defaults(handler=cmd_list)
    _add_coverage(commands)
    _add_report_commands(commands)
    _add_privacy(commands)
    _add_diff(commands)
    _add_merge(commands)
    _add_smoke(commands)
    _add_new_port(commands)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "recall-rebase conformance") -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    stdio_command: list[str] | None = None
    split = arguments.index("--") if "--" in arguments else len(arguments)
    if "--stdio" in arguments[:split] and split < len(arguments) and arguments[:1] in (["run"], ["privacy"], ["smoke"]):
        stdio_command = arguments[split + 1 :]
        arguments = [a for a in arguments[:split] if a != "--stdio"]
        if not stdio_command:
            return fail("usage", "--stdio -- needs the command that serves the adapter protocol",
                        as_json=JSON_FLAG in arguments)
    parsed = parse_arguments(build_parser(prog), arguments)
    if isinstance(parsed, int):
        return parsed
    args = parsed[0]
    if stdio_command is not None:
        args.stdio_command = stdio_command
    return run_handler(args)
