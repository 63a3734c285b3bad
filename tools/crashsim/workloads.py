"""The workloads the crash states come from, and the invariants of issue 28 (deliverable 3) each
state must keep, checked by running the reference on the state as a folder.

Each workload prepares a folder (a Pi home, a project, a session), runs one reference command in
this process under a recording, and checks a crash state materialized at the same place: the
reference runs on it in this process too (``reference.cli.main.main``), with ``HOME`` pointing
into the folder.  An exception that escapes the command line is a traceback, a violation.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from reference.artifacts.journal import parse_journal
from reference.primitives.codes import Code
from reference.primitives.jsonbytes import js_stringify

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


class Workload(Protocol):
    name: str

    def prepare(self, root: Path) -> None:
        """Write the folder the workload starts from."""

    def run(self, root: Path) -> None:
        """The recorded run; it notes what a finished run left."""

    def check(self, root: Path) -> Checked:
        """The crash state materialized at ``root``, checked."""


def _traceback(outcome: Outcome) -> list[Broken]:
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


def _refusal(outcome: Outcome) -> list[Broken]:
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


class ConfigSet:
    """``recall-rebase config set sessionRebase.enabled true --global`` over an existing file."""

    name = "config-set"
    OLD: Final = b'{\n  "sessionRebase": {\n    "enabled": false\n  },\n  "historyTools": {\n    "enabled": true\n  }\n}\n'

    def __init__(self) -> None:
        self.new: bytes | None = None

    @staticmethod
    def _file(root: Path) -> Path:
        return root / "home" / ".pi" / "agent" / "ds4-context.json"

    def prepare(self, root: Path) -> None:
        self._file(root).parent.mkdir(parents=True)
        (root / "project").mkdir()
        self._file(root).write_bytes(self.OLD)

    def _set(self, root: Path) -> Outcome:
        return run_cli(root, ["config", "set", "sessionRebase.enabled", "true", "--global", "--cwd",
                              str(root / "project")])

    def run(self, root: Path) -> None:
        outcome = self._set(root)
        if outcome.code != 0:
            raise RuntimeError(f"the workload itself failed: {outcome}")
        self.new = self._file(root).read_bytes()

    def check(self, root: Path) -> Checked:
        path = self._file(root)
        data = path.read_bytes() if path.is_file() else None
        broken = []
        if data not in (self.OLD, self.new):
            shown = "absent" if data is None else f"{len(data)} bytes {data[:40]!r}"
            broken.append(Broken("config-old-or-new", f"the configuration file is {shown}"))
        show = run_cli(root, ["config", "show", "--json", "--cwd", str(root / "project")])
        return Checked(tuple(broken + _traceback(show)), "traceback" if show.traceback else f"show exit {show.code}")


class RebaseRun:
    """``recall-rebase rebase --session S --approve --json`` of a small version 3 session."""

    name = "rebase"

    def __init__(self) -> None:
        self.source_bytes = b""

    @staticmethod
    def _source(root: Path) -> Path:
        return root / "sessions" / "source.jsonl"

    def prepare(self, root: Path) -> None:
        project = root / "project"
        project.mkdir(parents=True)
        (root / "home").mkdir()
        self._source(root).parent.mkdir()
        records = [{"type": "session", "version": 3, "id": SESSION_ID, "timestamp": "2025-06-01T12:00:00.000Z",
                    "cwd": str(project)}]
        for number in range(1, 7):
            role = "user" if number % 2 else "assistant"
            body: dict[str, object] = {"role": role, "content": [{"type": "text", "text": f"step {number} " * 40}],
                                       "timestamp": number}
            if role == "assistant":
                body.update(api="x", provider="p", model="m", stopReason="stop")
            records.append({"type": "message", "id": f"e{number}", "parentId": f"e{number - 1}" if number > 1 else None,
                            "timestamp": f"2025-06-01T12:00:{number:02d}.000Z", "message": body})
        self.source_bytes = "".join(js_stringify(r) + "\n" for r in records).encode("utf-8")
        self._source(root).write_bytes(self.source_bytes)

    def _rebase(self, root: Path, *extra: str) -> Outcome:
        return run_cli(root, ["rebase", "--session", str(self._source(root)), "--approve", "--json",
                              "--cwd", str(root / "project"), *extra])

    def run(self, root: Path) -> None:
        outcome = self._rebase(root)
        if outcome.code != 0:
            raise RuntimeError(f"the workload itself failed: {outcome}")

    def _shape(self, root: Path, when: str) -> list[Broken]:
        broken = []
        if self._source(root).read_bytes() != self.source_bytes:
            broken.append(Broken("source-unchanged", f"the source's bytes changed ({when})"))
        targets = [p.name for p in (root / "sessions").glob("ds4-rebase_*.jsonl")]
        if len(targets) > 1:
            broken.append(Broken("at-most-one-target", f"{len(targets)} targets ({when})"))
        return broken

    def _journals(self, root: Path) -> tuple[list[str], list[Broken]]:
        folder = root / "sessions" / ".ds4-rebase" / "operations"
        ids, broken = [], []
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                record = parse_journal(path.read_bytes())
                if not isinstance(record, dict) or record.get("id") != path.stem:
                    raise ValueError("not this operation's record")
            except Exception as error:
                broken.append(Broken("journal-valid-or-absent", f"{path.name}: {error}"))
            ids.append(path.stem)
        return ids, broken

    def check(self, root: Path) -> Checked:
        broken = self._shape(root, "after the crash")
        ids, journal_broken = self._journals(root)
        broken += journal_broken
        outcome = self._rebase(root, "--recover", ids[0]) if ids else self._rebase(root)
        broken += _traceback(outcome) or _refusal(outcome)
        broken += self._shape(root, "after recovery")
        if outcome.traceback is None and '"status":"verified"' in outcome.stdout.replace(" ", ""):
            left = [p.name for p in (root / "sessions").rglob("*.tmp")]
            if left:
                broken.append(Broken("no-temporary-after-recovery", ", ".join(sorted(left))))
        return Checked(tuple(broken), ("recover: " if ids else "fresh run: ") + ended(outcome))


def workloads() -> tuple[Workload, ...]:
    """The workloads, in the order they run."""
    return (ConfigSet(), RebaseRun())
