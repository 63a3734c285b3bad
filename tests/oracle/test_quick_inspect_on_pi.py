"""The quick ``session inspect`` on sessions the real Pi 0.84.3 wrote: the block read takes every
one of them, and its JSON and summary are the exact path's bytes at every leaf (the exact path
is compared with Pi's own reading in test_context_matches_pi.py)."""

from __future__ import annotations

import os
from pathlib import Path

from testkit import pi_oracle as _pi
from testkit.inspect_equality import assert_same_inspection

SEED = int(os.environ.get("PI_ORACLE_SEED", "20250601"))


def test_pi_written_sessions_take_the_quick_path_with_the_exact_answer(tmp_path: Path) -> None:
    manifest = _pi.generate_sessions(tmp_path / "sessions", seed=SEED + 13, count=24, tour=True)
    files = [Path(s["file"]) for s in manifest["sessions"]]
    files += [Path(f) for f in manifest["tour"]["files"].values()]
    assert len(files) >= 20
    for path in files:
        assert_same_inspection(path, quick=True)
