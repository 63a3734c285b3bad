"""The example Node port reads sessions exactly as the reference does, beyond the suite's scenarios.

Every packaged fixture and a set of seeded generated sessions (CRLF, torn tails, malformed and
blank lines, legacy versions, compactions, branches, 150 siblings) are read by both, over the same
protocol: ``session.records``, and ``session.inspect`` at the default leaf, the empty leaf and
every entry id. Results and refusal codes must be identical.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conformance import schemas
from conformance.protocol import ContractError
from conformance.stdio import SubprocessAdapter
from conformance.suite import fixture_manifest, fixture_path

GENERATED = {  # name -> fixtures generate options
    "plain": ["--sessions", "2", "--entries", "60"],
    "shaped": ["--entries", "120", "--compactions", "2", "--branches", "3", "--siblings", "150"],
    "damaged": ["--entries", "40", "--crlf", "--torn-tail", "--malformed", "3", "--blank", "2"],
    "legacy-1": ["--entries", "20", "--legacy", "1"],
    "legacy-2": ["--entries", "20", "--legacy", "2"],
    "header-only": ["--entries", "0"],
}


def _generated(folder: Path) -> list[Path]:
    for seed, (name, options) in enumerate(GENERATED.items(), 11):
        subprocess.run([sys.executable, "-m", "reference.cli", "fixtures", "generate", "--seed", str(seed),
                        "--out", str(folder / name), *options], capture_output=True, timeout=120, check=True)
    return sorted(folder.rglob("*.jsonl"))


def _answer(adapter: SubprocessAdapter, op: str, params: dict[str, Any], *, validated: bool = False) -> str:
    """The result as JSON text (key order is part of the contract), or the refusal's code;
    ``validated``: a result must match its schema in ``schemas/adapter/v1/operations.schema.json``."""
    try:
        result = adapter.request(op, params)
    except ContractError as error:
        return f"refused: {error.code}"
    shape = f"adapter/v1/operations.schema.json#/$defs/{op}/properties/result"
    assert not validated or [schemas.describe(e) for e in schemas.errors(result, shape)] == [], (op, params)
    return json.dumps(result, ensure_ascii=False)


def _leaves(records: str) -> list[Any]:
    listed = json.loads(records)["records"] if records.startswith("{") else []
    ids = [r["id"] for r in listed if r["kind"] == "entry" and "id" in r]
    return [*dict.fromkeys(ids), None, "no-such-entry"]


def test_records_and_inspection_agree_on_fixtures_and_generated_sessions(
    both: tuple[SubprocessAdapter, SubprocessAdapter], tmp_path: Path
) -> None:
    port, reference = both
    files = [fixture_path(fixture_id) for fixture_id in fixture_manifest()] + _generated(tmp_path)
    compared = 0
    for path in files:
        records = _answer(reference, "session.records", {"path": str(path)})
        assert _answer(port, "session.records", {"path": str(path)}, validated=True) == records, path.name
        requests = [{"path": str(path)}] + [{"path": str(path), "leaf": leaf} for leaf in _leaves(records)]
        for params in requests:
            expected = _answer(reference, "session.inspect", params)
            actual = _answer(port, "session.inspect", params, validated=True)
            assert actual == expected, (path.name, params.get("leaf"), actual[:400])
            compared += 1
    assert len(files) >= len(fixture_manifest()) + len(GENERATED) and compared > 300
