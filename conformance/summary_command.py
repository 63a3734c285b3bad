"""``recall-rebase conformance summary REPORT...``: read the reports, lay them side by side, print or write them.

The table is :mod:`conformance.summary`'s, its forms :mod:`conformance.summary_render`'s (both
imported when the command runs); this module owns the command's refusals (a bad report, an
output that cannot be written or is not an earlier summary) and where the text goes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from conformance.commandline import fail
from conformance.outputs import OUTPUT_UNWRITABLE, OutputKind, unwritable
from conformance.summary_svg import HEAD as BADGE_HEAD


def cmd_summary(args: argparse.Namespace) -> int:
    """Several reports side by side per area (``conformance.summary``); a bad report is exit 2."""
    from conformance.outputs import write_owner_only
    from conformance.reports import ReportError
    from conformance.summary import summarize
    from conformance.summary_render import Format, render

    try:
        summary = summarize(args.reports, show_failures="failures" in args.show,
                            show_unsupported="unsupported" in args.show)
    except ReportError as error:
        return fail(error.code, error.message)
    text = render(summary, Format(args.format))
    if args.output is None:
        sys.stdout.write(text)
        return 0
    if (problem := unwritable(args.output, OutputKind("summary", _is_summary))) is not None:
        return fail(OUTPUT_UNWRITABLE, problem)
    try:
        write_owner_only(Path(args.output), text)
    except OSError as exc:
        return fail(OUTPUT_UNWRITABLE, f"cannot write the summary to {args.output}: {exc.strerror or exc}")
    return 0


#: How each ``--format`` of ``summary`` begins: an existing ``--output`` is replaced only if it is one.
_SUMMARY_HEADS: Final = (b"area ", b"| area |", b'{\n  "$schema": "https://recall-rebase.invalid/schemas/summary/',
                         b"<!DOCTYPE html>", BADGE_HEAD.encode())


def _is_summary(head: bytes) -> bool:
    return head.startswith(_SUMMARY_HEADS)
