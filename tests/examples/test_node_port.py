"""The example Node port (``examples/ports/node``) passes every scenario of the areas it implements.

The areas it does not implement are the ``AREA-*`` ``skip`` expectations of its manifest
(``examples/ports/node/expectations.toml``); every other area of ``conformance list`` is run over
``--stdio`` and must pass, but for the few scenarios the manifest skips by id because they also
need an operation of an area the port does not implement (``history.open``). The handshake and
the protocol lines are checked against ``schemas/adapter/v1`` too: the port is the proof that the
protocol does not lean on Python.
"""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from testkit.paths import REPO_ROOT

from conformance import schemas

PORT_DIR = REPO_ROOT / "examples" / "ports" / "node"
PORT = PORT_DIR / "port.mjs"
EXPECTATIONS = PORT_DIR / "expectations.toml"
RECALL_REBASE = [sys.executable, "-m", "reference.cli"]
PORT_OPERATIONS = {"json.canonicalize", "text.measure", "text.slice", "path.canonical", "path.sessionDirName",
                   "session.records", "session.inspect", "session.node", "host.facts", "config.show", "config.set",
                   "config.unset"}
IMPLEMENTED = {"PRIM", "READER", "TREE", "CONTEXT", "TOOLX", "HOST", "CONFIG"}
WHOLE_AREA = "-*"


def _manifest() -> dict[str, Any]:
    with EXPECTATIONS.open("rb") as stream:
        return tomllib.load(stream)


def _suite_ids() -> list[str]:
    done = subprocess.run([*RECALL_REBASE, "conformance", "list", "--json"], capture_output=True, text=True,
                          timeout=120, check=True)
    listed = json.loads(done.stdout)
    return [item if isinstance(item, str) else item["id"] for item in listed]


def _area(scenario_id: str) -> str:
    return scenario_id.split("-", 1)[0]


def _scenario(row_id: str) -> str:
    """``READER-021`` of a row id ``READER-021[linear]``."""
    return row_id.split("[", 1)[0]


def _skipped_areas() -> set[str]:
    """The areas the manifest skips whole (``AREA-*``)."""
    return {item["id"].removesuffix(WHOLE_AREA) for item in _manifest()["expectation"] if item["id"].endswith(WHOLE_AREA)}


def _skipped_scenarios() -> set[str]:
    """The scenarios the manifest skips by id, in areas the port implements."""
    return {item["id"] for item in _manifest()["expectation"] if not item["id"].endswith(WHOLE_AREA)}


def _implemented_areas() -> set[str]:
    """The areas that no ``AREA-*`` expectation of the manifest names."""
    return {_area(i) for i in _suite_ids()} - _skipped_areas()


def _exchange(node: Path, lines: list[dict[str, Any] | str]) -> tuple[list[dict[str, Any]], str]:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    done = subprocess.run([str(node), str(PORT)], input=text, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


@pytest.fixture(scope="module")
def node_run(node: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The whole suite against the port over ``--stdio`` with its manifest: the run and its report."""
    report = tmp_path_factory.mktemp("node-port") / "node-port.ndjson"
    done = subprocess.run(
        [*RECALL_REBASE, "conformance", "run", "--report", str(report), "--expectations", str(EXPECTATIONS),
         "--stdio", "--", str(node), str(PORT)],
        capture_output=True, text=True, timeout=600,
    )
    return done, report


def test_the_port_is_conformant_with_its_manifest_over_stdio(node_run: tuple[subprocess.CompletedProcess[str],
                                                                              Path]) -> None:
    """The whole suite with ``--expectations``: the implemented areas pass but for the scenarios
    skipped by id, the other areas are SKIP."""
    areas = _implemented_areas()
    assert areas == IMPLEMENTED, "the manifest and the README disagree"
    done, report = node_run
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("-> conformant"), done.stdout
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        assert [schemas.describe(e) for e in schemas.errors(line, "report/v1/report-line.schema.json")] == []
    header, *results, summary = lines
    assert header["implementation"] == {"name": _manifest()["implementation"], "version": "0.1.0",
                                        "language": "javascript"}
    statuses = {r["id"]: r["status"] for r in results}
    ran = {i: s for i, s in statuses.items() if _area(i) in areas}
    assert {_scenario(i) for i in ran} == {_scenario(i) for i in _suite_ids() if _area(i) in areas}
    by_id = _skipped_scenarios()
    assert {i: s for i, s in ran.items() if s != "PASS"} == {i: "SKIP" for i in ran if _scenario(i) in by_id}
    assert {s for i, s in statuses.items() if _area(i) not in areas} == {"SKIP"}
    assert summary["conformant"] is True


def test_the_readme_shows_the_summary_of_the_reference_and_the_port(
        node_run: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path) -> None:
    """README.md's table is ``conformance summary`` of a reference run and this port's run, today."""
    reference = tmp_path / "reference.ndjson"  # two workers: the whole suite is most of this env's time
    subprocess.run([*RECALL_REBASE, "conformance", "run", "-j", "2", "--report", str(reference)],
                   capture_output=True, text=True, timeout=600, check=False)
    check = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "readme_summary.py"), str(reference),
                            str(node_run[1]), "--check"], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, (f"{check.stdout}{check.stderr}: run `python tools/readme_summary.py "
                                   "REFERENCE_REPORT NODE_REPORT` to rewrite it")


def test_the_docs_state_the_port_counts_of_this_run(node_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """README.md's areas and rows of the port and its own README's table and counts are what this
    run reports (``tools/readme_summary.py`` writes them between markers from the port's report)."""
    check = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "readme_summary.py"), str(node_run[1]),
                            "--check"], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, (f"{check.stdout}{check.stderr}: run `python tools/readme_summary.py "
                                   "NODE_REPORT` to rewrite them")
    assert check.stdout.strip() == "docs: up to date"


def test_the_manifest_skips_every_other_area_and_names_only_known_ones() -> None:
    manifest = _manifest()
    ids = _suite_ids()
    assert manifest["implementation"] == "recall-rebase-node-example"
    for item in manifest["expectation"]:
        assert item["status"] == "skip" and item["reason"].startswith("not implemented in the example port")
        assert any(fnmatch.fnmatchcase(i, item["id"]) or _scenario(i) == item["id"] for i in ids), \
            f"{item['id']} names no scenario"
    assert _skipped_areas() | _implemented_areas() == {_area(i) for i in ids}
    assert not _skipped_areas() & _implemented_areas()
    for scenario in _skipped_scenarios():  # skipped by id: a scenario of an implemented area, needing history.*
        assert scenario in {_scenario(i) for i in ids} and _area(scenario) in IMPLEMENTED, scenario
        reason = next(item["reason"] for item in manifest["expectation"] if item["id"] == scenario)
        assert "history.open" in reason, f"{scenario}: the reason names the operation it also needs"


def test_the_handshake_declares_exactly_what_the_port_implements(node: Path, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_bytes(b'{"type":"session","version":3,"id":"s","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}\n')
    requests: list[dict[str, Any] | str] = [
        {"seq": 1, "cmd": "start", "protocolVersion": 1},
        {"seq": 2, "cmd": "request", "op": "session.records", "params": {"path": str(session)}},
        {"seq": 3, "cmd": "request", "op": "rebase.run", "params": {}},
        {"seq": 4, "cmd": "request", "op": "text.slice", "params": {"text": "x", "maxUnits": -1}},
        "this is not json",
        {"seq": 6, "cmd": "stop"},
        {"seq": 7, "cmd": "stop"},
    ]
    responses, stderr = _exchange(node, requests)
    assert [r["seq"] for r in responses] == [1, 2, 3, 4, None, 6], "one response per request, none after stop"
    for response in responses:
        assert [schemas.describe(e) for e in schemas.errors(response, "adapter/v1/message.schema.json")] == []
    hello = responses[0]["ok"]
    assert set(hello["operations"]) == PORT_OPERATIONS and len(hello["operations"]) == len(PORT_OPERATIONS)
    assert hello["implementation"]["language"] == "javascript"
    records = responses[1]["ok"]["records"]
    assert [(r["kind"], r["start"], r["end"], r["id"]) for r in records] == [("header", 0, session.stat().st_size, "s")]
    assert responses[2]["error"]["code"] == "unknown-operation"
    assert responses[3]["error"]["code"] == "invalid-params"
    assert responses[4]["errored"] is True
    assert "serving protocol 1" in stderr, "logs go to stderr"


def test_a_wrong_protocol_version_is_refused(node: Path) -> None:
    responses, _ = _exchange(node, [{"seq": 1, "cmd": "start", "protocolVersion": 2}, {"seq": 2, "cmd": "stop"}])
    assert responses[0]["error"]["code"] == "unsupported-protocol-version"
    assert responses[1] == {"seq": 2, "ok": {}}
