"""Steps of the scenarios written for contract §2.1-§2.9 clauses that no scenario checked (issue 26)."""

from __future__ import annotations

from pathlib import Path

from pytest_bdd import when

from conformance.protocol import Adapter
from conformance.steps.history_calls import open_history
from conformance.world import HistoryWorld


@when("the history host opens the current session with an index path under a regular file")
def when_open_index_under_file(adapter: Adapter, history: HistoryWorld, workdir: Path) -> None:
    """No index can be opened there: its folder would be a file (contract §2.4: no database)."""
    blocker = workdir / "not-a-folder"
    blocker.write_text("a regular file where the index folder would be\n", encoding="utf-8")
    open_history(adapter, history, indexPath=str(blocker / "index.sqlite"))
