"""Steps of the scenarios written for clauses no row checked (issue 26, helper H1).

The runtime project path (contract §0.2) is the real path of Pi's working directory: a host whose
``cwd`` is a symbolic link to the project folder is the same project as its real path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_bdd import parsers, when

from conformance.protocol import Adapter
from conformance.steps.history_calls import open_history
from conformance.world import HistoryWorld


@when(parsers.parse('the history host opens the current session from the working directory "{name}", '
                    'a symbolic link to the project folder'))
def when_open_through_link(adapter: Adapter, history: HistoryWorld, workdir: Path, name: str) -> None:
    link = workdir / name
    try:
        link.symlink_to(history.project.cwd, target_is_directory=True)
    except OSError as exc:  # Windows without the symlink privilege
        pytest.fail(f"this platform cannot create the symbolic link this scenario needs: {exc}")
    open_history(adapter, history, provider="openai", cwd=str(link))
