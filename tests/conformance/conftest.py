"""Fixtures the faulty-port and runner-signal tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit.ports import kill_recorded


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    """The faulty ports' folder (marker and pids); whatever they left is killed after the test."""
    folder = tmp_path / "port"
    folder.mkdir()
    yield folder
    kill_recorded(folder)
