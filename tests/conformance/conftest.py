"""Fixtures the conformance tests share: the faulty ports' folder, and the reference's whole run."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit.conformance_runs import Outcome, conformance
from testkit.once import once_per_test_run
from testkit.paths import REPO_ROOT
from testkit.ports import kill_recorded

REFERENCE_MANIFEST = REPO_ROOT / "expectations" / "reference.toml"


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    """The faulty ports' folder (marker and pids); whatever they left is killed after the test."""
    folder = tmp_path / "port"
    folder.mkdir()
    yield folder
    kill_recorded(folder)


@pytest.fixture(scope="session")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    """The whole packaged suite against the in-process reference, with its manifest and every
    message held to the schemas (``-V``): about a minute, so run once for the tests that judge it
    (test_run.py, test_expectations_reference.py), across xdist workers too."""

    def run() -> dict[str, object]:
        report = tmp_path_factory.mktemp("reference-run") / "reference.ndjson"
        done = conformance("run", "-V", "--expectations", REFERENCE_MANIFEST, "--report", report, report=report,
                           timeout=900)
        return dataclasses.asdict(done)

    return Outcome(**once_per_test_run(tmp_path_factory, "reference-run", run))
