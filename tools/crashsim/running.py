"""What every workload shares: running the reference in this process on a folder, and the
invariants of issue 28 (deliverable 3) every command's ending must keep.

Each workload (``crashsim.workloads`` lists them) prepares a folder (a Pi home, a project, a session), runs one reference command in
this process under a recording, and checks a crash state materialized at the same place: the
reference runs on it in this process too (``reference.cli.main.main``), with ``HOME`` pointing
into the folder.  An exception that escapes the command line is a traceback, a violation.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol, TypeVar

from reference.primitives.codes import Code
from reference.primitives.jsonbytes import js_stringify

T = TypeVar("T")

#: The codes a refusal may end with: the catalogue's (schemas/codes/v1), documented in docs/errors.md.
DOCUMENTED: Final = frozenset(code.value for code in Code)
SESSION_ID: Final = "crash-source"
#: Seen and counted, not a violation: issue 28's deliverable 3 does not ask it, and the reference
#: leaves a journal temporary that names no source on purpose (docs/rebase-durability.md): an
#: empty one (created, its write not yet made) or one torn in its first bytes.
ADVISORY: Final = frozenset({"no-temporary-after-recovery"})


@dataclass(frozen=True)
class Broken:
    """One invariant a state breaks, and what was seen."""

    invariant: str
    detail: str


@dataclass(frozen=True)
class Checked:
    """A state's check: the invariants it breaks, and how the reference's run on it ended (the
    result's status, with its code when it is not verified)."""

    broken: tuple[Broken, ...]
    ended: str


@dataclass(frozen=True)
class Outcome:
    """What one reference command did: its exit code and output, or the traceback it raised."""

    code: int | None
    stdout: str
    traceback: str | None


@contextlib.contextmanager
def _environment(home: Path) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in ("HOME", "PI_CODING_AGENT_DIR", "RECALL_REBASE_CRASH_AT")}
    os.environ["HOME"] = str(home)
    os.environ.pop("PI_CODING_AGENT_DIR", None)
    os.environ.pop("RECALL_REBASE_CRASH_AT", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_cli(root: Path, argv: Sequence[str]) -> Outcome:
    """``recall-rebase ARGV`` in this process, ``HOME`` being ``root/home``."""
    from reference.cli.main import main

    out = io.StringIO()
    with _environment(root / "home"), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(list(argv))
        except SystemExit as exit_:
            return Outcome(exit_.code if isinstance(exit_.code, int) else 1, out.getvalue(), None)
        except BaseException:
            return Outcome(None, out.getvalue(), traceback.format_exc())
    return Outcome(code, out.getvalue(), None)


def crash_cli(root: Path, argv: Sequence[str], point: str) -> int:
    """``recall-rebase ARGV`` in a child process armed to die at crash point ``point`` (D11,
    ``reference.rebase.crashpoints``): a process death, the kernel's page cache kept.  Its exit code."""
    from reference.rebase.crashpoints import ENV_VAR

    env = {key: value for key, value in os.environ.items() if key != "PI_CODING_AGENT_DIR"}
    env.update(HOME=str(root / "home"), **{ENV_VAR: point})
    return subprocess.run([sys.executable, "-m", "reference.cli", *argv], env=env, capture_output=True,
                          timeout=300, check=False).returncode


def search_argv(root: Path, session: Path, query: str, *extra: str) -> list[str]:
    """The command line of a recall (``history search``) from ``session`` in the workload's project."""
    return ["history", "search", "--session", str(session), "--approve", "--json", "--cwd", str(root / "project"),
            *extra, query]


def recall_answer(outcome: Outcome) -> str:
    """What a recall answered, comparable across indexes: its JSON result without the hits'
    ``sourceRef`` (a random key into one process's table, contract §3.2), or how it failed."""
    if outcome.traceback is not None:
        return "traceback: " + outcome.traceback.strip().splitlines()[-1]
    try:
        result = json.loads(outcome.stdout)
    except ValueError:
        return f"exit {outcome.code} without a JSON result"
    for hit in result.get("hits") or []:
        hit.pop("sourceRef", None)
    return json.dumps(result, sort_keys=True)


def session_bytes(project: Path, numbers: Iterable[int]) -> bytes:
    """A version 3 Pi session of project ``project`` (header and entries ``e<n>`` for ``numbers``,
    one chain, users and assistants in turn); without the header when ``numbers`` starts past 1."""
    records: list[dict[str, object]] = []
    for number in numbers:
        if number == 1:
            records.append({"type": "session", "version": 3, "id": SESSION_ID,
                            "timestamp": "2025-06-01T12:00:00.000Z", "cwd": str(project)})
        role = "user" if number % 2 else "assistant"
        body: dict[str, object] = {"role": role, "content": [{"type": "text", "text": f"step {number} " * 40}],
                                   "timestamp": number}
        if role == "assistant":
            body.update(api="x", provider="p", model="m", stopReason="stop")
        records.append({"type": "message", "id": f"e{number}", "parentId": f"e{number - 1}" if number > 1 else None,
                        "timestamp": f"2025-06-01T12:{number // 60:02d}:{number % 60:02d}.000Z", "message": body})
    return "".join(js_stringify(r) + "\n" for r in records).encode("utf-8")


def unrecorded(run: Callable[[], T]) -> T:
    """``run()`` outside the recording: in a thread of its own, which starts in an empty context,
    so the recorder's context variable (``platform_ops.recorder``) is unset there."""
    results: list[T] = []
    failures: list[BaseException] = []

    def call() -> None:
        try:
            results.append(run())
        except BaseException as error:
            failures.append(error)

    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]
    return results[0]


@contextlib.contextmanager
def fresh_index(root: Path) -> Iterator[Path]:
    """An index file in a folder of its own beside the workload's (removed after): recall there
    rebuilds from the JSONL alone."""
    folder = root.with_name(root.name + "-fresh-index")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    try:
        yield folder / "index.sqlite"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Workload(Protocol):
    name: str

    def prepare(self, root: Path) -> None:
        """Write the folder the workload starts from."""

    def run(self, root: Path) -> None:
        """The recorded run; it notes what a finished run left."""

    def check(self, root: Path) -> Checked:
        """The crash state materialized at ``root``, checked."""


def no_traceback(outcome: Outcome) -> list[Broken]:
    if outcome.traceback is None:
        return []
    return [Broken("no-traceback", outcome.traceback.strip().splitlines()[-1])]


def ended(outcome: Outcome) -> str:
    """``verified``, ``<status> <code>``, ``exit <n>`` or ``traceback``."""
    if outcome.traceback is not None:
        return "traceback"
    try:
        result = json.loads(outcome.stdout)
    except ValueError:
        return f"exit {outcome.code}"
    status = result.get("status")
    return str(status) if status == "verified" else f"{status} {(result.get('warnings') or [None])[0]}"


def documented_refusal(outcome: Outcome) -> list[Broken]:
    """A JSON result that is verified, or a refusal with a documented code."""
    try:
        result = json.loads(outcome.stdout)
    except ValueError:
        return [Broken("documented-refusal", f"exit {outcome.code} without a JSON result")]
    status = result.get("status")
    if status == "verified":
        return []
    code = (result.get("warnings") or [None])[0] if status in ("unavailable", "recoverable") else result.get("code")
    if code not in DOCUMENTED:
        return [Broken("documented-refusal", f"status {status!r} with code {code!r}")]
    return []
