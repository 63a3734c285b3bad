"""``recall-rebase conformance run``: one implementation per run, one report line per scenario."""

from __future__ import annotations

import json
import shlex
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.judging import verdict_line
from conformance.selection import RunTally, pytest_selection_args, selection_words
from conformance.suite import features_dir

EXIT_NOT_CONFORMANT = 1
EXIT_USAGE = 2


def _read_report(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    header = next(line for line in lines if line["type"] == "header")
    results = [line for line in lines if line["type"] == "result"]
    summary = next(line for line in lines if line["type"] == "summary")
    return header, results, summary


def _pytest_args(
    bound_module: str,
    scratch_path: Path,
    ini: Path,
    report_path: Path,
    *,
    stdio_command: Sequence[str] | None,
    junitxml: str | None,
    select: str | None,
    only: str | None,
    verbose: bool,
    expectations: str | None = None,
) -> list[str]:
    """The pytest command line of one run: the bound features, the plugin and the run's options."""
    args = [
        bound_module,
        "-p", "conformance.plugin",
        "-p", "no:cacheprovider",
        "-c", str(ini),
        "--rootdir", str(scratch_path),
        "--import-mode=importlib",
        "--basetemp", str(scratch_path / "tmp"),
        "--rr-report", str(report_path),
        "-q" if not verbose else "-v",
    ]
    if not verbose:
        args += ["--no-header", "--tb=short"]
    if stdio_command:
        args += ["--rr-stdio", shlex.join(stdio_command)]
    if junitxml:
        args += ["--junitxml", junitxml]
    if select:
        args += ["-k", select]
    if only:
        args += ["--rr-only", only]
    if expectations:
        args += ["--rr-expectations", expectations]
    return args


def run_conformance(
    *,
    stdio_command: Sequence[str] | None = None,
    report: str | None = None,
    junitxml: str | None = None,
    select: str | None = None,
    only: str | None = None,
    as_json: bool = False,
    verbose: bool = False,
    expectations: str | None = None,
    area: str | None = None,
    tag: str | None = None,
    max_fail: int | None = None,
) -> int:
    """Run the packaged features; exit 0 only when every scenario went as expected (and some ran)."""
    import importlib.util

    spec = importlib.util.find_spec("conformance.suite_tests.test_features")
    assert spec is not None and spec.origin is not None
    bound_module = spec.origin  # not imported here: pytest-bdd binds it at collection

    with tempfile.TemporaryDirectory(prefix="recall-rebase-run-") as scratch:
        scratch_path = Path(scratch)
        report_path = Path(report) if report else scratch_path / "report.ndjson"
        ini = scratch_path / "pytest.ini"
        ini.write_text("[pytest]\n", encoding="utf-8")
        args = _pytest_args(bound_module, scratch_path, ini, report_path, stdio_command=stdio_command,
                            junitxml=junitxml, select=select, only=only, verbose=verbose,
                            expectations=expectations)
        args += pytest_selection_args(areas=area, tags=tag, max_fail=max_fail)
        tally = RunTally()
        target = "--stdio " + shlex.join(stdio_command) if stdio_command else "the in-process reference"
        print(f"recall-rebase: running the conformance suite ({features_dir()}) against {target}",
              file=sys.stderr)
        if verbose:
            code = pytest.main(args, plugins=[tally])
        else:
            import contextlib
            import io

            captured = io.StringIO()
            with contextlib.redirect_stdout(captured):
                code = pytest.main(args, plugins=[tally])
        if not report_path.exists():
            if not verbose:
                sys.stderr.write(captured.getvalue()[-6000:])
            print(f"recall-rebase: the run produced no report (pytest exit {code})", file=sys.stderr)
            return EXIT_NOT_CONFORMANT
        header, results, summary = _read_report(report_path)
    if summary["total"] == 0 and (select or only or area or tag):  # -k: known only once collected
        print(f"recall-rebase: usage: {selection_words(select, only, area, tag)} selects no scenario",
              file=sys.stderr)
        return EXIT_USAGE
    if as_json:
        print(json.dumps({"implementation": header["implementation"], "summary": summary,
                          "results": [{"id": r["id"], "status": r["status"]} for r in results],
                          "not_run": max(tally.selected - len(results), 0)}))
    else:
        _print_summary(header, results, summary)
        if code not in (0, 5) and summary["conformant"]:
            print(f"recall-rebase: pytest exited {code}", file=sys.stderr)
        if stopped := tally.not_run_line(len(results)):
            print(stopped)
    if summary["total"] == 0:
        print("recall-rebase: no scenario ran (exit 5 is a failure here)", file=sys.stderr)
        return EXIT_NOT_CONFORMANT
    if not summary["conformant"] or code not in (0,):
        return EXIT_NOT_CONFORMANT
    return 0


def _print_summary(header: dict[str, Any], results: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    impl = header["implementation"]
    print(f"implementation: {impl['name']} {impl['version']} ({impl['language']})")
    by_area: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        by_area.setdefault(result["id"].split("-")[0], []).append(result)
    for area in sorted(by_area):
        items = by_area[area]
        passed = [r["id"] for r in items if r["status"] == "PASS"]
        print(f"  {area:<10} {len(passed)}/{len(items)} passed")
        for line in textwrap.wrap(" ".join(passed), width=96, break_on_hyphens=False, break_long_words=False):
            print(f"    PASS  {line}")
        for r in items:
            if r["status"] != "PASS":
                first = (r["message"] or "").strip().splitlines()
                print(f"    {r['status']:<5} {r['id']}  {r['title']}")
                for line in first[-6:]:
                    print(f"           {line}")
    print(verdict_line(summary["total"], summary["counts"], summary["conformant"]))
