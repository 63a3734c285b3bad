"""The layer and independence contracts of pyproject.toml hold, and they catch a wrong import.

``lint-imports`` (import-linter) runs over a copy of the packages, so a deliberately wrong import
can be planted without touching the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _copy_tree(tmp_path: Path) -> Path:
    for package in ("reference", "conformance"):
        shutil.copytree(REPO_ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "_suite"))
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)})


def _plant(root: Path, module: str, line: str) -> None:
    path = root / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


def test_the_checkout_keeps_every_contract(tmp_path: Path) -> None:
    done = _lint(_copy_tree(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 4 kept, 0 broken." in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        # a lower layer reaching up
        ("reference/pi/exact/reader.py", "import reference.rebase.lock  # noqa", "reference layers"),
        ("reference/primitives/platform_ops/paths.py", "from reference.cli import main  # noqa", "reference layers"),
        # the toolkit reaching into the reference
        ("conformance/runner.py", "import reference.adapter.operations  # noqa", "the toolkit never imports the reference"),
        # the reference's core reaching into the toolkit
        ("reference/recall/refs.py", "import conformance.protocol  # noqa", "below the adapter"),
        # a cycle in the toolkit, closed by a function-local import or by one only a type checker reads
        ("conformance/statuses.py", "def _planted() -> None:\n    import conformance.reports  # noqa",
         "no import cycles"),
        ("conformance/statuses.py",
         "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from conformance.reports import Report  # noqa",
         "no import cycles"),
    ],
)
def test_a_wrong_import_breaks_its_contract(tmp_path: Path, module: str, line: str, contract: str) -> None:
    root = _copy_tree(tmp_path)
    _plant(root, module, line)
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    broken = done.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, done.stdout
