"""Judge one mutant: copy the checkout's ``reference/``, apply the entry, run the suite against the copy.

The suite process gets ``PYTHONPATH=<copy>:<checkout>`` and ``RECALL_REBASE_SUITE=<checkout>``: the
mutated reference comes first, and the toolkit and its features are the checkout's, whatever is
installed (a wheel in tox, an editable install elsewhere); :func:`provenance` proves it once per run.
The scenarios the entry names run first (all of them); when none fails, the whole suite with ``-x``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Final

from conformance.mutant_catalogue import Mutant
from mutation import processes
from mutation.catalogue import apply

NOT_FAILED: Final = frozenset({"PASS", "XFAIL", "SKIP", "NOTRUN"})
EXIT_USAGE: Final = 2


class Verdict(Enum):
    """What the suite made of one mutant."""

    KILLED = "killed"  # a scenario it names failed
    KILLED_ELSEWHERE = "killed-elsewhere"  # its named scenarios passed, another one failed
    TIMEOUT = "timeout"  # the suite outlived the per-mutant timeout: killed, as a port that hangs fails
    SURVIVED = "survived"  # the whole suite passed
    STALE = "stale"  # its text is not found exactly once (or it names no scenario): update the entry
    ERROR = "error"  # the suite could not judge it (a usage error): not killed

    @property
    def killed(self) -> bool:
        return self in (Verdict.KILLED, Verdict.KILLED_ELSEWHERE, Verdict.TIMEOUT)


@dataclass(frozen=True)
class Setup:
    """How every mutant of a run is judged."""

    root: Path  # the checkout: its reference/ is copied, its conformance/ and features/ run
    timeout: float  # seconds one suite process may take before its tree is killed
    stdio: bool = False  # run the copy as a --stdio port instead of in-process
    request_timeout: float | None = None  # the suite's --timeout per --stdio request
    suite_ids: str = ""  # the second pass's --id; empty: the whole suite
    python: str = sys.executable


@dataclass(frozen=True)
class Judgement:
    mutant: Mutant
    verdict: Verdict
    seconds: float
    failed: tuple[str, ...] = ()  # the scenario rows that failed, when the report says
    detail: str = ""  # why it is stale, timed out or an error


@dataclass
class SuiteRun:
    """One suite process: its exit code (None: timed out) and the rows its report marks failed."""

    code: int | None
    failed: list[str] = field(default_factory=list)
    log: str = ""


def copy_reference(setup: Setup, scratch: Path) -> Path:
    tree = scratch / "tree"
    shutil.copytree(setup.root / "reference", tree / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def environment(setup: Setup, tree: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PYTHONPATH=os.pathsep.join([str(tree), str(setup.root)]), RECALL_REBASE_SUITE=str(setup.root))
    return env


def run_suite(setup: Setup, tree: Path, selection: Sequence[str], name: str) -> SuiteRun:
    """The suite over ``selection`` against the reference in ``tree``."""
    report, log = tree.parent / f"{name}.ndjson", tree.parent / f"{name}.log"
    command = [setup.python, "-m", "conformance", "run", "--no-progress", "--report", str(report), *selection]
    if setup.stdio:
        if setup.request_timeout is not None:
            command += ["--timeout", str(setup.request_timeout)]
        command += ["--stdio", "--", setup.python, "-m", "reference.cli", "host", "--stdio"]
    code = processes.run(command, cwd=tree, env=environment(setup, tree), log=log, timeout=setup.timeout)
    return SuiteRun(code=code, failed=failed_rows(report),
                    log=log.read_text(encoding="utf-8", errors="replace") if log.exists() else "")


def failed_rows(report: Path) -> list[str]:
    """The rows of an NDJSON report whose status is a failure (FAIL, ERROR, TIMEOUT, CRASH, ...)."""
    if not report.exists():
        return []
    rows: list[str] = []
    for line in report.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(item, dict) and item.get("type") == "result" and item.get("status") not in NOT_FAILED:
            rows.append(str(item.get("id")))
    return rows


def judge(mutant: Mutant, setup: Setup) -> Judgement:
    """Apply the mutant to a fresh copy of ``reference/`` and let the suite decide."""
    started = time.monotonic()

    def verdict(kind: Verdict, failed: Sequence[str] = (), detail: str = "") -> Judgement:
        return Judgement(mutant, kind, round(time.monotonic() - started, 1), tuple(failed), detail)

    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.id}-") as scratch:
        tree = copy_reference(setup, Path(scratch))
        reason = apply(mutant, tree)
        if reason is not None:
            return verdict(Verdict.STALE, detail=reason)
        for name, selection, kind in (("named", ["--id", ",".join(mutant.kills)], Verdict.KILLED),
                                      ("suite", suite_selection(setup), Verdict.KILLED_ELSEWHERE)):
            done = run_suite(setup, tree, selection, name)
            if done.code is None:
                return verdict(Verdict.TIMEOUT, done.failed,
                               f"the {name} run outlived {setup.timeout:g} s; its process tree was killed")
            if done.code == EXIT_USAGE:
                return verdict(Verdict.ERROR, detail=f"the {name} run refused its input: {last_lines(done.log)}")
            if done.code != 0:
                detail = "" if done.failed else f"exit {done.code} with no failed row: {last_lines(done.log)}"
                return verdict(kind, done.failed, detail)
        return verdict(Verdict.SURVIVED)


def suite_selection(setup: Setup) -> list[str]:
    """The second pass: the whole suite (or ``--suite-ids``), stopping at the first failure."""
    return ["-x", *(["--id", setup.suite_ids] if setup.suite_ids else [])]


def last_lines(text: str, count: int = 3) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-count:])


def provenance(setup: Setup, scratch: Path) -> list[str]:
    """Problems with where the suite's code comes from: the copy's reference, the checkout's toolkit."""
    tree = copy_reference(setup, scratch)
    probe = ("import json, importlib.metadata as m, conformance, conformance.suite as s, reference\n"
             "points = m.entry_points(group='recall_rebase.adapters', name='reference')\n"
             "adapter = [p.load() for p in points]\n"
             "try:\n  suite = str(s.suite_root())\n"
             "except s.SuiteNotFound as missing:  # said below as the features not being the checkout's\n"
             "  suite = missing.message\n"
             "print(json.dumps({'reference': reference.__file__, 'conformance': conformance.__file__,\n"
             "  'suite': suite, 'adapter': [a.__module__ for a in adapter]}))\n"
             "import sys; print(json.dumps([sys.modules[a.__module__].__file__ for a in adapter]))\n")
    done = subprocess.run([setup.python, "-c", probe], cwd=tree, env=environment(setup, tree),
                          capture_output=True, text=True, check=False, timeout=setup.timeout)
    if done.returncode != 0:
        return [f"the suite's environment does not import: {last_lines(done.stderr)}"]
    lines = done.stdout.splitlines()
    found, adapter_files = json.loads(lines[-2]), json.loads(lines[-1])
    problems = []
    if not _under(found["reference"], tree):
        problems.append(f"reference is imported from {found['reference']}, not from the copy {tree}")
    if not _under(found["conformance"], setup.root):
        problems.append(f"conformance is imported from {found['conformance']}, not from the checkout")
    if Path(found["suite"]).resolve() != setup.root.resolve():
        problems.append(f"the features are {found['suite']}, not the checkout's")
    if not adapter_files or not all(_under(path, tree) for path in adapter_files):
        problems.append(f"the 'reference' adapter entry point loads {adapter_files}, not the copy")
    shutil.rmtree(tree)
    return problems


def _under(path: str, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder.resolve())
