"""The status of one scenario row in a conformance report, as WPT and Bowtie name them.

One typed value per outcome, so the plugin, the runner and the report schema
(``schemas/report/v1``, ``$defs/status``) agree on the same strings.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """What became of one scenario row (docs/INTERPRETING.md, "Statuses")."""

    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"
    SKIP = "SKIP"
    XFAIL = "XFAIL"
    XPASS = "XPASS"
    PRECONDITION_FAILED = "PRECONDITION_FAILED"
    TIMEOUT = "TIMEOUT"
    CRASH = "CRASH"
    NOTRUN = "NOTRUN"
