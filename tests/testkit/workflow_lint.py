"""The two linters of a GitHub workflow file, both wheels of the ``test`` extra: zizmor
(``--offline``: template injection, unpinned actions, credentials, permissions, ...) and
check-jsonschema's vendored GitHub workflow schema (keys, types, structure)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Final

ZIZMOR: Final = Path(sysconfig.get_path("scripts")) / ("zizmor.exe" if sys.platform == "win32" else "zizmor")


def zizmor(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ZIZMOR), "--offline", "--no-progress", str(path)], capture_output=True,
                          text=True, timeout=120)


def schema_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(path)], capture_output=True, text=True, timeout=120)
