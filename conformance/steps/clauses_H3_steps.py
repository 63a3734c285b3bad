"""Steps the issue 26 scenarios of contract §2.12 and §3.3 need: a result's coverage on its own, and
a project whose trust changes between two tool calls, and an index path that cannot be opened."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.history_calls import open_history
from conformance.steps.history_index_path_steps import GivenIndexPath
from conformance.world import HistoryWorld


@then(parsers.parse('the result has coverage "{coverage}"'))
def then_coverage(history: HistoryWorld, coverage: str) -> None:
    """§2.12: any warning makes status and coverage partial; coverage is its own field."""
    assert history.last["coverage"] == coverage, history.last


@when(parsers.parse("the history project becomes {trust}"))
def when_trust_changes(history: HistoryWorld, trust: str) -> None:
    """Pi's trust decision for the project changes; the next ``history.open`` carries it."""
    assert trust in ("trusted", "untrusted"), trust
    history.setup = replace(history.project, trusted=trust == "trusted")


@given("the history index path lies inside a regular file")
@when("the history index path lies inside a regular file")
def given_index_under_a_file(workdir: Path, given_index_path: GivenIndexPath) -> None:
    """An index path no implementation can open or create: its folder is a regular file."""
    others = workdir / "others"
    others.mkdir(parents=True, exist_ok=True)
    blocker = others / "not-a-folder"
    blocker.write_text("a regular file where the index folder would be\n", encoding="utf-8")
    given_index_path.path = blocker / "index.sqlite"


@when("the history host opens a session that has no file with that index")
def when_open_ephemeral_with_index(adapter: Adapter, history: HistoryWorld, given_index_path: GivenIndexPath) -> None:
    """A session that was never written (``ephemeral-session``) over the index path given before,
    so a call fails two checks at once (contract §2.4, §4: runtime access comes first)."""
    open_history(adapter, history, provider="openai", sessionFile=str(history.project.folder / "never-written.jsonl"),
                 indexPath=str(given_index_path.given))
