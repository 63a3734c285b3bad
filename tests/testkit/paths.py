"""Where the checkout's folders are, for tests that read shipped files or start child processes."""

from __future__ import annotations

from pathlib import Path
from typing import Final

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
TESTS_ROOT: Final = REPO_ROOT / "tests"
DATA: Final = TESTS_ROOT / "data"
