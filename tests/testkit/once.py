"""A session fixture's value computed once per test run, even across pytest-xdist workers.

Each xdist worker is its own pytest session, so a ``scope="session"`` fixture runs once per
worker. For the costly ones (a whole conformance run is about a minute) the first worker to ask
computes the value under a file lock in the run's shared temporary folder and writes it as JSON;
the others read it. Without xdist it is computed directly. The pattern is pytest-xdist's own
(its documentation, "Making session-scoped fixtures execute only once"), with filelock.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from filelock import FileLock


def once_per_test_run(factory: pytest.TempPathFactory, name: str, compute: Callable[[], Any]) -> Any:
    """``compute()``'s JSON value, computed by one worker of this test run and read by the others."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return compute()
    shared = factory.getbasetemp().parent  # the run's folder; each worker's basetemp is a child
    stored = shared / f"{name}.json"
    with FileLock(str(stored) + ".lock"):
        if stored.is_file():
            return json.loads(stored.read_text(encoding="utf-8"))
        value = compute()
        stored.write_text(json.dumps(value), encoding="utf-8")
        return value
