"""The reference expects nothing: its manifest stays empty and its run with it is conformant."""

from __future__ import annotations

import tomllib

from testkit.conformance_runs import Outcome, conformance
from testkit.paths import REPO_ROOT

from conformance.expectations import load_manifest

MANIFEST = REPO_ROOT / "expectations" / "reference.toml"


def test_the_reference_manifest_is_valid_and_empty() -> None:
    manifest = load_manifest(MANIFEST)
    assert manifest.implementation == "recall-rebase-reference"
    assert manifest.expectations == ()
    assert set(tomllib.loads(MANIFEST.read_text(encoding="utf-8"))) == {"implementation"}


def test_the_reference_run_with_its_manifest_is_conformant_with_every_scenario_passing(reference_run: Outcome) -> None:
    outcome = reference_run  # conftest.py: the whole suite in process with this manifest (and -V)
    assert outcome.code == 0, outcome.stdout[-3000:] + outcome.stderr
    statuses = outcome.statuses()
    assert len(statuses) >= 500
    assert set(statuses.values()) == {"PASS"}
    assert outcome.lines[-1]["conformant"] is True
    assert "expected: 0 expected failures, 0 skipped, 0 unsupported -> conformant" in outcome.stdout
    assert "warning" not in outcome.stderr
    assert conformance("check", "--expectations", MANIFEST, timeout=120).code == 0
