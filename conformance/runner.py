"""``recall-rebase conformance run``: one implementation per run, one report line per scenario."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
import tempfile
import textwrap
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

from conformance import (
    cucumber,
    interruption,
    junit,
    outputs,
    parallel,
    procgroup,
    reports,
    row_clauses,
    row_status,
)
from conformance.judging import verdict_line
from conformance.progress import watching
from conformance.protocol import JsonObject
from conformance.selection import pytest_selection_args, selection_words
from conformance.statuses import Status
from conformance.suite import features_dir
from conformance.untrusted_text import for_terminal

EXIT_NOT_CONFORMANT = 1
EXIT_USAGE = 2
EXIT_PORT_START = 3
PROGRESS_FILE = "progress.ndjson"
CUCUMBER_FILE = "cucumber.json"
#: The pytest plugins of a run, and the only ones: pytest-bdd and the suite's own.
SUITE_PLUGINS: Final = ("pytest_bdd.plugin", "conformance.plugin")
#: What pytest reads from the environment to change a session; a run is the suite's alone.
FOREIGN_PYTEST_SETTINGS: Final = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")


@dataclass(frozen=True)
class RunOptions:
    """What ``conformance run`` was asked: the port, the rows, the outputs and how to run them.

    ``stdio_command`` None: the in-process reference; ``timeout``/``start_timeout`` None: the
    defaults, 0: none. ``select`` is ``-k``, ``only`` the ``--id`` patterns; ``shard`` ``K/N``
    (:class:`conformance.shards.MachineShard`): only that shard of the selected rows."""

    stdio_command: Sequence[str] | None = None
    timeout: float | None = None
    start_timeout: float | None = None
    select: str | None = None
    only: str | None = None
    area: str | None = None
    tag: str | None = None
    expectations: str | None = None
    report: str | None = None
    junitxml: str | None = None
    cucumber_json: str | None = None
    as_json: bool = False
    verbose: bool = False
    progress: bool = True
    max_fail: int | None = None
    validate_messages: bool = False
    jobs: int = 1
    audit: bool = False
    shard: str | None = None

    @property
    def selects(self) -> bool:
        """Whether any selection option was given (then an empty run is the selection's doing)."""
        return bool(self.select or self.only or self.area or self.tag)


def _pytest_args(bound_module: str, scratch_path: Path, ini: Path, report_path: Path, options: RunOptions) -> list[str]:
    """The pytest command line of one run: the bound features, the plugin and the run's options.

    Only the suite's plugins load (:data:`SUITE_PLUGINS`): a pytest plugin installed beside the
    toolkit (a port author's pytest-randomly, say) would otherwise change every run, and loading
    and assertion-rewriting every installed plugin cost each run about a second."""
    args = [
        bound_module,
        "--disable-plugin-autoload",
        *[word for plugin in SUITE_PLUGINS for word in ("-p", plugin)],
        "-p", "no:cacheprovider",
        "-c", str(ini),
        "--rootdir", str(scratch_path),
        "--import-mode=importlib",
        "--basetemp", str(scratch_path / "tmp"),
        "--rr-report", str(report_path),
        "-q" if not options.verbose else "-v",
    ]
    if not options.verbose:
        args += ["--no-header", "--tb=short"]
    if options.stdio_command:
        args += ["--rr-stdio", shlex.join(options.stdio_command)]
    if options.select:
        args += ["-k", options.select]
    if options.only:
        args += ["--rr-only", options.only]
    if options.expectations:
        args += ["--rr-expectations", options.expectations]
    if options.shard:
        args += ["--rr-machine-shard", options.shard]
    timeouts = (options.timeout, options.start_timeout)
    for option, seconds in zip(("--rr-timeout", "--rr-start-timeout"), timeouts, strict=True):
        if seconds is not None:
            args += [option, repr(seconds)]
    return args


def run_conformance(options: RunOptions) -> int:
    """Run the packaged features; exit 0 only when every scenario went as expected (and some ran)."""
    problem = outputs.first_unwritable({outputs.REPORT: options.report, outputs.JUNIT_XML: options.junitxml,
                                        outputs.CUCUMBER_JSON: options.cucumber_json})
    if problem is not None:
        print(f"recall-rebase: {outputs.OUTPUT_UNWRITABLE}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    audit_note = ""
    if options.audit:  # the hello's mapping, before any scenario: an unusable one is bad input
        from conformance.audit.mapping import MappingError
        from conformance.scenario_audit import mapping_headline

        try:
            audit_note = f"; {mapping_headline(options.stdio_command, options.start_timeout)}"
        except MappingError as error:
            print(f"recall-rebase: {error.code}: {error.message}", file=sys.stderr)
            return EXIT_USAGE
    import importlib.util

    spec = importlib.util.find_spec("conformance.suite_tests.test_features")
    assert spec is not None and spec.origin is not None
    bound_module = spec.origin  # not imported here: pytest-bdd binds it at collection

    # ignore_cleanup_errors: a port a killed worker left behind may still write here; the run stands
    with tempfile.TemporaryDirectory(prefix="recall-rebase-run-", ignore_cleanup_errors=True) as scratch:
        scratch_path = Path(scratch)
        report_path = Path(options.report) if options.report else scratch_path / "report.ndjson"
        ini = scratch_path / "pytest.ini"
        ini.write_text("[pytest]\n", encoding="utf-8")
        args = _pytest_args(bound_module, scratch_path, ini, report_path, options)
        args += pytest_selection_args(areas=options.area, tags=options.tag, max_fail=options.max_fail)
        args += ["--rr-validate-messages"] if options.validate_messages else []
        args += ["--rr-audit"] if options.audit else []
        args += ["-p", "conformance.progress_events", "--rr-progress", str(scratch_path / PROGRESS_FILE)]
        if options.cucumber_json and options.jobs == 1:  # into the scratch folder: the runner writes it owner-only
            args += ["--cucumberjson", str(scratch_path / CUCUMBER_FILE)]
        target = "--stdio " + shlex.join(options.stdio_command) if options.stdio_command else "the in-process reference"
        which = f"shard {options.shard} of " if options.shard else ""
        print(f"recall-rebase: running {which}the conformance suite ({features_dir()}) against {target}{audit_note}",
              file=sys.stderr)
        code, captured = _execute(args, scratch_path, report_path, options)
        if not report_path.exists():
            if (signal_name := interruption.received()) is not None:
                print(f"recall-rebase: the run was interrupted by {signal_name} before it wrote a report",
                      file=sys.stderr)
                return interruption.EXIT_CODES[signal_name]
            sys.stderr.write(captured[-6000:])
            print(f"recall-rebase: the run produced no report (pytest exit {code})", file=sys.stderr)
            return EXIT_NOT_CONFORMANT
        try:
            read = reports.read_report(report_path)
            if options.junitxml:
                junit.write_junit(read, Path(options.junitxml))
        except (reports.ReportError, junit.JunitError) as error:
            print(f"recall-rebase: {error.code}: {error.message}", file=sys.stderr)
            return EXIT_NOT_CONFORMANT
        header, results, summary = read.header, read.results, read.summary
    stopped = summary.get("interrupted")
    if stopped is not None:
        return _report_interrupted(header, results, summary, as_json=options.as_json, verbose=options.verbose)
    if summary["total"] == 0 and options.shard:  # a hash split may leave a shard of a small selection empty
        print(f"recall-rebase: shard {options.shard} holds none of the selected rows; its report has none",
              file=sys.stderr)
        return 0
    if summary["total"] == 0 and options.selects:  # -k: known only once collected
        words = selection_words(options.select, options.only, options.area, options.tag)
        print(f"recall-rebase: usage: {words} selects no scenario",
              file=sys.stderr)
        return EXIT_USAGE
    not_run = sum(1 for r in results if r["status"] == "NOTRUN")
    if options.as_json:
        shard = {"shard": header["shard"]} if "shard" in header else {}
        print(json.dumps({"implementation": header["implementation"], **shard, "summary": summary,
                          "results": [{"id": r["id"], "status": r["status"]} for r in results],
                          "not_run": not_run}))
    else:
        _print_summary(header, results, summary, verbose=options.verbose)
        if code not in (0, 5) and summary["conformant"]:
            print(f"recall-rebase: pytest exited {code}", file=sys.stderr)
        if not_run and options.max_fail is not None:
            print(f"stopped early: {not_run} of {len(results)} selected scenarios not run (NOTRUN)")
    if summary["total"] == 0:
        print("recall-rebase: no scenario ran (exit 5 is a failure here)", file=sys.stderr)
        return EXIT_NOT_CONFORMANT
    if not summary["conformant"] or code not in (0,):
        return EXIT_NOT_CONFORMANT
    return 0


def _execute(args: list[str], scratch: Path, report_path: Path, options: RunOptions) -> tuple[int, str]:
    """``-j 1``: pytest in this process, as ever; ``-j N``: N workers, their reports merged into one."""
    show_progress = options.progress and not (options.verbose and options.jobs == 1)
    if options.jobs == 1:
        with watching([scratch / PROGRESS_FILE], show=show_progress):
            done = _pytest_main(args, verbose=options.verbose)
        if options.cucumber_json:
            cucumber.write_merged([scratch / CUCUMBER_FILE], Path(options.cucumber_json))
        return done
    workers, stop_file = parallel.plan(options.jobs, scratch, cucumber_json=bool(options.cucumber_json)), scratch / "stop"
    with watching([w.progress for w in workers], show=show_progress, stop_after=options.max_fail, stop_file=stop_file):
        code, captured = parallel.run_workers(workers, args, stop_file)
    parallel.merge(workers, report_path, options.cucumber_json)
    return code, captured


def _pytest_main(args: list[str], *, verbose: bool, ready: Path | None = None) -> tuple[int, str]:
    """pytest's exit code and its captured output; SIGINT and SIGTERM interrupt it, and no port outlives it."""
    import io

    captured = io.StringIO()
    code = int(pytest.ExitCode.INTERRUPTED)
    output = contextlib.nullcontext() if verbose else contextlib.redirect_stdout(captured)
    with interruption.signals_interrupt_the_run(deferred=ready is not None):
        if ready is not None:  # a worker: signals are now safe to send, deferred until its rows exist
            ready.touch()
        try:
            with contextlib.suppress(KeyboardInterrupt), output, _without_foreign_settings():
                code = int(pytest.main(args))  # KeyboardInterrupt: one that came before or after the session
        finally:
            try:
                procgroup.kill_all_live()
            except KeyboardInterrupt:  # the one signal came just now: finish the job
                procgroup.kill_all_live()
    return code, captured.getvalue()


@contextlib.contextmanager
def _without_foreign_settings() -> Iterator[None]:
    """:data:`FOREIGN_PYTEST_SETTINGS` out of the environment while the run's pytest runs, then back."""
    saved = {name: os.environ.pop(name) for name in FOREIGN_PYTEST_SETTINGS if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def _report_interrupted(header: dict[str, Any], results: list[dict[str, Any]], summary: dict[str, Any], *,
                        as_json: bool, verbose: bool = False) -> int:
    """A run a signal or a dead port ended early: what ran, then one line; the exit code says which."""
    stopped = summary["interrupted"]
    ran = any(r["status"] != "NOTRUN" for r in results)
    if as_json:
        print(json.dumps({"implementation": header["implementation"], "summary": summary,
                          "results": [{"id": r["id"], "status": r["status"]} for r in results]}))
    elif ran or stopped["reason"] != "port-start-failed":
        _print_summary(header, results, summary, verbose=verbose)
    if stopped["reason"] == "port-start-failed":
        print(f"recall-rebase: {stopped['message']}", file=sys.stderr)
        return EXIT_PORT_START
    return interruption.EXIT_CODES.get(stopped["reason"], EXIT_NOT_CONFORMANT)


def _details(row: dict[str, Any]) -> list[str]:
    """What a person needs of a row that went wrong: where, which step, the values, the message's end."""
    lines = []
    if "step" in row:
        step = row["step"]
        lines.append(f"{row['feature']}:{step['line']}: {step['keyword']} {step['text']}")
    elif "line" in row:
        lines.append(f"{row['feature']}:{row['line']}")
    if "expected" in row:
        lines += [f"expected: {json.dumps(row['expected'], ensure_ascii=False)[:300]}",
                  f"actual:   {json.dumps(row['actual'], ensure_ascii=False)[:300]}"]
    lines += (row["message"] or "").strip().splitlines()[-6:]
    for clause in row_clauses.cited(row):  # the rule the row checks, whole, under its failure
        lines += textwrap.wrap(f"checks {clause.id} ({clause.link}): {clause.text or row_clauses.NOT_IN_SPEC}",
                               width=100, subsequent_indent="  ", break_on_hyphens=False)
    return lines


#: Statuses a run counts per area, with what is missing, and lists one by one only with ``-v``.
COUNTED_NOT_LISTED: Final = (Status.UNSUPPORTED, Status.SKIP)


def _missing(row: JsonObject) -> tuple[str, str]:
    """What a counted row lacks, as ``(kind, item)``: ``("needs operation", "text.slice")``,
    ``("needs", "symlink on windows")``, or the message's headline for a skip (or an older report)."""
    missing = row.get("unsupported")
    if isinstance(missing, dict) and "operation" in missing:
        return "needs operation", str(missing["operation"])
    if isinstance(missing, dict) and "primitives" in missing:
        return "needs", f"{', '.join(missing['primitives'])} on {missing['platform']}"
    return "", reports.headline(row["message"] or "") or str(row["status"]).lower()


def _counted(status: Status, rows: list[JsonObject]) -> list[str]:
    """``UNSUPPORTED 37: needs operation text.slice (30), session.node (7)``, wrapped."""
    kinds: dict[str, Counter[str]] = {}
    for row in rows:
        kind, item = _missing(row)
        kinds.setdefault(kind, Counter())[item] += 1
    said = "; ".join(" ".join(filter(None, [kind, ", ".join(f"{item} ({n})" for item, n in sorted(items.items()))]))
                     for kind, items in sorted(kinds.items()))
    return textwrap.wrap(f"{status} {len(rows)}: {said}", width=100, initial_indent="    ",
                         subsequent_indent="      ", break_on_hyphens=False, break_long_words=False)


def _print_summary(header: dict[str, Any], results: list[dict[str, Any]], summary: dict[str, Any], *,
                   verbose: bool = False) -> None:
    """Per area: how many passed; UNSUPPORTED and SKIP rows counted with what they lack; every other
    row that is not PASS with its details. ``verbose``: the PASS ids and every counted row too."""
    impl = header["implementation"]
    shard = f", shard {header['shard']['index']}/{header['shard']['count']}" if "shard" in header else ""
    print(f"implementation: {impl['name']} {impl['version']} ({impl['language']}){shard}")
    by_area: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        by_area.setdefault(result["id"].split("-")[0], []).append(result)
    for area in sorted(by_area):
        items = by_area[area]
        passed = [r["id"] for r in items if r["status"] == "PASS"]
        never_ran = [r["id"] for r in items if r["status"] == "NOTRUN" and r["message"] == row_status.NOT_RUN]
        print(f"  {area:<10} {len(passed)}/{len(items)} passed")
        for label, ids in (("PASS", passed if verbose else []), ("NOTRUN", never_ran)):
            for line in textwrap.wrap(" ".join(ids), width=96, break_on_hyphens=False, break_long_words=False):
                print(f"    {label:<5} {line}")
        for status in COUNTED_NOT_LISTED if not verbose else ():
            if counted := [r for r in items if r["status"] == status]:
                print("\n".join(for_terminal(line) for line in _counted(status, counted)))
        for r in items:
            if r["status"] == "PASS" or r["id"] in never_ran or (r["status"] in COUNTED_NOT_LISTED and not verbose):
                continue
            print(f"    {r['status']:<5} {r['id']}  {r['title']}")
            for line in _details(r):  # the port's words among them: no terminal control reaches the screen
                print(f"           {for_terminal(line)}")
    interrupted = summary["interrupted"]["reason"] if "interrupted" in summary else None
    print(verdict_line(summary["total"], summary["counts"], summary["conformant"], interrupted))
