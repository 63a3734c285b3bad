"""A run is the suite's alone: pytest plugins installed beside the toolkit, ``PYTEST_ADDOPTS`` and
``PYTEST_PLUGINS`` change nothing in it, in one process, in workers (``-j 2``) and over ``--stdio``.

A port author's environment often has pytest-randomly, pytest-xdist or their own plugins; before
this held, an installed plugin's autouse fixture turned every row into ERROR."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = '''\
import os, pytest

@pytest.fixture(autouse=True)
def _spoil():
    with open(os.environ["SPOILER_MARK"], "a", encoding="utf-8") as mark:
        mark.write("loaded\\n")
    raise RuntimeError("an installed pytest plugin spoiled this row")
'''

RUNS = {
    "one process": [],
    "two workers": ["-j", "2"],
    "over --stdio": ["--stdio", "--", sys.executable, "-m", "reference.cli", "host", "--stdio"],
}


def _installed_plugin(folder: Path) -> Path:
    """A distribution on ``sys.path`` whose ``pytest11`` entry point pytest loads by default."""
    folder.mkdir()
    (folder / "spoiler_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = folder / "spoiler_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: spoiler-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[pytest11]\nspoiler = spoiler_plugin\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("run", list(RUNS))
def test_installed_plugins_and_pytest_environment_variables_do_not_reach_a_run(tmp_path: Path, run: str) -> None:
    site = _installed_plugin(tmp_path / "site")
    mark, report = tmp_path / "loaded", tmp_path / "report.ndjson"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
                   "SPOILER_MARK": str(mark), "PYTEST_PLUGINS": "spoiler_plugin",
                   "PYTEST_ADDOPTS": "--collect-only -p spoiler_plugin"}
    done = subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "run", "--only", "PRIM-001",
                           "--report", str(report), *RUNS[run]],
                          capture_output=True, text=True, timeout=300, env=environment)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not mark.exists(), "the installed plugin ran inside the conformance run"
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    statuses = [row["status"] for row in rows if row["type"] == "result"]
    assert len(statuses) == 17 and set(statuses) == {"PASS"}
    assert "spoiled" not in done.stdout + done.stderr
