"""``conformance smoke`` against the example Node port: its handshake and its twelve operations, in seconds."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from testkit.paths import REPO_ROOT

PORT = REPO_ROOT / "examples" / "ports" / "node" / "port.mjs"
SMOKE = [sys.executable, "-m", "reference.cli", "conformance", "smoke"]
PORT_OPERATIONS = ["host.facts", "config.show", "config.set", "config.unset", "session.records", "session.inspect",
                   "session.node", "json.canonicalize", "text.measure", "text.slice", "path.canonical",
                   "path.sessionDirName"]


def test_the_node_port_answers_each_declared_operation_once_well_formed(node: Path) -> None:
    began = time.monotonic()
    done = subprocess.run([*SMOKE, "--stdio", "--", str(node), str(PORT)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("handshake ok: recall-rebase-node-example ")
    assert [line.split()[0] for line in lines[1:-1]] == PORT_OPERATIONS
    assert all(line.split()[1] == "ok" for line in lines[1:-1]), lines
    assert time.monotonic() - began < 10


def test_the_node_ports_json_says_well_formed(node: Path) -> None:
    done = subprocess.run([*SMOKE, "--json", "--stdio", "--", str(node), str(PORT)], capture_output=True,
                          text=True, timeout=60, check=False)
    document = json.loads(done.stdout)
    assert done.returncode == 0 and document["wellFormed"] is True
    assert document["implementation"]["language"] == "javascript"
    assert [answer["operation"] for answer in document["answers"]] == PORT_OPERATIONS
