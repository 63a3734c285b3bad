"""The mutation tool's second opinion (issue 14): cosmic-ray over a seeded sample of core modules.

    python tools/mutation/cosmic.py run [-j N] [--per-module N] [--group NAME] [--workdir DIR]

``tools/mutation/cosmic.toml`` names the modules, grouped by the conformance areas they serve.
For each group the reference is copied to ``DIR/<group>/tree`` (the checkout is never mutated),
cosmic-ray generates every mutant of the group's modules, a seeded sample is kept (the others are
marked skipped in cosmic-ray's session), and ``cosmic-ray exec`` runs the group's test command,
``python -m conformance run --no-progress -x <selection>``, against each mutant in the copy
(``PYTHONPATH`` puts the copy's ``reference`` before this checkout's toolkit and features).
A failing or hanging run (past the timeout) kills the mutant.  Survivors that
``tools/mutation/equivalent.toml`` lists as equivalent (with the reason) leave the denominator:
the score printed last is ``killed K/N non-equivalent``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import random
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
import tomllib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[2]
HERE: Final = Path(__file__).resolve().parent
SAMPLE: Final = HERE / "cosmic.toml"
EQUIVALENT: Final = HERE / "equivalent.toml"
COSMIC_RAY: Final = Path(sys.executable).parent / "cosmic-ray"
ANNOTATION: Final = "an annotation in a function, never evaluated (from __future__ import annotations)"


class Outcome(Enum):
    """What the suite made of one sampled mutant."""

    KILLED = "killed"  # the test command failed
    TIMEOUT = "timeout"  # the test command hung past the timeout: killed
    SURVIVED = "survived"  # the test command passed
    EQUIVALENT = "equivalent"  # survived, and equivalent.toml says why no behaviour changed
    ERROR = "error"  # cosmic-ray could not apply or run it (counted apart, never as killed)


@dataclass(frozen=True)
class Group:
    """Modules that share one test command (the conformance areas they serve)."""

    name: str
    selection: tuple[str, ...]
    modules: tuple[str, ...]

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


@dataclass(frozen=True)
class Settings:
    seed: int
    per_module: int
    timeout: float
    exclude_operators: tuple[str, ...]
    groups: tuple[Group, ...]


@dataclass(frozen=True)
class Mutant:
    """One sampled mutant and its outcome; ``original``/``mutated``: the changed line, stripped."""

    job_id: str
    group: str
    module: str
    line: int
    operator: str
    occurrence: int
    original: str
    mutated: str
    outcome: Outcome
    reason: str  # why it is equivalent, or what went wrong
    diff: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.module, self.operator, self.original, self.mutated)


def load_settings(path: Path = SAMPLE) -> Settings:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    sample = data["sample"]
    groups = tuple(Group(name=g["name"], selection=tuple(g["selection"]), modules=tuple(g["modules"]))
                   for g in data["group"])
    return Settings(seed=int(sample["seed"]), per_module=int(sample["per-module"]),
                    timeout=float(sample["timeout"]),
                    exclude_operators=tuple(sample.get("exclude-operators", ())), groups=groups)


def load_equivalents(path: Path = EQUIVALENT) -> dict[tuple[str, str, str, str], str]:
    """The triaged equivalent mutants: (module, operator, original line, mutated line) -> why."""
    if not path.exists():
        return {}
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("equivalent", [])
    return {(e["module"], e["operator"], e["original"].strip(), e["mutated"].strip()): e["reason"]
            for e in entries}


def test_command(selection: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", "conformance", "run", "--no-progress", "-x", *selection]


def _environment(tree: Path) -> dict[str, str]:
    """The copy's ``reference`` first, then this checkout's toolkit, features and schemas."""
    return {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{ROOT}", "PYTHONDONTWRITEBYTECODE": "1"}


def _write_config(group: Group, settings: Settings, folder: Path) -> Path:
    modules = ", ".join(json.dumps(module) for module in group.modules)
    config = folder / "cosmic-ray.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = [{modules}]\n"
        f"timeout = {settings.timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(shlex.join(test_command(group.selection)))}\n\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n',
        encoding="utf-8")
    return config


def _cosmic_ray(module: str, *names: str) -> list[Any]:
    """Names from cosmic-ray's session API (untyped; installed by the dev extra and tox -e mutation)."""
    loaded = importlib.import_module(f"cosmic_ray.{module}")
    return [getattr(loaded, name) for name in names]


def _sample(session: Path, group: Group, settings: Settings) -> tuple[int, int]:
    """Mark every mutant outside the seeded sample skipped; (generated, sampled) counts."""
    WorkDB, use_db = _cosmic_ray("work_db", "WorkDB", "use_db")
    WorkerOutcome, WorkResult = _cosmic_ray("work_item", "WorkerOutcome", "WorkResult")
    excluded = re.compile("|".join(f"(?:{pattern})" for pattern in settings.exclude_operators) or "(?!)")
    skipped = WorkResult(output="outside the sample", worker_outcome=WorkerOutcome.SKIPPED)
    generated = sampled = 0
    with use_db(str(session), WorkDB.Mode.open) as db:
        items: list[Any] = list(db.work_items)
        generated = len(items)
        by_module: dict[str, list[Any]] = {module: [] for module in group.modules}
        for item in items:
            mutation = item.mutations[0]
            if not excluded.match(mutation.operator_name):
                by_module[str(mutation.module_path)].append(item)
        keep: set[str] = set()
        for module, candidates in by_module.items():
            candidates.sort(key=lambda item: (item.mutations[0].operator_name, item.mutations[0].occurrence))
            chosen = random.Random(f"{settings.seed}:{module}").sample(
                candidates, min(settings.per_module, len(candidates)))
            keep.update(item.job_id for item in chosen)
        sampled = len(keep)
        db.set_multiple_results([item.job_id for item in items if item.job_id not in keep], skipped)
    return generated, sampled


def _in_signature_annotation(tree: Path, module: str, line: int, column: int) -> bool:
    """Whether a position lies in a parameter's, a return or a local variable's annotation of a
    module that postpones annotations (PEP 563): such an annotation is never evaluated, so its
    mutants are equivalent."""
    source = (tree / module).read_text(encoding="utf-8")
    parsed = ast.parse(source)
    postponed = any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
                    and any(alias.name == "annotations" for alias in node.names) for node in parsed.body)
    if not postponed:
        return False
    for node in ast.walk(parsed):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = node.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                 *(extra for extra in (arguments.vararg, arguments.kwarg) if extra is not None)]
        annotations = [a.annotation for a in every if a.annotation is not None]
        annotations += [node.returns] if node.returns is not None else []
        # A local variable's annotation is never evaluated either (PEP 526).
        annotations += [inner.annotation for statement in node.body for inner in ast.walk(statement)
                        if isinstance(inner, ast.AnnAssign)]
        for annotation in annotations:
            end_line = annotation.end_lineno or annotation.lineno
            end_column = annotation.end_col_offset or 0
            if (annotation.lineno, annotation.col_offset) <= (line, column) < (end_line, end_column):
                return True
    return False


def _changed_lines(diff: str) -> tuple[str, str]:
    removed = [line[1:].strip() for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    return " / ".join(line for line in removed if line), " / ".join(line for line in added if line)


def _results(session: Path, tree: Path, group: Group,
             equivalents: dict[tuple[str, str, str, str], str]) -> list[Mutant]:
    WorkDB, use_db = _cosmic_ray("work_db", "WorkDB", "use_db")
    TestOutcome, WorkerOutcome = _cosmic_ray("work_item", "TestOutcome", "WorkerOutcome")

    mutants: list[Mutant] = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = {item.job_id: item for item in db.work_items}
        for job_id, result in db.results:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            mutation = items[job_id].mutations[0]
            diff = str(result.diff or "")
            original, mutated = _changed_lines(diff)
            module = str(mutation.module_path)
            operator = str(mutation.operator_name)
            reason = ""
            if result.worker_outcome != WorkerOutcome.NORMAL:
                outcome, reason = Outcome.ERROR, str(result.output or "")[-400:]
            elif result.test_outcome == TestOutcome.SURVIVED:
                reason = equivalents.get((module, operator, original, mutated), "")
                if not reason and _in_signature_annotation(tree, module, *mutation.start_pos):
                    reason = ANNOTATION
                outcome = Outcome.EQUIVALENT if reason else Outcome.SURVIVED
            elif result.test_outcome == TestOutcome.KILLED:
                outcome = Outcome.TIMEOUT if result.output == "timeout" else Outcome.KILLED
            else:
                outcome, reason = Outcome.ERROR, str(result.output or "")[-400:]
            mutants.append(Mutant(job_id=str(job_id), group=group.name, module=module, line=int(mutation.start_pos[0]),
                                  operator=operator, occurrence=int(mutation.occurrence), original=original,
                                  mutated=mutated, outcome=outcome, reason=reason, diff=diff))
    return sorted(mutants, key=lambda m: (m.module, m.line, m.operator, m.occurrence))


def run_group(group: Group, settings: Settings, workdir: Path, equivalents: dict[tuple[str, str, str, str], str],
              *, again: bool) -> tuple[list[Mutant], str]:
    """Copy, generate, sample, check the unmutated copy passes, execute; the mutants and a log line.

    ``again``: keep the group's copy and session and run only the mutants that survived there
    (after scenarios were added; the reference must be unchanged, or the sample is stale).
    """
    folder = workdir / group.slug
    tree = folder / "tree"
    session = folder / "session.sqlite"
    config = folder / "cosmic-ray.toml"
    env = _environment(tree)
    with (folder / "cosmic-ray.log").open("a" if again else "w", encoding="utf-8") as log:
        if again:
            _check_unchanged(tree, group)
            _write_config(group, settings, folder)  # the selection may have grown
            survivors = [(m.job_id,) for m in _results(session, tree, group, equivalents)
                         if m.outcome is Outcome.SURVIVED]  # equivalent ones stay judged
            with sqlite3.connect(session) as db:
                db.executemany("DELETE FROM work_results WHERE job_id = ?", survivors)
        else:
            shutil.rmtree(tree, ignore_errors=True)
            shutil.copytree(ROOT / "reference", tree / "reference", ignore=shutil.ignore_patterns("__pycache__"))
            _write_config(group, settings, folder)
            session.unlink(missing_ok=True)
            subprocess.run([str(COSMIC_RAY), "init", str(config), str(session)], cwd=tree, env=env,
                           stdout=log, stderr=log, check=True)
            _sample(session, group, settings)
        where = subprocess.run([sys.executable, "-c", "import reference; print(reference.__file__)"],
                               cwd=tree, env=env, capture_output=True, text=True, check=True).stdout.strip()
        if not Path(where).is_relative_to(tree):
            raise RuntimeError(f"{group.name}: the test command imports {where}, not the mutated copy")
        clean = subprocess.run(test_command(group.selection), cwd=tree, env=env, stdout=log, stderr=log,
                               check=False, timeout=settings.timeout * 3)
        if clean.returncode != 0:
            raise RuntimeError(f"{group.name}: the suite fails on the unmutated reference; see {log.name}")
        subprocess.run([str(COSMIC_RAY), "exec", str(config), str(session)], cwd=tree, env=env,
                       stdout=log, stderr=log, check=True)
    return report_group(group, workdir, equivalents)


def _check_unchanged(tree: Path, group: Group) -> None:
    for module in group.modules:
        if (tree / module).read_bytes() != (ROOT / module).read_bytes():
            raise RuntimeError(f"{module} changed since the sample was drawn: run the whole sample again")


def report_group(group: Group, workdir: Path,
                 equivalents: dict[tuple[str, str, str, str], str]) -> tuple[list[Mutant], str]:
    """The judged mutants of a group's session and its counts line."""
    folder = workdir / group.slug
    session = folder / "session.sqlite"
    with sqlite3.connect(session) as db:
        generated = db.execute("SELECT count(*) FROM work_items").fetchone()[0]
    mutants = _results(session, folder / "tree", group, equivalents)
    return mutants, f"{group.name}: {len(mutants)} sampled of {generated} generated"


def _describe(mutant: Mutant) -> str:
    return (f"{mutant.module}:{mutant.line} {mutant.operator}#{mutant.occurrence}: "
            f"{mutant.original!r} -> {mutant.mutated!r}")


def _print(settings: Settings, done: list[tuple[list[Mutant], str]], wall: float, workdir: Path) -> int:
    """Every survivor, equivalent and error, then the score (last); results.json in ``workdir``."""
    mutants = [mutant for group_mutants, _ in done for mutant in group_mutants]
    (workdir / "results.json").write_text(
        json.dumps([{**asdict(m), "outcome": m.outcome.value} for m in mutants], indent=1), encoding="utf-8")
    for _, line in done:
        print(line)
    for mutant in mutants:
        if mutant.outcome in (Outcome.SURVIVED, Outcome.ERROR, Outcome.EQUIVALENT):
            print(f"{mutant.outcome.value.upper():10} {_describe(mutant)}"
                  + (f"  [{mutant.reason.splitlines()[0]}]" if mutant.reason else ""))
    count = {outcome: sum(m.outcome is outcome for m in mutants) for outcome in Outcome}
    killed = count[Outcome.KILLED] + count[Outcome.TIMEOUT]
    judged = killed + count[Outcome.SURVIVED]
    share = 100.0 * killed / judged if judged else 100.0
    print(f"cosmic-ray sample: seed {settings.seed}, {settings.per_module} per module, {len(mutants)} mutants, "
          f"{count[Outcome.TIMEOUT]} of the killed by timeout, {count[Outcome.EQUIVALENT]} equivalent, "
          f"{count[Outcome.ERROR]} errors, wall {wall:.0f} s")
    print(f"killed {killed}/{judged} non-equivalent ({share:.1f}%)")
    return 0 if count[Outcome.SURVIVED] == 0 and count[Outcome.ERROR] == 0 else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/mutation/cosmic.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the sample; the score is printed last")
    run.add_argument("-j", "--jobs", type=int, default=1, help="groups run at once (default 1)")
    run.add_argument("--per-module", type=int, default=0, help="mutants per module (default: cosmic.toml)")
    run.add_argument("--again", action="store_true",
                     help="run again only the mutants that survived the last run in --workdir")
    report = commands.add_parser("report", help="print the score of the last run in --workdir")
    for command in (run, report):
        command.add_argument("--group", action="append", default=[], help="only the groups with these names")
        command.add_argument("--workdir", type=Path, default=ROOT / "build" / "mutation",
                             help="scratch copies, cosmic-ray sessions and results.json (default build/mutation)")
    args = parser.parse_args(argv)
    settings = load_settings()
    if args.command == "run" and args.per_module:
        settings = Settings(seed=settings.seed, per_module=args.per_module, timeout=settings.timeout,
                            exclude_operators=settings.exclude_operators, groups=settings.groups)
    groups = [group for group in settings.groups if not args.group or group.name in args.group]
    equivalents = load_equivalents()
    workdir: Path = args.workdir.resolve()
    if args.command == "report":
        done = [report_group(group, workdir, equivalents) for group in groups
                if (workdir / group.slug / "session.sqlite").exists()]
        return _print(settings, done, 0.0, workdir)
    started = time.monotonic()
    for group in groups:
        (workdir / group.slug).mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        done = list(pool.map(lambda group: run_group(group, settings, workdir, equivalents, again=args.again),
                             groups))
    return _print(settings, done, time.monotonic() - started, workdir)


if __name__ == "__main__":
    raise SystemExit(main())
