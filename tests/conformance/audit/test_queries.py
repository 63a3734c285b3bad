"""``recall-rebase audit sql|views|export``: the auditor's own queries over the named views.

Run as a child process (``python -m reference.cli audit ...``) on a real project, so the product
hands ``audit`` to the toolkit as a user sees it; every file is hashed before and after.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from testkit.audit_projects import Project, make_project

from conformance.audit.queries import VIEW_NAMES

RECALL_REBASE = [sys.executable, "-m", "reference.cli"]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path)


def audit(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RECALL_REBASE, "audit", *args, "--sessions", str(project.sessions),
                           "--index", str(project.index)], capture_output=True, text=True, timeout=120)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_query_joins_the_canonical_lines_with_the_projection_in_json_and_csv(project: Project) -> None:
    query = ("SELECT count(*) AS lines, count(l.entry_key) AS located FROM jsonl_entries e "
             "LEFT JOIN proj_locations l ON l.start_offset = e.start_offset AND l.end_offset = e.end_offset")
    answered = audit(project, "sql", query, "--format", "json")
    assert answered.returncode == 0, answered.stderr
    (row,) = json.loads(answered.stdout)
    assert row["lines"] > 0 and set(row) == {"lines", "located"}
    as_csv = audit(project, "sql", query, "--format", "csv")
    assert list(csv.reader(io.StringIO(as_csv.stdout))) == [["lines", "located"], [str(row["lines"]), str(row["located"])]]


def test_the_table_format_is_duckdbs_own(project: Project) -> None:
    answered = audit(project, "sql", "SELECT session_id FROM proj_sessions ORDER BY 1")
    assert answered.returncode == 0, answered.stderr
    assert "session_id" in answered.stdout and "alpha" in answered.stdout and "┌" in answered.stdout


@pytest.mark.parametrize("query", ["SELECT * FROM no_such_view", "SELEC 1",
                                   "SELECT * FROM read_blob('/etc/hostname')",
                                   "COPY (SELECT 1) TO 'x.csv'", "SET enable_external_access = true"])
def test_a_refused_query_is_one_line_and_touches_nothing(project: Project, query: str) -> None:
    before = tree(project.root)
    answered = audit(project, "sql", query)
    assert answered.returncode == 2 and answered.stdout == ""
    assert answered.stderr.startswith("recall-rebase: audit-query: ") and answered.stderr.count("\n") == 1, answered.stderr
    assert tree(project.root) == before


def test_views_lists_every_view_with_its_columns(project: Project) -> None:
    listed = audit(project, "views", "--json")
    assert listed.returncode == 0, listed.stderr
    views = json.loads(listed.stdout)
    assert list(views) == list(VIEW_NAMES)
    assert {"name": "start_offset", "type": "BIGINT"} in views["jsonl_lines"]


def test_export_writes_one_owner_only_parquet_file_per_view_that_duckdb_reads_back(project: Project,
                                                                                  tmp_path: Path) -> None:
    before = tree(project.root)
    out = tmp_path / "parquet"
    exported = audit(project, "export", "--parquet", str(out))
    assert exported.returncode == 0, exported.stderr
    files = sorted(out.glob("*.parquet"))
    assert [f.stem for f in files] == sorted(VIEW_NAMES)
    for file in files:
        assert stat.S_IMODE(file.stat().st_mode) & 0o077 == 0, file
    ((entries,),) = duckdb.sql(f"SELECT count(*) FROM '{out / 'proj_entries.parquet'}'").fetchall()
    assert entries > 0
    assert {path: data for path, data in tree(project.root).items() if not path.startswith(str(out))} == before


@pytest.mark.parametrize("case", ["no-folder", "no-index", "not-sqlite"])
def test_bad_inputs_are_one_line_and_exit_2(project: Project, tmp_path: Path, case: str) -> None:
    sessions, index = str(project.sessions), str(project.index)
    if case == "no-folder":
        sessions = str(tmp_path / "missing")
    elif case == "no-index":
        index = str(tmp_path / "missing.sqlite")
    else:
        index = str(project.sessions / next(iter(sorted(p.name for p in project.sessions.glob("*.jsonl")))))
    done = subprocess.run([*RECALL_REBASE, "audit", "sql", "SELECT 1", "--sessions", sessions, "--index", index],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("recall-rebase: audit-input: "), done.stderr
    assert done.stderr.count("\n") == 1


def doc_examples() -> list[str]:
    """The ``recall-rebase audit`` lines of docs/audit.md's "Queries of your own"."""
    text = (Path(__file__).resolve().parents[3] / "docs" / "audit.md").read_text(encoding="utf-8")
    section = text.split("## Queries of your own", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("recall-rebase audit ")]


def test_the_examples_of_docs_audit_md_run(project: Project, tmp_path: Path) -> None:
    examples = doc_examples()
    assert len(examples) >= 5 and any(" export " in line for line in examples)
    before = tree(project.sessions)
    for line in examples:
        words = shlex.split(line.replace("SESSIONS", str(project.sessions)).replace("INDEX", str(project.index))
                            .replace("OUT", str(tmp_path / "out")))
        done = subprocess.run([*RECALL_REBASE, *words[1:]], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.strip(), (line, done.stderr)
        if "--format json" in line:
            assert json.loads(done.stdout) == [], "a clean reference index: no hash disagrees"
        if "--format csv" in line:
            rows = list(csv.DictReader(io.StringIO(done.stdout)))
            assert len(rows) == 4 and all(r["file_size"] == r["size_bytes"] for r in rows), rows
            assert all(r["checkpoint_offset"] == r["file_checkpoint"] for r in rows), rows
    assert tree(project.sessions) == before
