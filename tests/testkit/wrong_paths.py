"""The folder, the wrong things and the checks of the wrong-path matrix (tests/cli/test_wrong_paths.py).

A *template* folder is built once: a fake HOME and agent dir, a project, a sessions folder with
two sessions, the project's index (built by ``history index``), a report of a real run, and in
``things/`` the wrong things a user can hand an option: a copy of that index, a rebase journal,
a text file, another program's SQLite database, a folder, a symlink to the session, a session
whose name is not UTF-8 and a read-only folder. Each cell gets its own copy (and its own FIFO),
runs one command as a child process, and :func:`changes` compares the tree before and after.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

RECALL_REBASE: Final = (sys.executable, "-m", "reference.cli")
#: Seconds a cell may take: a command that blocks on a FIFO or reads /dev/zero for ever fails.
CELL_TIMEOUT_S: Final = 6.0
#: Seconds the template's own commands (an index, a rebase, a conformance run) may take.
BUILD_TIMEOUT_S: Final = 120.0
NOT_UTF8: Final = os.fsdecode(b"session-\xff.jsonl")
T = "2026-01-01T00:00:0{}.000Z"

#: The wrong things, by cell id, and where each lies in a cell's folder (``None``: made per cell).
KINDS: Final = {
    "session": "sessions/s.jsonl",
    "other-session": "sessions/o.jsonl",
    "index": "things/index.sqlite",
    "journal": "things/.ds4-rebase/operations/JOURNAL",
    "text-file": "things/notes.txt",
    "foreign-sqlite": "things/other.db",
    "directory": "things/folder",
    "fifo": "things/fifo",
    "symlink-to-session": "things/link.jsonl",
    "dev-zero": "/dev/zero",
    "missing-parent": "things/missing/parent/file",
    "read-only-folder": "things/read-only/file",
    "not-utf8-name": f"things/{NOT_UTF8}",
}
#: A coded line: ``recall-rebase: <code>: <message>``.
CODED_LINE: Final = re.compile(r"^recall-rebase: [a-z][a-z0-9]*(-[a-z0-9]+)*: \S")


@dataclass(frozen=True)
class Entry:
    """What one path of the tree is: its type and mode, its bytes' digest or its link's target."""

    kind: str
    mode: int
    content: str


def _session_lines(session_id: str, cwd: Path) -> bytes:
    header = {"type": "session", "version": 3, "id": session_id, "timestamp": T.format(0), "cwd": str(cwd)}
    lines = [header]
    for number, role in enumerate(("user", "assistant", "user")):
        lines.append({"type": "message", "id": f"{session_id}-{number}", "parentId": f"{session_id}-{number - 1}"
                      if number else None, "timestamp": T.format(number + 1),
                      "message": {"role": role, "content": f"Keep `LastExportUtc` as it is ({number}).",
                                  "timestamp": number + 1} if role == "user" else
                      {"role": role, "content": [{"type": "text", "text": f"Noted {number}."}], "api": "x",
                       "provider": "ollama", "model": "m", "usage": {}, "stopReason": "stop",
                       "timestamp": number + 1}})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def environment(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"RECALL_REBASE_CRASH_AT", "PI_CODING_AGENT_SESSION_DIR"}}
    env.update(HOME=str(root / "home"), PI_CODING_AGENT_DIR=str(root / "agent"), PYTHONDONTWRITEBYTECODE="1")
    return env


def run(root: Path, argv: Sequence[str], *, stdin: str = "", timeout: float = BUILD_TIMEOUT_S,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``recall-rebase ARGV`` as a child process in ``root``'s environment (raises on timeout)."""
    return subprocess.run([*RECALL_REBASE, *argv], cwd=cwd or root / "project", env=environment(root), input=stdin,
                          capture_output=True, text=True, timeout=timeout, errors="surrogateescape")


def build_template(root: Path) -> None:
    """The shared folder every cell copies (see the module's docstring)."""
    for folder in ("home", "agent", "project", "sessions", "things/folder", "work"):
        (root / folder).mkdir(parents=True)
    (root / "sessions" / "s.jsonl").write_bytes(_session_lines("s", root / "project"))
    (root / "sessions" / "o.jsonl").write_bytes(_session_lines("o", root / "project"))
    built = run(root, ["history", "index", "--session", str(root / "sessions" / "s.jsonl"), "--json"])
    assert built.returncode == 0, built.stderr
    shutil.copy2(root / "agent" / "recall-rebase" / "index.sqlite", root / "things" / "index.sqlite")
    (root / "work" / "w.jsonl").write_bytes(_session_lines("w", root / "project"))
    rebased = run(root, ["rebase", "--session", str(root / "work" / "w.jsonl"), "--approve", "--json",
                         "--index", str(root / "work" / "index.sqlite")])
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    (journal,) = (root / "work" / ".ds4-rebase" / "operations").glob("rebase_*.json")
    (root / "things" / ".ds4-rebase" / "operations").mkdir(parents=True)
    shutil.copy2(journal, root / "things" / ".ds4-rebase" / "operations" / journal.name)
    shutil.rmtree(root / "work")
    (root / "things" / "notes.txt").write_text("my notes, not a session\n")
    (root / "things" / "folder" / "inside.txt").write_text("a file of the user's folder\n")
    with sqlite3.connect(root / "things" / "other.db") as other:
        other.execute("CREATE TABLE bookmarks (url TEXT)")
        other.execute("INSERT INTO bookmarks VALUES ('https://example.org')")
    other.close()
    (root / "things" / "link.jsonl").symlink_to(root / "sessions" / "s.jsonl")
    shutil.copy2(root / "sessions" / "s.jsonl", root / "things" / NOT_UTF8)
    (root / "things" / "read-only").mkdir()
    (root / "reports").mkdir()
    report = root / "reports" / "r.ndjson"
    ran = run(root, ["conformance", "run", "--id", "PRIM-001", "--no-progress", "--report", str(report)])
    assert ran.returncode == 0 and report.is_file(), ran.stderr


def journal_path(root: Path) -> Path:
    (journal,) = (root / "things" / ".ds4-rebase" / "operations").glob("rebase_*.json")
    return journal


def make_cell(template: Path, root: Path) -> None:
    """A copy of the template whose sessions name the copy's project, with the FIFO and the
    read-only folder a copy cannot carry."""
    shutil.copytree(template, root, symlinks=True)
    for session_id, path in (("s", "sessions/s.jsonl"), ("o", "sessions/o.jsonl"), ("s", f"things/{NOT_UTF8}")):
        (root / path).write_bytes(_session_lines(session_id, root / "project"))  # its header names this project
    (root / "things" / "link.jsonl").unlink()
    (root / "things" / "link.jsonl").symlink_to(root / "sessions" / "s.jsonl")
    os.mkfifo(root / "things" / "fifo", 0o600)
    os.chmod(root / "things" / "read-only", 0o555)


#: Linux capabilities that let root ignore permission bits: CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH.
_OVERRIDES: Final = (1, 2)
_PR_CAPBSET_DROP: Final = 24
_CAPABILITY_VERSION_3: Final = 0x20080522


def give_up_permission_override() -> None:
    """This process (and every program it starts) keeps root's user id but no longer overrides
    permission bits, so a folder of mode 0555 is read-only to it as to any user. Root writes
    anywhere otherwise; running as another user instead would need every file of the installed
    package to be readable by that user (tox makes ``.tox`` 0700)."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in _OVERRIDES:  # gone from the bounding set: an exec cannot give them back
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")
    header, data = Header(_CAPABILITY_VERSION_3, 0), (Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    keep = ~sum(1 << capability for capability in _OVERRIDES) & 0xFFFFFFFF
    for field in ("effective", "permitted", "inheritable"):
        setattr(data[0], field, getattr(data[0], field) & keep)
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def target(root: Path, kind: str) -> str:
    where = KINDS[kind]
    if kind == "journal":
        return str(journal_path(root))
    return where if where.startswith("/") else str(root / where)


def _entry(path: Path) -> Entry:
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return Entry("link", stat.S_IMODE(info.st_mode), os.readlink(path))
    if stat.S_ISREG(info.st_mode):
        return Entry("file", stat.S_IMODE(info.st_mode), hashlib.sha256(path.read_bytes()).hexdigest())
    if stat.S_ISDIR(info.st_mode):
        return Entry("dir", stat.S_IMODE(info.st_mode), "")
    return Entry(f"special {stat.S_IFMT(info.st_mode):o}", stat.S_IMODE(info.st_mode), str(info.st_rdev))


def snapshot(root: Path) -> dict[str, Entry]:
    """Every path under ``root`` (symlinks not followed, FIFOs not opened) and what it is."""
    tree: dict[str, Entry] = {}
    for folder, names, files in os.walk(root):
        for name in [*names, *files]:
            path = Path(folder) / name
            tree[str(path.relative_to(root))] = _entry(path)
    return tree


#: Folders a command of ours may change or fill (relative to a cell), and the names it may make elsewhere.
OWNED: Final = ("agent", "home", "sessions", "project/.pi")
OWN_NAMES: Final = re.compile(r"(^|/)(ds4-rebase_[^/]*\.jsonl|\.ds4-rebase(/.*)?)$")
MUTABLE: Final = ("agent/recall-rebase",)


def _under(path: str, folders: Sequence[str]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def changes(root: Path, before: dict[str, Entry], after: dict[str, Entry], target_path: str,
            inside_target: Sequence[str] = ()) -> list[str]:
    """What the command did to the tree that it must not: a file that was there changed, moved or
    gone (outside the project's own index folder), or a new path outside the folders it owns and
    outside the path it was told to write (``inside_target``: what it may make in a folder it was
    given, ``""`` anything)."""
    relative_target = os.path.relpath(target_path, root) if target_path.startswith(str(root)) else None
    told = [relative_target] if relative_target and relative_target not in before else []
    if relative_target and before.get(relative_target, Entry("dir", 0, "")).kind == "dir":
        told += [os.path.join(relative_target, inside).rstrip("/") for inside in inside_target]
    problems = [f"changed or gone: {path} ({before[path]} -> {after.get(path)})" for path in before
                if after.get(path) != before[path] and not _under(path, MUTABLE)]
    for path in sorted(set(after) - set(before)):
        if _under(path, OWNED) or OWN_NAMES.search(path) or _under(path, told):
            continue
        if relative_target and relative_target not in before and relative_target.startswith(path + "/"):
            continue  # a missing parent of the path it was told to write, made for it
        problems.append(f"new: {path}")
    problems += [f"not owner-only: {path} ({after[path].mode:o})" for path in sorted(set(after) - set(before))
                 if after[path].kind in ("file", "dir") and after[path].mode & 0o077]
    return problems


def coded_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if CODED_LINE.match(line)]


# ----------------------------------------------------------------- the cells' processes

@dataclass(frozen=True)
class Job:
    """One command to run in a child process: its words, folder, environment, stdin and output folder."""

    argv: tuple[str, ...]
    cwd: Path
    env: dict[str, str]
    stdin: str
    output: Path
    timeout: float
    #: Whether the child gives up root's permission override (a read-only-folder cell run as root).
    bound_by_permissions: bool = False


@dataclass(frozen=True)
class Ended:
    """How a child ended: its exit code (``None``: killed at its timeout), its stdout and stderr, its seconds."""

    code: int | None
    stdout: str
    stderr: str
    seconds: float


def preload() -> None:
    """Import every module of the two packages (and what they import), once, so that each forked
    child starts at ``main``."""
    import concurrent.futures.thread  # noqa: F401  (imported lazily by concurrent.futures)
    import importlib
    import pkgutil

    import duckdb  # noqa: F401  (the audit's engine; no thread starts before a connection)

    import conformance
    import reference

    for package in (conformance, reference):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not module.name.endswith("__main__") and ".suite_tests" not in module.name:  # pytest's to load
                with contextlib.suppress(ImportError):
                    importlib.import_module(module.name)


def _child(job: Job) -> None:  # pragma: no cover - runs in the forked child, which never returns
    code = 1
    try:
        os.setpgid(0, 0)
        os.chdir(job.cwd)
        os.environ.clear()
        os.environ.update(job.env)
        (job.output / "stdin").write_text(job.stdin)
        for fd, name, flags in ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, "stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            os.dup2(os.open(job.output / name, flags, 0o600), fd)
        if job.bound_by_permissions:
            give_up_permission_override()
        sys.stdin = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        sys.argv = ["recall-rebase", *job.argv]
        from reference.cli.main import main

        code = main(list(job.argv))
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:  # as the interpreter would: a traceback on stderr, exit 1
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed stream: nothing more to say
                stream.flush()
        os._exit(code)


def run_forked(jobs: Sequence[Job], workers: int) -> list[Ended]:
    """Each job in a child forked from this (preloaded) process, ``workers`` at a time; a child past
    its timeout is killed with its process group. Only this thread may run meanwhile."""
    import signal
    import time

    preload()
    ended: list[Ended | None] = [None] * len(jobs)
    running: dict[int, tuple[int, float]] = {}
    waiting = list(range(len(jobs)))[::-1]
    while waiting or running:
        while waiting and len(running) < workers:
            number = waiting.pop()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(jobs[number])
            running[pid] = (number, time.monotonic())
        pid, status = os.waitpid(-1, os.WNOHANG)
        now = time.monotonic()
        if pid in running:
            number, started = running.pop(pid)
            ended[number] = _ended(jobs[number], os.waitstatus_to_exitcode(status), now - started)
            continue
        for pid, (number, started) in list(running.items()):
            if now - started > jobs[number].timeout:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:  # not yet its own group
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                del running[pid]
                ended[number] = _ended(jobs[number], None, now - started)
        time.sleep(0.005)
    return [item for item in ended if item is not None]


def _ended(job: Job, code: int | None, seconds: float) -> Ended:
    def text(name: str) -> str:
        path = job.output / name
        return path.read_bytes().decode("utf-8", "surrogateescape") if path.exists() else ""

    return Ended(code, text("stdout"), text("stderr"), seconds)
