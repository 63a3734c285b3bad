"""reference/primitives/codes.py is exactly what tools/generate_codes.py makes of the catalogue."""

from __future__ import annotations

import subprocess
import sys

from testkit.paths import REPO_ROOT

from reference.primitives.codes import GROUPS, Code


def test_the_generated_module_is_fresh() -> None:
    done = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "generate_codes.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_code_is_its_string() -> None:
    assert Code.HISTORY_UNAVAILABLE == "history-unavailable"
    assert f"{Code.REBASE_BUSY}" == "rebase-busy"


def test_every_code_stands_in_a_group() -> None:
    assert set().union(*GROUPS.values()) == set(Code)
