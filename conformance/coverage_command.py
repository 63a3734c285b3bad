"""``recall-rebase conformance coverage``: its arguments and its handler (the work is
:mod:`conformance.coverage`, the forms :mod:`conformance.coverage_render`)."""

from __future__ import annotations

import argparse
import sys


def cmd_coverage(args: argparse.Namespace) -> int:
    """The clause coverage (``conformance.coverage``): exit 0 when every clause is covered or reasoned, else 1."""
    from conformance.coverage import coverage, read_citations
    from conformance.coverage_render import Format, render

    citations = read_citations()
    for problem in citations.unreadable:
        print(f"recall-rebase: {problem} (conformance check lists every problem)", file=sys.stderr)
    report = coverage(citations)
    sys.stdout.write(render(report, Format.JSON if args.json else Format(args.format)))
    return 0 if report.complete else 1


def add_coverage(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    coverage = commands.add_parser(
        "coverage", help="which scenarios and mutants check each clause of docs/spec/, uncovered clauses first",
        description="Join the clauses of docs/spec/ (docs/spec/clauses.json) to the scenarios' @clause: tags, the "
        "mutant entries' clauses and features/unobservable.toml: the uncovered clauses first, then one table per "
        "spec section and one per area. Exit 0: every clause is covered by a scenario or reasoned unobservable; "
        "1: some clause is neither; 2: usage. 'conformance check' lists what is wrong with the citations.",
    )
    coverage.add_argument("--format", choices=["text", "markdown", "html", "json"], default="text",
                          help="text (default), markdown (docs/coverage.md holds it), html (one self-contained "
                          "page listing every clause) or json (schemas/clauses/v1/coverage.schema.json)")
    coverage.add_argument("--json", action="store_true", help="the same as --format json")
    coverage.set_defaults(handler=cmd_coverage)
