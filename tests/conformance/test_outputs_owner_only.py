"""Every file a run or a summary writes is owner-only: a port's messages and stderr are in them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from testkit.conformance_runs import conformance

from conformance.outputs import write_owner_only


def owner_only(path: Path) -> bool:
    """No permission bit for the group or others (POSIX; Windows has no such bits to test)."""
    return os.name != "posix" or stat.S_IMODE(path.stat().st_mode) & 0o077 == 0


def test_report_junit_cucumber_and_summary_files_are_owner_only(tmp_path: Path) -> None:
    previous = os.umask(0o022)  # a permissive umask: the modes must not depend on it
    try:
        report, junit, cucumber, page = (tmp_path / name for name in ("r.ndjson", "j.xml", "c.json", "s.html"))
        run = conformance("run", "--area", "PRIM", "--report", report, "--junitxml", junit,
                          "--cucumber-json", cucumber, "--no-progress", report=report)
        assert run.code == 0, run.stdout + run.stderr
        summary = conformance("summary", report, "--format", "html", "--output", page)
        assert summary.code == 0, summary.stderr
    finally:
        os.umask(previous)
    for path in (report, junit, cucumber, page):
        assert path.stat().st_size > 0 and owner_only(path), (path, oct(path.stat().st_mode))


def test_an_existing_file_is_rewritten_from_scratch(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("a much longer text than the new one\n", encoding="utf-8")
    write_owner_only(path, "short\n")
    assert path.read_bytes() == b"short\n"
