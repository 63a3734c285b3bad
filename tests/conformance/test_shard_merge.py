"""``conformance run --shard K/N`` on N machines and ``conformance merge``: one run's report again.

A row's shard is a hash of its scenario id, so it is the same whatever the selection and on every
machine; ``merge`` adds shards 1 to N of one run up to the report of the unsharded run, and refuses
with one coded line what does not add up. The whole suite, sharded and merged, is the unsharded run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from testkit.conformance_runs import Outcome, conformance

from conformance import reports, row_status, schemas
from conformance.cli import main as conformance_main
from conformance.selection import Selection, selected_rows
from conformance.shard_merge import SHARDS_MISMATCH
from conformance.shards import MachineShard

IMPLEMENTATION = {"name": "some-port", "version": "1.0", "language": "python"}
ALL_ROWS = [row.id for row in selected_rows(Selection())]


def _one_line(err: str, code: str) -> None:
    assert err.startswith(f"recall-rebase: {code}: ") and len(err.splitlines()) == 1, err


# ----------------------------------------------------------------- which shard a row is in


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_the_shards_partition_the_suite_and_a_row_keeps_its_shard_whatever_the_selection(count: int) -> None:
    shards = [MachineShard(index, count) for index in range(1, count + 1)]
    shares = [[row for row in ALL_ROWS if shard.holds(row)] for shard in shards]
    assert sorted(row for share in shares for row in share) == sorted(ALL_ROWS)
    assert sum(map(len, shares)) == len(ALL_ROWS)
    prim = [row.id for row in selected_rows(Selection(areas=("PRIM",)))]
    for shard, share in zip(shards, shares, strict=True):
        assert [row for row in prim if shard.holds(row)] == [row for row in share if row.startswith("PRIM-")]
    outline = [row for row in ALL_ROWS if row.startswith("PRIM-003[")]
    assert len({MachineShard.of(row, count) for row in outline}) == 1  # an outline's rows stay together


def test_the_shard_of_a_row_is_a_hash_every_machine_computes_alike() -> None:
    # pinned: Python's hash() (salted per process) or a position in the selection would move them
    assert [MachineShard.of(row, 4) for row in ("PRIM-001", "PRIM-003[accent]", "READER-021[linear]", "TREE-001")] \
        == [2, 3, 4, 1]


@pytest.mark.parametrize("value", ["0/2", "3/2", "a/b", "1/0", "1", "1/2/3", "", "-1/2", " 1/2"])
def test_a_bad_shard_is_one_usage_line(capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert conformance_main(["run", "--shard", value, "--area", "PRIM"]) == 2
    captured = capsys.readouterr()
    _one_line(captured.err, "usage")
    assert "--shard" in captured.err and captured.out == ""


# ----------------------------------------------------------------- merge: shards made here


def _shard_report(path: Path, index: int | None, count: int, *, selection: str = "",
                  implementation: dict[str, str] | None = None, suite_version: str = "0.1.0",
                  rows: list[str] | None = None) -> Path:
    """A valid report of shard ``index``/``count`` (None: no shard in the header) with PASS rows."""
    chosen = rows if rows is not None else [row for row in ALL_ROWS if row.startswith("PRIM-")
                                            and (index is None or MachineShard.of(row, count) == index)]
    results = [{**row_status.new_row(row, "Primitives", row), "status": "PASS", "message": ""} for row in chosen]
    header: dict[str, Any] = {"type": "header", "suite_version": suite_version, "contract_version": 4,
                              "protocol_version": 1, "implementation": implementation or IMPLEMENTATION,
                              "run_info": {"os": "Linux", "python": "3.11", "adapter": "./port"},
                              "started": f"2026-12-05T08:0{index or 0}:00Z"}
    if index is not None:
        header["shard"] = {"index": index, "count": count, "selection": selection}
    reports.write_report(path, reports.Report(header, results, reports.summary_line(header, results)))
    return path


def test_merge_adds_the_shards_up_to_one_report_in_any_order(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    paths = [_shard_report(tmp_path / f"s{index}.ndjson", index, 3) for index in (3, 1, 2)]
    full = tmp_path / "full.ndjson"
    assert conformance_main(["merge", *map(str, paths), "-o", str(full)]) == 0
    merged = reports.read_report(full)
    assert "shard" not in merged.header and merged.implementation == IMPLEMENTATION
    assert [row["id"] for row in merged.results] == sorted(row for row in ALL_ROWS if row.startswith("PRIM-"))
    assert merged.summary["conformant"] and merged.header["started"] == "2026-12-05T08:01:00Z"
    assert "merged 3 shards of some-port 1.0" in capsys.readouterr().out
    assert conformance_main(["merge", *map(str, paths), "-o", str(full), "--json"]) == 0  # an earlier report: replaced
    document = json.loads(capsys.readouterr().out)
    assert document["shards"] == 3 and document["summary"]["total"] == len(merged.results)


REFUSALS: dict[str, tuple[list[dict[str, Any]], str, str]] = {
    "shard 1/2 twice": ([{"index": 1, "count": 2}, {"index": 1, "count": 2}], SHARDS_MISMATCH, "both shard 1/2"),
    "shards of different N": ([{"index": 1, "count": 2}, {"index": 2, "count": 3}], SHARDS_MISMATCH,
                              "different shard counts"),
    "a missing shard": ([{"index": 1, "count": 3}, {"index": 3, "count": 3}], SHARDS_MISMATCH, "shard 2/3 is missing"),
    "one shard of two": ([{"index": 2, "count": 2}], SHARDS_MISMATCH, "shard 1/2 is missing"),
    "different implementations": ([{"index": 1, "count": 2},
                                   {"index": 2, "count": 2, "implementation": {**IMPLEMENTATION, "version": "2.0"}}],
                                  SHARDS_MISMATCH, "different implementations"),
    "different suite versions": ([{"index": 1, "count": 2}, {"index": 2, "count": 2, "suite_version": "0.2.0"}],
                                 SHARDS_MISMATCH, "different suite versions"),
    "different selections": ([{"index": 1, "count": 2, "selection": "--area PRIM"}, {"index": 2, "count": 2}],
                             SHARDS_MISMATCH, "different selections"),
    "not a shard": ([{"index": None, "count": 1}], SHARDS_MISMATCH, "is not the report of a shard"),
    "a row of another shard": ([{"index": 1, "count": 2, "rows": ["PRIM-001"]}, {"index": 2, "count": 2}],
                               SHARDS_MISMATCH, "the row PRIM-001, which is not of shard 1/2"),
}


@pytest.mark.parametrize(("shards", "code", "words"), REFUSALS.values(), ids=REFUSALS.keys())
def test_merge_refuses_shards_that_do_not_add_up_with_one_coded_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], shards: list[dict[str, Any]], code: str,
        words: str) -> None:
    paths = [str(_shard_report(tmp_path / f"s{n}.ndjson", **shard)) for n, shard in enumerate(shards)]
    full = tmp_path / "full.ndjson"
    assert conformance_main(["merge", *paths, "-o", str(full)]) == 2
    captured = capsys.readouterr()
    _one_line(captured.err, code)
    assert words in captured.err and captured.out == "" and not full.exists()
    assert conformance_main(["merge", *paths, "-o", str(full), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["code"] == code


def test_merge_refuses_an_invalid_report_and_an_output_it_must_not_replace(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = [str(_shard_report(tmp_path / f"s{index}.ndjson", index, 2)) for index in (1, 2)]
    broken = tmp_path / "broken.ndjson"
    broken.write_text('{"type": "header"}\n', encoding="utf-8")
    assert conformance_main(["merge", good[0], str(broken), "-o", str(tmp_path / "full.ndjson")]) == 2
    _one_line(capsys.readouterr().err, reports.REPORT_INVALID)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    assert conformance_main(["merge", *good, "-o", str(notes)]) == 2
    _one_line(capsys.readouterr().err, "output-unwritable")
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    assert conformance_main(["merge", *good]) == 2  # -o is required
    _one_line(capsys.readouterr().err, "usage")


# ----------------------------------------------------------------- real runs


def test_a_shard_run_says_its_shard_and_runs_only_its_rows_and_an_empty_shard_is_no_failure(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two = tmp_path / "one.ndjson", tmp_path / "two.ndjson"
    assert conformance_main(["run", "--area", "prim", "--shard", "1/2", "--report", str(one), "--no-progress"]) == 0
    assert "implementation: recall-rebase-reference 0.1.0 (python), shard 1/2\n" in capsys.readouterr().out
    assert conformance_main(["run", "--area", "PRIM", "--shard", "2/2", "-j", "2", "--report", str(two),
                             "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["shard"] == {"index": 2, "count": 2, "selection": "--area PRIM"}
    first, second = reports.read_report(one), reports.read_report(two)
    assert first.header["shard"] == {"index": 1, "count": 2, "selection": "--area PRIM"}
    assert second.header["shard"] == {"index": 2, "count": 2, "selection": "--area PRIM"}  # -j: its workers' merge
    for report, index in ((first, 1), (second, 2)):
        assert report.results and all(MachineShard.of(row["id"], 2) == index for row in report.results)
    prim = [row for row in ALL_ROWS if row.startswith("PRIM-")]
    assert sorted(row["id"] for report in (first, second) for row in report.results) == sorted(prim)
    capsys.readouterr()
    other = 3 - MachineShard.of("PRIM-001", 2)  # the shard PRIM-001 is not in
    empty = tmp_path / "empty.ndjson"
    assert conformance_main(["run", "--id", "PRIM-001", "--shard", f"{other}/2", "--report", str(empty),
                             "--no-progress"]) == 0
    assert "holds none of the selected rows" in capsys.readouterr().err
    assert reports.read_report(empty).results == []


def test_the_whole_suite_over_stdio_sharded_on_three_machines_and_merged_is_the_unsharded_run(
        tmp_path: Path, reference_run: Outcome) -> None:
    """Two promises for the price of one whole run (the most expensive thing the tests do): the
    suite over ``host --stdio``, every message held to the schemas (``-V``), run as three shards
    (``-j 2``, ``-j 1``, ``-j 2``) and merged, is the unsharded in-process run (the session's
    shared run of the reference, conftest.py): the same rows, statuses and counts, all PASS."""
    unsharded = reference_run
    assert unsharded.code == 0, unsharded.stderr[-2000:]
    assert "conformant" in unsharded.stdout + unsharded.stderr
    shards = []
    for index, jobs in ((1, "2"), (2, "1"), (3, "2")):
        path = tmp_path / f"shard-{index}.ndjson"
        ran = conformance("run", "--shard", f"{index}/3", "-j", jobs, "-V", "--report", path, "--no-progress",
                          "--stdio", "--", sys.executable, "-m", "reference.cli", "host", "--stdio", report=path)
        assert ran.code == 0, ran.stderr[-2000:]
        assert ran.lines[0]["shard"] == {"index": index, "count": 3, "selection": ""}
        assert "--stdio" in ran.stdout + ran.stderr
        shards.append(path)
    full = tmp_path / "full.ndjson"
    merged = conformance("merge", shards[2], shards[0], shards[1], "-o", full, report=full)
    assert merged.code == 0, merged.stderr
    assert merged.statuses() == unsharded.statuses() and len(merged.statuses()) == len(ALL_ROWS)
    assert set(merged.statuses().values()) == {"PASS"}
    assert conformance("validate-report", full).code == 0
    for line in unsharded.lines + merged.lines:
        assert [schemas.describe(e) for e in schemas.errors(line, "report/v1/report-line.schema.json")] == []
    assert merged.lines[-1]["counts"] == unsharded.lines[-1]["counts"]
    listed = conformance("list", "--json")
    assert sorted(merged.statuses()) == [row["id"] for row in json.loads(listed.stdout)]  # list: the rows a run reports


def test_a_shard_header_is_valid_and_a_shard_numbered_from_zero_is_not(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = _shard_report(tmp_path / "s1.ndjson", 1, 2)
    assert conformance_main(["validate-report", str(path)]) == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["shard"]["index"] = 0
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    assert conformance_main(["validate-report", str(path)]) == 1
    assert "shard" in capsys.readouterr().out
