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
    XFAIL = "XFAIL"  # failed, as an ``xfail`` entry (or a ``flaky`` one allowing it) expects
    XPASS = "XPASS"  # passed although an ``xfail`` entry expects it to fail: a failure
    SKIP = "SKIP"  # not run: a ``skip`` entry
    UNSUPPORTED = "UNSUPPORTED"  # needs an operation the port did not declare (WPT PRECONDITION_FAILED)
    TIMEOUT = "TIMEOUT"  # the port gave no answer in time
    CRASH = "CRASH"  # the port died, broke its pipe, desynchronised or answered errored
    NOTRUN = "NOTRUN"  # the run ended before the row ran to its end
