"""The wrong-path matrix (issue 23, item 6): every path a command takes, handed every wrong thing.

Each *slot* is one path-taking option (or positional, or configuration file) of one command, read
off its ``--help``: ``SLOTS`` below lists them all. Each *wrong thing* (``KINDS`` in
tests/testkit/wrong_paths.py) is something a user can name by mistake: the session itself, another
session, a real index (built by ``history index``), a rebase journal, a text file, another
program's SQLite database, a folder, a FIFO, a symlink to the session, ``/dev/zero``, a path whose
parent is missing, a path in a read-only folder, a session whose name is not UTF-8. A configuration
slot (``config show|set|unset``, global or project) puts the wrong thing where the file would be
(a missing or read-only parent: that folder; not UTF-8: the folder's name).

Every cell (one pytest id, ``slot × thing``) copies a prepared folder, runs the command as a child
process with a timeout of ``CELL_TIMEOUT_S`` (a command that blocks on the FIFO fails its cell),
and checks that: every path that was there keeps its name, type, mode and bytes (only the
project's own index folder may change); new paths appear only in folders the project owns (the
agent dir, HOME, the sessions folder, ``.pi``), under the rebase's own names, or at the path the
command was told to write (and its missing parents) — never a ``-wal``, ``-shm`` or ``*.corrupt``
beside a foreign file; every new file is owner-only (0600) and every new folder 0700, as
decision D6 says of all the project creates; the exit code is one the command documents (docs/errors.md, "Exit codes";
docs/INTERPRETING.md); a refusal (exit 2) is exactly one line ``recall-rebase: <code>: …``; no
output holds a ``Traceback``. The cells run as child processes, several at once
(``WRONG_PATH_WORKERS``, default 3), started by one fixture for the cells pytest selected; each
test then checks its own cell. Run as root, for whom no folder is read-only, a read-only-folder
cell's child gives up root's permission override (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) first,
for itself and every program it starts, so the folder's 0555 binds it as it binds any user.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pytest
from testkit import wrong_paths as wp

PRODUCT_EXITS: Final = frozenset({0, 2, 3, 4})
TOOLKIT_EXITS: Final = frozenset({0, 1, 2, 3})
WORKERS: Final = int(os.environ.get("WRONG_PATH_WORKERS", "3"))

Argv = Callable[[Path, str], list[str]]


@dataclass(frozen=True)
class Slot:
    """One path a command takes: how its command line is built around the wrong path ``t``."""

    argv: Argv
    exits: frozenset[int] = PRODUCT_EXITS
    stdin: str = ""
    #: A configuration file's place (relative to the cell): the wrong thing is put there.
    placed: str | None = None
    #: What it may make inside a folder it is given (``""``: anything, an output folder; ``.pi``: a project's).
    inside: tuple[str, ...] = ()
    timeout: float = wp.CELL_TIMEOUT_S
    #: The thing that is right here (the session for ``--session``, an index for ``--index``): the
    #: control cell, which must succeed (exit 0); an index named so may be written, its sidecars beside it.
    right_kind: str | None = None


def _s(root: Path) -> str:
    return str(root / "sessions" / "s.jsonl")


def _i(root: Path) -> str:
    return str(root / "agent" / "recall-rebase" / "index.sqlite")


def _history(command: str, option: str) -> Argv:
    def argv(root: Path, t: str) -> list[str]:
        query = ["LastExportUtc"] if command == "search" else []
        chosen = {"--session": _s(root), "--index": _i(root), "--cwd": str(root / "project"), option: t}
        return ["history", command, *query, *[w for pair in chosen.items() for w in pair], "--json"]
    return argv


def _rebase(option: str) -> Argv:
    def argv(root: Path, t: str) -> list[str]:
        chosen = {"--session": _s(root), "--index": _i(root), "--cwd": str(root / "project"), option: t}
        return ["rebase", *[w for pair in chosen.items() for w in pair], "--approve", "--json"]
    return argv


def _host(option: str) -> Argv:
    def argv(root: Path, t: str) -> list[str]:
        chosen = {"--session": _s(root), "--index": _i(root), "--cwd": str(root / "project"), option: t}
        return ["host", *[w for pair in chosen.items() for w in pair]]
    return argv


def _audit(option: str, *head: str) -> Argv:
    def argv(root: Path, t: str) -> list[str]:
        chosen = {"--sessions": str(root / "sessions"), "--index": _i(root)}
        chosen = {**chosen, option: t} if option != "--project" else {"--project": t, "--index": _i(root)}
        extra = ["--json", "--no-progress"] if not head else []
        return ["audit", *head, *[w for pair in chosen.items() for w in pair], *extra]
    return argv


def _run(option: str) -> Argv:
    return lambda root, t: ["conformance", "run", "--id", "PRIM-001", "--no-progress", "--json", option, t]


#: A conformance run that does start takes a few seconds on a loaded machine.
RUN_TIMEOUT_S: Final = 20.0


def _right(option: str) -> str | None:
    return {"--index": "index", "--session": "session"}.get(option)


def _report(root: Path) -> str:
    return str(root / "reports" / "r.ndjson")


def _config(command: str, *scope: str) -> Argv:
    words = {"show": ["show"], "set": ["set", "historyTools.maxResults", "8"], "unset": ["unset",
                                                                                     "historyTools.maxResults"]}
    return lambda root, t: ["config", *words[command], *scope, "--approve", "--json"]


SLOTS: Final = {
    "session-inspect:FILE": Slot(lambda root, t: ["session", "inspect", t, "--json"], right_kind="session"),
    **{f"history-{c}:{o}": Slot(_history(c, o), right_kind=_right(o)) for c in ("search", "status", "index")
       for o in ("--session", "--index", "--cwd")},
    **{f"rebase:{o}": Slot(_rebase(o), right_kind=_right(o)) for o in ("--session", "--index", "--cwd")},
    **{f"host:{o}": Slot(_host(o), stdin="/context history status\n", right_kind=_right(o))
       for o in ("--session", "--index", "--cwd")},
    "audit:--sessions": Slot(_audit("--sessions"), TOOLKIT_EXITS),
    "audit:--project": Slot(_audit("--project"), TOOLKIT_EXITS),
    "audit:--index": Slot(_audit("--index"), TOOLKIT_EXITS),
    "audit:--mapping": Slot(_audit("--mapping"), TOOLKIT_EXITS),
    "audit:--report": Slot(_audit("--report"), TOOLKIT_EXITS),
    "audit-sql:--sessions": Slot(_audit("--sessions", "sql", "SELECT 1"), TOOLKIT_EXITS),
    "audit-views:--index": Slot(_audit("--index", "views"), TOOLKIT_EXITS),
    "audit-export:--parquet": Slot(_audit("--parquet", "export"), TOOLKIT_EXITS, inside=("",)),
    **{f"conformance-run:{o}": Slot(_run(o), TOOLKIT_EXITS, timeout=RUN_TIMEOUT_S)
       for o in ("--report", "--junitxml", "--cucumber-json", "--expectations")},
    "conformance-check:--expectations": Slot(lambda root, t: ["conformance", "check", "--expectations", t,
                                                              "--json"], TOOLKIT_EXITS),
    "update-expectations:REPORT": Slot(lambda root, t: ["conformance", "update-expectations", t, "--write",
                                                        str(root / "home" / "m.toml")], TOOLKIT_EXITS),
    "update-expectations:--write": Slot(lambda root, t: ["conformance", "update-expectations", _report(root),
                                                         "--write", t], TOOLKIT_EXITS),
    "summary:REPORT": Slot(lambda root, t: ["conformance", "summary", t], TOOLKIT_EXITS),
    "summary:--output": Slot(lambda root, t: ["conformance", "summary", _report(root), "--output", t],
                             TOOLKIT_EXITS),
    "validate-report:REPORT": Slot(lambda root, t: ["conformance", "validate-report", t, "--json"], TOOLKIT_EXITS),
    "fixtures-generate:--out": Slot(lambda root, t: ["fixtures", "generate", "--seed", "1", "--sessions", "1",
                                                     "--entries", "3", "--out", t, "--json"], inside=("",)),
    "fixtures-privacy-corpus:--out": Slot(lambda root, t: ["fixtures", "privacy-corpus", "--out", t], inside=("",)),
    "fixtures-privacy-check:--corpus": Slot(lambda root, t: ["fixtures", "privacy-check", "--corpus", t],
                                            frozenset({0, 1, 2})),
    **{f"config-{c}:--cwd": Slot(lambda root, t, c=c: [*_config(c)(root, t), "--cwd", t],  # type: ignore[misc]
                                 inside=(".pi",))
       for c in ("show", "set", "unset")},
    **{f"config-{c}:{where}-file": Slot(_config(c, *(["--global"] if where == "global" else [])),
                                        placed=place)
       for c in ("show", "set", "unset")
       for where, place in (("global", "agent/ds4-context.json"), ("project", "project/.pi/ds4-context.json"))},
}


@dataclass
class Cell:
    """One cell's run: where, what it was told, and what it did."""

    root: Path
    target: str
    argv: list[str] = field(default_factory=list)
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    owned: tuple[str, ...] = ()
    bound_by_permissions: bool = False
    before: dict[str, wp.Entry] = field(default_factory=dict)
    after: dict[str, wp.Entry] = field(default_factory=dict)
    target_before: str | None = None
    target_after: str | None = None
    outcome: wp.Ended | None = None
    seconds: float = 0.0


def _identity(path: str) -> str | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return f"{info.st_mode:o} {info.st_ino} {info.st_rdev} {info.st_size}"


def _place(cell: Cell, kind: str, where: str) -> None:
    """Put the wrong thing at a configuration file's place (see the module's docstring)."""
    root, place = cell.root, cell.root / where
    place.parent.mkdir(parents=True, exist_ok=True)
    if kind == "directory":
        shutil.copytree(root / "things" / "folder", place)
    elif kind == "fifo":
        os.mkfifo(place, 0o600)
    elif kind == "symlink-to-session":
        place.symlink_to(root / "sessions" / "s.jsonl")
    elif kind == "dev-zero":
        place.symlink_to("/dev/zero")
    elif kind == "missing-parent":
        shutil.rmtree(place.parent)
    elif kind == "read-only-folder":
        os.chmod(place.parent, 0o555)
    elif kind == "not-utf8-name":  # the agent dir or the project folder named so
        other = place.parent.parent / os.fsdecode(os.fsencode(place.parent.parent.name) + b"-\xff")
        other.mkdir(exist_ok=True)
        if where.startswith("agent/"):
            cell.env = {"PI_CODING_AGENT_DIR": str(other)}
        else:
            cell.cwd = other
        cell.owned = (str(other.relative_to(root)),)
    else:
        shutil.copy2(wp.target(root, kind), place)
    cell.target = str(place)


def _prepare(template: Path, base: Path, slot_id: str, kind: str) -> Cell:
    root = base / f"{slot_id.replace(':', '_')}__{kind}"
    wp.make_cell(template, root)
    slot = SLOTS[slot_id]
    cell = Cell(root, wp.target(root, kind))
    if slot.placed:
        _place(cell, kind, slot.placed)
    cell.argv = slot.argv(root, cell.target)
    if kind == "read-only-folder" and os.geteuid() == 0:  # root writes anywhere: not without its override
        cell.bound_by_permissions = True
    cell.before, cell.target_before = wp.snapshot(root), _identity(cell.target)
    return cell


def _job(cell: Cell, slot: Slot, output: Path) -> wp.Job:
    output.mkdir(parents=True)
    return wp.Job(tuple(cell.argv), cell.cwd or cell.root / "project", {**wp.environment(cell.root), **cell.env},
                  slot.stdin, output, slot.timeout, cell.bound_by_permissions)


CELLS: Final = [(slot, kind) for slot in SLOTS for kind in wp.KINDS]


def _cell_of(item: pytest.Item) -> tuple[str, str] | None:
    callspec = getattr(item, "callspec", None)
    cell: tuple[str, str] | None = callspec.params.get("cell") if callspec is not None else None
    return cell


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The prepared folder every cell copies (tests/testkit/wrong_paths.py)."""
    folder = tmp_path_factory.mktemp("wrong-paths-template")
    shutil.rmtree(folder)
    wp.build_template(folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


#: Cells run together, ``WORKERS`` at a time. A worker of pytest-xdist lists every collected test in
#: its session but runs only the share it is sent (in runs of neighbouring tests), so the cells run a
#: batch at a time, when a test first asks for one: never every cell in every worker.
BATCH: Final = 4 * WORKERS


class Matrix:
    """The selected cells of a module, run a batch at a time (``matrix[slot, kind]``)."""

    def __init__(self, selected: list[tuple[str, str]], template: Path, base: Path) -> None:
        batches = [selected[n:n + BATCH] for n in range(0, len(selected), BATCH)]
        self._batch_of = {key: batch for batch in batches for key in batch}
        self._template, self._base = template, base
        self.ran: dict[tuple[str, str], Cell] = {}

    def __getitem__(self, key: tuple[str, str]) -> Cell:
        if key not in self.ran:
            self._run(self._batch_of.get(key, [key]))
        return self.ran[key]

    def _run(self, batch: list[tuple[str, str]]) -> None:
        cells = {(slot, kind): _prepare(self._template, self._base, slot, kind) for slot, kind in batch}
        first = len(self.ran)
        jobs = [_job(cell, SLOTS[key[0]], self._base / "outputs" / f"{first + number}")
                for number, (key, cell) in enumerate(cells.items())]
        for cell, ended in zip(cells.values(), wp.run_forked(jobs, WORKERS), strict=True):
            cell.outcome, cell.seconds = ended, ended.seconds
            cell.after, cell.target_after = wp.snapshot(cell.root), _identity(cell.target)
        self.ran.update(cells)


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, template: Path) -> Iterator[Matrix]:
    """The selected cells, run a batch at a time; the folders are removed afterwards."""
    selected = [cell for item in request.session.items
                if getattr(item, "module", None) is request.module and (cell := _cell_of(item)) is not None]
    base = Path(tempfile.mkdtemp(prefix="recall-rebase-wrong-paths-"))
    started = time.monotonic()
    matrix = Matrix(selected, template, base)
    yield matrix
    print(f"\nwrong-path matrix: {len(matrix.ran)} cells in {time.monotonic() - started:.1f} s with {WORKERS} workers")
    for ran in matrix.ran.values():
        for folder, _, _ in os.walk(ran.root):
            os.chmod(folder, 0o755)
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("cell", CELLS, ids=[f"{slot}-{kind}" for slot, kind in CELLS])
def test_a_wrong_path_is_refused_or_used_and_nothing_else_is_touched(outcomes: Matrix,
                                                                     cell: tuple[str, str]) -> None:
    slot_id, kind = cell
    ran = outcomes[slot_id, kind]
    shown = " ".join(ran.argv)
    slot = SLOTS[slot_id]
    assert ran.outcome is not None and ran.outcome.code is not None, f"did not end within {slot.timeout:.0f} s: {shown}"
    out, err, code = ran.outcome.stdout, ran.outcome.stderr, ran.outcome.code
    assert "Traceback" not in out + err, err[-2000:]
    problems = wp.changes(ran.root, ran.before, ran.after, ran.target, slot.inside)
    problems = [p for p in problems if not any(p.startswith(f"new: {o}") for o in ran.owned)]
    if kind == slot.right_kind == "index":  # an index named as the index: caught up, its sidecars beside it
        mine = os.path.relpath(ran.target, ran.root)
        problems = [p for p in problems if not p.startswith((f"changed or gone: {mine} ", f"new: {mine}-"))]
    if slot.placed and kind == "journal" and not slot_id.startswith("config-show"):
        # a JSON object where the configuration file is, is that file: set and unset edit it
        problems = [p for p in problems if not p.startswith(f"changed or gone: {slot.placed} ")]
    if ran.target_before != ran.target_after and not ran.target.startswith(str(ran.root)):
        problems.append(f"the target changed: {ran.target_before} -> {ran.target_after}")
    assert not problems, f"{shown}\n" + "\n".join(problems) + f"\nexit {code}; stderr: {err[-600:]}"
    assert code in slot.exits, f"exit {code} is not one of {sorted(slot.exits)}: {shown}\n{err}"
    if kind == slot.right_kind:
        assert code == 0, f"the control cell failed: {shown}\n{out[-600:]}\n{err[-600:]}"
    if code == 2:
        assert len(wp.coded_lines(err)) == 1 and len(err.strip().splitlines()) == 1, f"not one coded line: {err!r}"


# ----------------------------------------------------------------- an output of our own is replaced

@pytest.mark.parametrize("form", ["text", "markdown", "json", "html"])
def test_a_summary_written_before_is_replaced(template: Path, tmp_path: Path, form: str) -> None:
    """The refusal of a foreign ``--output`` leaves a re-run working: an earlier summary is ours."""
    report, output = str(template / "reports" / "r.ndjson"), tmp_path / "summary.out"
    for _ in range(2):
        done = wp.run(tmp_path, ["conformance", "summary", report, "--format", form, "--output", str(output)],
                      cwd=tmp_path)
        assert done.returncode == 0 and output.stat().st_size > 0, done.stderr


def test_an_audit_report_written_before_is_replaced(template: Path, tmp_path: Path) -> None:
    root, output = tmp_path / "cell", tmp_path / "audit.json"
    wp.make_cell(template, root)
    for _ in range(2):
        done = wp.run(root, ["audit", "--sessions", str(root / "sessions"), "--index", _i(root), "--report",
                             str(output), "--json", "--no-progress"])
        assert done.returncode in (0, 1) and output.read_bytes().startswith(b'{\n  "schema"'), done.stderr
