"""The rebase workloads: one rebase run, recovery from each crash point (D11), and a rebase of a
rebased session (lineage).  Invariants: the source's bytes never change, at most one target, each
journal valid or absent, recovery ends verified or with a documented code, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from crashsim.running import (
    Broken,
    Checked,
    Outcome,
    crash_cli,
    documented_refusal,
    ended,
    fresh_index,
    no_traceback,
    recall_answer,
    run_cli,
    search_argv,
    session_bytes,
    unrecorded,
)
from reference.artifacts.journal import parse_journal
from reference.rebase.crashpoints import CRASH_EXIT_CODE


class RebaseRun:
    """``recall-rebase rebase --session S --approve --json`` of a small version 3 session."""

    name = "rebase"

    def __init__(self) -> None:
        #: The session the recorded run rebases, relative to the workload's folder.
        self.session = "sessions/source.jsonl"
        #: Files whose bytes never change (relative name: bytes): the source, and any earlier session.
        self.unchanged: dict[str, bytes] = {}
        #: Targets and operations made before the recorded run (prepare's), not the run's own.
        self.earlier_targets: frozenset[str] = frozenset()
        self.earlier_operations: frozenset[str] = frozenset()

    @property
    def source_bytes(self) -> bytes:
        return self.unchanged[self.session]

    def prepare(self, root: Path) -> None:
        project = root / "project"
        project.mkdir(parents=True)
        (root / "home").mkdir()
        (root / "sessions").mkdir()
        data = session_bytes(project, range(1, 7))
        (root / self.session).write_bytes(data)
        self.unchanged = {self.session: data}

    def _rebase(self, root: Path, *extra: str) -> Outcome:
        return run_cli(root, rebase_argv(root, root / self.session, *extra))

    def run(self, root: Path) -> None:
        outcome = self._rebase(root)
        if outcome.code != 0:
            raise RuntimeError(f"the workload itself failed: {outcome}")

    def _shape(self, root: Path, when: str) -> list[Broken]:
        broken = []
        for name, data in self.unchanged.items():
            if not (root / name).is_file() or (root / name).read_bytes() != data:
                broken.append(Broken("source-unchanged", f"{name}'s bytes changed ({when})"))
        targets = [p.name for p in (root / "sessions").glob("ds4-rebase_*.jsonl") if p.name not in self.earlier_targets]
        if len(targets) > 1:
            broken.append(Broken("at-most-one-target", f"{len(targets)} targets ({when})"))
        return broken

    def _journals(self, root: Path) -> tuple[list[str], list[Broken]]:
        """The recorded run's journals (an earlier operation's are checked as valid too)."""
        folder = root / "sessions" / ".ds4-rebase" / "operations"
        ids, broken = [], []
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                record = parse_journal(path.read_bytes())
                if not isinstance(record, dict) or record.get("id") != path.stem:
                    raise ValueError("not this operation's record")
            except Exception as error:
                broken.append(Broken("journal-valid-or-absent", f"{path.name}: {error}"))
            if path.stem not in self.earlier_operations:
                ids.append(path.stem)
        return ids, broken

    def recovery_session(self, root: Path) -> Path:
        """The session ``--recover`` runs from: the source."""
        return root / self.session

    def recover(self, root: Path) -> tuple[Outcome, Checked]:
        """The invariants of a state, and recovery's outcome: ``--recover`` of the surviving
        journal's operation, or a fresh rebase where no journal survived."""
        broken = self._shape(root, "after the crash")
        ids, journal_broken = self._journals(root)
        broken += journal_broken
        targets = sorted(p.name for p in (root / "sessions").glob("ds4-rebase_*.jsonl")
                         if p.name not in self.earlier_targets)
        if ids:
            outcome = run_cli(root, rebase_argv(root, self.recovery_session(root), "--recover", ids[0]))
        else:
            outcome = self._rebase(root)
        broken += no_traceback(outcome) or documented_refusal(outcome)
        if targets and not verified(outcome):  # a target is installed only once its journal is durable
            broken.append(Broken("target-recovers", f"{targets[0]} is there, and recovery ended {ended(outcome)}"))
        broken += self._shape(root, "after recovery")
        if verified(outcome):
            left = [p.name for p in (root / "sessions").rglob("*.tmp")]
            if left:
                broken.append(Broken("no-temporary-after-recovery", ", ".join(sorted(left))))
        return outcome, Checked(tuple(broken), ("recover: " if ids else "fresh run: ") + ended(outcome))

    def check(self, root: Path) -> Checked:
        return self.recover(root)[1]


def rebase_argv(root: Path, session: Path, *extra: str) -> list[str]:
    """The command line of a rebase of ``session`` from the workload's project."""
    return ["rebase", "--session", str(session), "--approve", "--json", "--cwd", str(root / "project"), *extra]


def verified(outcome: Outcome) -> bool:
    """The command printed a verified result."""
    return outcome.traceback is None and '"status":"verified"' in outcome.stdout.replace(" ", "")


class RecoveryRun(RebaseRun):
    """A rebase killed at one crash point (a child process, before the recording), then the
    recorded ``rebase --recover OP`` that finishes it; invariants as for a rebase run."""

    def __init__(self, point: str) -> None:
        super().__init__()
        self.point = point
        self.name = f"recover-{point}"
        self.operation = ""

    def prepare(self, root: Path) -> None:
        super().prepare(root)
        died = crash_cli(root, rebase_argv(root, root / self.session), self.point)
        if died != CRASH_EXIT_CODE:
            raise RuntimeError(f"the rebase armed at {self.point} ended with {died}, not the crash")
        self.operation = self._journals(root)[0][0]

    def run(self, root: Path) -> None:
        outcome = self._rebase(root, "--recover", self.operation)
        if not verified(outcome):
            raise RuntimeError(f"the recovery itself failed: {outcome}")


#: What the lineage recall asks from the second target: text only the first source holds.
LINEAGE_QUERIES: Final = ("step 3", "step 6")


class LineageRun(RebaseRun):
    """A rebase of a rebased session: the source rebased first (not recorded), then the recorded
    rebase of that target.  Invariants as for a rebase run (both earlier sessions' bytes kept),
    and the lineage still verifies: in every state the first operation's ``--recover`` ends
    verified, and once the second is verified a ``current-lineage`` recall from the new target
    answers as the same recall against a fresh index in another folder."""

    name = "rebase-lineage"

    def __init__(self) -> None:
        super().__init__()
        self.first_operation = ""
        self.answers: tuple[str, ...] = ()

    def prepare(self, root: Path) -> None:
        super().prepare(root)
        first = self._rebase(root)
        if not verified(first):
            raise RuntimeError(f"the first rebase failed: {first}")
        self.first_operation = str(json.loads(first.stdout)["operationId"])
        target = self._new_target(root)
        self.earlier_targets = frozenset({target.name})
        self.earlier_operations = frozenset({self.first_operation})
        self.session = target.relative_to(root).as_posix()
        self.unchanged[self.session] = target.read_bytes()

    def _new_target(self, root: Path) -> Path:
        made = [p for p in (root / "sessions").glob("ds4-rebase_*.jsonl") if p.name not in self.earlier_targets]
        if len(made) != 1:
            raise RuntimeError(f"expected one new target, found {made}")
        return made[0]

    def recovery_session(self, root: Path) -> Path:
        """The new target when there is one, else the first target (this run's source): a
        session with a verified lineage recovers from its lineage's first source (contract
        C6.2-13), so the second operation recovers only from its own target."""
        made = [p for p in (root / "sessions").glob("ds4-rebase_*.jsonl") if p.name not in self.earlier_targets]
        return made[0] if len(made) == 1 else root / self.session

    def _lineage_answers(self, root: Path, *index: str) -> tuple[str, ...]:
        target = self._new_target(root)
        return tuple(recall_answer(run_cli(root, search_argv(root, target, query, "--scope", "current-lineage", *index)))
                     for query in LINEAGE_QUERIES)

    def run(self, root: Path) -> None:
        super().run(root)
        with fresh_index(root) as index:
            self.answers = unrecorded(lambda: self._lineage_answers(root, "--index", str(index)))

    def check(self, root: Path) -> Checked:
        outcome, checked = self.recover(root)
        broken = list(checked.broken)
        first = run_cli(root, rebase_argv(root, root / self.session, "--recover", self.first_operation))
        if not verified(first):
            broken.append(Broken("lineage-verifies", f"--recover of the first operation: {ended(first)}"))
        if not verified(outcome):
            return Checked(tuple(broken), checked.ended)
        answers = self._lineage_answers(root)
        for query, answer, expected in zip(LINEAGE_QUERIES, answers, self.answers, strict=True):
            if answer != expected:
                broken.append(Broken("lineage-verifies", f"current-lineage recall of {query!r}: {answer[:300]}"))
        return Checked(tuple(broken), checked.ended)
