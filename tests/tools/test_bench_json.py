"""The benchmarks' machine-readable answers: figures are never asserted, but their shape and the
rows each design gives are (bench/fts_designs.py, bench/privacy.py)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reference.fixturegen.generator import generate
from reference.fixturegen.options import GenOptions
from reference.recall.catchup import catch_up
from reference.recall.index_schema import open_index

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def designs(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(BENCH))
    import fts_designs

    return fts_designs


def test_every_design_gives_its_rows_and_the_same_windows_as_the_recall(tmp_path: Path, designs: Any) -> None:
    made = generate(tmp_path / "sessions", GenOptions(seed=7, sessions=4, entries=300, cwd="/w"))
    conn = open_index(tmp_path / "index.sqlite")
    for item in made:
        catch_up(conn, str(item.path))
    conn.close()
    queries = ["Tests failed rejects empty input", "`src/cache.ts`", "pangolin narwhal okapi", "the"]
    result = designs.work_designs({"db": str(tmp_path / "index.sqlite"), "queries": queries, "rounds": 1})
    assert result["sessions"] == 4
    assert [row["query"] for row in result["queries"]] == queries[:3]  # "the" has no term
    for row in result["queries"]:
        assert set(row) == {"query", *designs.DESIGNS}
        assert row["rank-only"]["rows"] == row["shipped"]["rows"] <= 4 * 72
        assert row["floor"]["rows"] <= 72
        assert row["bm25 of every"]["rows"] >= row["filtered"]["rows"] == row["append bound"]["rows"]
        assert row["no-join bound"]["rows"] == row["bm25 of every"]["rows"]
        assert all(row[name]["cpu_ms"] >= 0 for name in designs.DESIGNS)
    broad = result["queries"][0]
    assert broad["shipped"]["rows"] > 0 and broad["filtered"]["rows"] > broad["floor"]["rows"]
    assert set(designs.summary(result)) == set(designs.DESIGNS)
    text = "\n".join(designs.render(result))
    assert all(name in text for name in designs.DESIGNS) and "x floor" in text


def test_the_privacy_benchmark_json_is_one_document_on_stdout() -> None:
    done = subprocess.run([sys.executable, str(BENCH / "run.py"), "privacy", "--only", "corpus", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    chosen = next(row for row in report["corpus"] if row["name"].startswith("chosen"))
    assert chosen["caught"] == chosen["total"] and chosen["flagged"] == 0
    assert "corpus:" in done.stderr  # the readable lines, out of the way


def test_a_project_where_nothing_matches_gives_no_ratio_rather_than_a_traceback(designs: Any) -> None:
    empty = {"queries": [], "sessions": 0}
    assert all(math.isnan(ratio) for ratio in designs.summary(empty).values())
    row = {"query": "q", **{name: {"cpu_ms": 0.0, "wall_ms": 0.0, "rows": 0} for name in designs.DESIGNS}}
    assert all(math.isnan(ratio) for ratio in designs.summary({"queries": [row], "sessions": 1}).values())
    assert "nan" in "\n".join(designs.render({"queries": [row], "sessions": 1}))

