"""The index workloads: an index build of a session, and a catch-up after the session grew.  The
index is SQLite, a unit (``crashsim.capture``); the invariant: after catch-up, in every state,
recall answers exactly as a fresh rebuild from the JSONL does (the same JSON but the random
``sourceRef``s), and never with a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Final

from crashsim.running import (
    Broken,
    Checked,
    Outcome,
    ended,
    fresh_index,
    no_traceback,
    recall_answer,
    run_cli,
    search_argv,
    session_bytes,
    unrecorded,
)

#: Recall's questions: text of the first entries, of the last ones, and of every entry.
QUERIES: Final = ("step 3", "step 29", "step")
#: Entries at the build, and after the session grew.
FIRST_ENTRIES: Final = 20
GROWN_ENTRIES: Final = 30


class IndexBuild:
    """``recall-rebase history index --session S`` of a session no index has seen yet."""

    name = "index-build"
    entries = GROWN_ENTRIES

    def __init__(self) -> None:
        self.answers: tuple[str, ...] = ()

    @staticmethod
    def _session(root: Path) -> Path:
        """The session, in a folder beside the workload's: no recorded step writes it, and a crash
        state is written over the workload's folder only, so the session keeps its inode, size,
        mtime and ctime, which catch-up compares (a copy would always be rebuilt as changed)."""
        return root.with_name(root.name + "-sessions") / "history.jsonl"

    def _index(self, root: Path, *extra: str) -> Outcome:
        return run_cli(root, ["history", "index", "--session", str(self._session(root)), "--approve", "--json",
                              "--cwd", str(root / "project"), *extra])

    def _answers(self, root: Path, *index: str) -> tuple[str, ...]:
        return tuple(recall_answer(run_cli(root, search_argv(root, self._session(root), query, "--scope",
                                                             "current-session", *index)))
                     for query in QUERIES)

    def prepare(self, root: Path) -> None:
        (root / "project").mkdir(parents=True)
        (root / "home").mkdir()
        shutil.rmtree(self._session(root).parent, ignore_errors=True)
        self._session(root).parent.mkdir(mode=0o700)
        self._session(root).write_bytes(session_bytes(root / "project", range(1, self.entries + 1)))

    def run(self, root: Path) -> None:
        outcome = self._index(root)
        if outcome.code != 0:
            raise RuntimeError(f"the workload itself failed: {outcome}")
        with fresh_index(root) as index:
            self.answers = unrecorded(lambda: self._answers(root, "--index", str(index)))

    def check(self, root: Path) -> Checked:
        caught_up = self._index(root)
        broken = no_traceback(caught_up)
        for query, answer, expected in zip(QUERIES, self._answers(root), self.answers, strict=True):
            if answer != expected:
                broken.append(Broken("recall-as-fresh-rebuild", f"{query!r}: {answer[:300]}"))
        return Checked(tuple(broken), "catch-up: " + _ending(caught_up))


def _ending(outcome: Outcome) -> str:
    """How ``history index`` ended: ``rebuilt <reason>``, ``appended``, ``unchanged``, or as
    :func:`~crashsim.running.ended` says when it printed no index state."""
    try:
        state = json.loads(outcome.stdout)
    except ValueError:
        return ended(outcome)
    if not isinstance(state, dict) or "rebuilt" not in state:
        return ended(outcome)
    if state["rebuilt"]:
        return f"rebuilt {state.get('rebuildReason')}"
    return "appended" if state.get("appended") else "unchanged"


class IndexCatchUp(IndexBuild):
    """The index built at the first entries (before the recording), the session grown, then the
    recorded ``history index`` that catches it up."""

    name = "index-catchup"
    entries = FIRST_ENTRIES

    def prepare(self, root: Path) -> None:
        super().prepare(root)
        built = self._index(root)
        if built.code != 0:
            raise RuntimeError(f"the first build failed: {built}")
        with self._session(root).open("ab") as session:
            session.write(session_bytes(root / "project", range(FIRST_ENTRIES + 1, GROWN_ENTRIES + 1)))
