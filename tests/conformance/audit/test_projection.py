"""The projection views hold exactly what sqlite3 reads from a real reference index, and read nothing else.

A real project: a session rebased by the reference (so the index has operation, checkpoint and
lineage rows and the sessions folder a journal), two more generated sessions, all caught up
into one index by the reference's indexer.  The views are compared with what the test itself
reads through sqlite3; every file is hashed before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import tomllib
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from testkit.audit_projects import Project, make_project, write_session

from conformance import schemas
from conformance.audit.connection import offline_connection
from conformance.audit.index_snapshot import IndexUnreadable
from conformance.audit.journals import JOURNAL_LIMIT_BYTES, JournalProblem
from conformance.audit.mapping import (
    MAPPING_SCHEMA,
    MappingError,
    load_mapping,
    parse_mapping,
    reference_mapping,
)
from conformance.audit.projection import load_projection
from conformance.audit.views import MAPPED_VIEWS, AuditView, create_view_table
from conformance.suite import suite_root
from reference.recall.catchup import catch_up
from reference.recall.index_schema import open_index

#: What the test reads itself, table by table, to hold the views against (not the mapping's SQL).
DIRECT_SQL = {
    AuditView.SESSIONS: "SELECT session_id, session_file, cwd, header_hash FROM sessions",
    AuditView.ENTRIES: "SELECT session_id, entry_key, entry_id, parent_id, entry_type, role, created_at, "
                       "content_hash FROM entries",
    AuditView.LOCATIONS: "SELECT entry_key, start_offset, end_offset FROM entry_source_locations",
    AuditView.STATE: "SELECT session_id, session_file, header_hash, file_size, file_mtime_ns, checkpoint_offset, "
                     "checkpoint_hash_start, checkpoint_hash, indexed_entries, malformed_lines, "
                     "tail_unterminated = 1 FROM session_index_state",  # sqlite3 gives 0/1, DuckDB a BOOLEAN
    AuditView.FTS_KEYS: "SELECT fts_rowid, entry_key FROM entries_fts_keys",
}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path)


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` and the SHA-256 of its bytes."""
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file()}


def load(project: Project, mapping: Any = None) -> tuple[dict[AuditView, list[tuple[Any, ...]]], dict[AuditView, int]]:
    """Every view's rows, sorted, and the counts ``load_projection`` returned."""
    with offline_connection() as connection:
        counts = load_projection(connection, project.index, [project.journals], mapping or reference_mapping())
        rows = {view: sorted(connection.execute(f"SELECT * FROM {view.value}").fetchall(), key=repr)
                for view in AuditView}
    return rows, dict(counts)


def direct(index: Path, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(index)) as connection:
        return sorted(connection.execute(sql).fetchall(), key=repr)


def test_the_key_views_hold_exactly_what_sqlite3_reads(project: Project) -> None:
    rows, counts = load(project)
    for view, sql in DIRECT_SQL.items():
        expected = direct(project.index, sql)
        assert rows[view] == expected, view
        assert counts[view] == len(expected) > 0, view
    target_entries = direct(project.index, "SELECT count(*) FROM entries WHERE session_id NOT IN "
                                           "('alpha', 'beta', 'gamma')")[0][0]
    assert target_entries > 0 and counts[AuditView.ENTRIES] == 7 + 5 + 3 + target_entries
    entry = next(row for row in rows[AuditView.ENTRIES] if row[1] == "beta:beta-1")
    assert entry[:7] == ("beta", "beta:beta-1", "beta-1", "beta-0", "message", "assistant", 1_748_779_202_000)
    state = next(row for row in rows[AuditView.STATE] if row[0] == "gamma")
    gamma = project.sessions / "2025-06-01T12-00-00-000Z_gamma.jsonl"
    assert state[3] == state[5] == gamma.stat().st_size and state[8:] == (3, 0, False)


def test_no_view_carries_the_searchable_text(project: Project) -> None:
    rows, _ = load(project)
    flattened = repr(rows)
    assert "text 3 of beta" not in flattened and "text 0 of alpha" not in flattened


def test_the_rebase_projections_and_the_journal_agree_with_the_files(project: Project) -> None:
    rows, counts = load(project)
    (journal_file,) = sorted(project.journals.glob("*.json"))
    journal = json.loads(journal_file.read_bytes())
    assert counts[AuditView.OPERATIONS] == counts[AuditView.JOURNALS] == 1
    assert counts[AuditView.LINEAGE] == counts[AuditView.CHECKPOINTS] == 1
    (operation,) = rows[AuditView.OPERATIONS]
    assert operation[:10] == (journal["id"], "Verified", journal["sourceSessionId"], journal["sourceSize"],
                              journal["sourceHash"], journal["targetSessionId"], journal["targetSessionFile"],
                              journal["targetHash"], journal["targetSize"], journal["updatedAt"])
    assert json.loads(operation[10]) == journal
    (lineage,) = rows[AuditView.LINEAGE]
    assert direct(project.index, "SELECT target_session_id, source_session_id, source_leaf_id, checkpoint_id "
                                 "FROM session_lineage") == [lineage[:4]]
    assert lineage[4] == journal["id"] and lineage[7:] == (journal["sourceSize"], journal["sourceHash"])
    (checkpoint,) = rows[AuditView.CHECKPOINTS]
    assert checkpoint[:2] == (lineage[3], journal["targetSessionId"]) and checkpoint[4] == journal["sourceSize"]


def test_a_journal_row_holds_the_parsed_fields_and_the_raw_text(project: Project) -> None:
    rows, _ = load(project)
    (journal_file,) = sorted(project.journals.glob("*.json"))
    (row,) = rows[AuditView.JOURNALS]
    journal = json.loads(journal_file.read_bytes())
    assert row[:5] == (str(journal_file), str(project.journals), journal_file.stat().st_size,
                       journal_file.stat().st_mode & 0o777, None)
    assert row[5:9] == (1, journal["id"], "Verified", journal["projectPath"])
    assert row[-2:] == (journal_file.read_text(encoding="utf-8"), None)  # the raw text; no schema error
    assert schemas.errors(json.loads(row[-2]), "rebase/journal.schema.json") == []


def test_a_journal_that_is_not_usable_is_a_row_naming_its_problem(project: Project) -> None:
    folder = project.journals
    big = json.dumps({"id": "rebase_" + "a" * 32, "phase": "Prepared", "padding": "x" * JOURNAL_LIMIT_BYTES})
    (folder / "big.json").write_text(big)
    (folder / "torn.json").write_bytes(b'{"id": "rebase_')
    (folder / "latin.json").write_bytes(b'{"id": "caf\xe9"}')
    (folder / "list.json").write_bytes(b"[1, 2]")
    (folder / "folder.json").mkdir()
    (folder / "wrong-types.json").write_bytes(b'{"id": 7, "sourceSize": "12", "phase": true, "targetSize": 1e3}')
    rows, _ = load(project)
    problems = {Path(row[0]).name: row[4] for row in rows[AuditView.JOURNALS]}
    assert problems == {"big.json": JournalProblem.TOO_LARGE, "torn.json": JournalProblem.NOT_JSON,
                        "latin.json": JournalProblem.NOT_UTF8, "list.json": JournalProblem.NOT_AN_OBJECT,
                        "folder.json": JournalProblem.NOT_A_FILE, "wrong-types.json": None,
                        next(p.name for p in folder.glob("rebase_*.json")): None}
    by_name = {Path(row[0]).name: row for row in rows[AuditView.JOURNALS]}
    assert by_name["big.json"][6:8] == ("rebase_" + "a" * 32, "Prepared") and by_name["big.json"][2] > 32_000
    assert by_name["wrong-types.json"][5:-1] == (None,) * 16 + ('{"id": 7, "sourceSize": "12", "phase": true, '
                                                                '"targetSize": 1e3}',)
    assert by_name["wrong-types.json"][-1] == "$: 'schemaVersion' is a required property"
    assert by_name["latin.json"][-2] is None and by_name["torn.json"][-2] == '{"id": "rebase_'


def test_nothing_read_changes_and_nothing_appears_beside_the_index(project: Project) -> None:
    before = tree(project.root)
    assert not Path(f"{project.index}-wal").exists()  # the reference closed it: checkpointed
    load(project)
    assert tree(project.root) == before


def test_a_live_index_with_frames_in_its_wal_is_read_whole_and_left_alone(project: Project) -> None:
    extra = write_session(project.sessions, project.root / "project", "delta", 4)
    with closing(open_index(project.index)) as writer:
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        catch_up(writer, str(extra))  # committed, but only in the -wal while the writer lives
        assert Path(f"{project.index}-wal").stat().st_size > 0
        before = tree(project.root)
        rows, _ = load(project)
        assert tree(project.root) == before
    assert sum(row[0] == "delta" for row in rows[AuditView.ENTRIES]) == 4
    assert "delta" in {row[0] for row in rows[AuditView.STATE]}


def test_an_idle_live_index_with_an_empty_wal_is_read_in_place_and_left_alone(project: Project) -> None:
    with closing(open_index(project.index)) as writer:
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert Path(f"{project.index}-wal").stat().st_size == 0 and Path(f"{project.index}-shm").is_file()
        before = tree(project.root)
        rows, _ = load(project)
        assert tree(project.root) == before
    assert rows[AuditView.ENTRIES] == direct(project.index, DIRECT_SQL[AuditView.ENTRIES])


def test_docs_audit_lists_each_view_with_the_columns_its_sql_declares() -> None:
    documented = {}
    for line in (Path(__file__).parents[3] / "docs" / "audit.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| `") and cells[0].strip("`") in {view.value for view in AuditView}:
            documented[cells[0].strip("`")] = [name.strip() for name in re.sub(r" \(.*?\)", "", cells[1]).split(",")]
    with offline_connection() as connection:
        declared = {view.value: list(create_view_table(connection, view)) for view in AuditView}
    assert documented == declared


def test_the_shipped_mapping_is_valid_against_its_schema() -> None:
    shipped = Path(__file__).parents[3] / "conformance" / "audit" / "mappings" / "reference.toml"
    document = tomllib.loads(shipped.read_text(encoding="utf-8"))
    assert schemas.errors(document, MAPPING_SCHEMA) == []
    assert set(reference_mapping().views) == set(MAPPED_VIEWS)
    assert (suite_root() / "schemas" / "audit" / "mapping.schema.json").is_file()


def _reference_toml() -> str:
    return (Path(__file__).parents[3] / "conformance" / "audit" / "mappings" / "reference.toml").read_text()


BAD_TEXTS = {
    "not TOML": ("views = [", "not valid TOML"),
    "a view missing": (_reference_toml().replace("proj_lineage =", "proj_lineage_x ="), "proj_lineage"),
    "an unknown key": (_reference_toml() + '\ncomment = "x"\n', "comment"),
    "not a SELECT": (_reference_toml().replace('proj_fts_keys = """\nSELECT', 'proj_fts_keys = """\nDELETE'),
                     "proj_fts_keys"),
    "the wrong schema": (_reference_toml().replace("audit-mapping/1", "audit-mapping/9"), "schema"),
}


@pytest.mark.parametrize("case", BAD_TEXTS, ids=list(BAD_TEXTS))
def test_a_bad_mapping_file_is_one_clear_line(case: str) -> None:
    text, names = BAD_TEXTS[case]
    with pytest.raises(MappingError) as refused:
        parse_mapping(text, "mine.toml")
    message = str(refused.value)
    assert message.startswith("mine.toml: ") and "\n" not in message and names in message, message


BAD_SQL = {
    "a missing table": ("FROM entries_fts_keys", "FROM entries_fts_keyz", "no such table: entries_fts_keyz"),
    "a missing column": ("SELECT fts_rowid, entry_key FROM", "SELECT fts_rowid FROM",
                         "gives columns (fts_rowid), the view needs (fts_rowid, entry_key)"),
    "a renamed column": ("SELECT fts_rowid, entry_key FROM", "SELECT fts_rowid AS id, entry_key FROM",
                         "gives columns (id, entry_key)"),
    "a value of the wrong type": ("SELECT fts_rowid, entry_key FROM", "SELECT entry_key AS fts_rowid, entry_key FROM",
                                  "a value does not fit the view's column types"),
    "a write": ("SELECT fts_rowid, entry_key FROM entries_fts_keys",
                "WITH x AS (SELECT 1) DELETE FROM entries_fts_keys", "readonly"),
}


@pytest.mark.parametrize("case", BAD_SQL, ids=list(BAD_SQL))
def test_a_mapping_whose_sql_does_not_fit_the_index_is_one_clear_line(project: Project, case: str) -> None:
    old, new, expected = BAD_SQL[case]
    assert old in _reference_toml()
    mapping = parse_mapping(_reference_toml().replace(old, new), "mine.toml")
    before = tree(project.root)
    with pytest.raises(MappingError) as refused:
        load(project, mapping)
    message = str(refused.value)
    assert message.startswith("mine.toml: view proj_fts_keys: ") and "\n" not in message, message
    assert expected in message, message
    assert tree(project.root) == before


def test_a_port_writes_its_own_mapping_file_and_the_views_follow_it(project: Project, tmp_path: Path) -> None:
    own = tmp_path / "port.toml"
    own.write_text(_reference_toml().replace('implementation = "reference"', 'implementation = "port"').replace(
        "content_hash FROM entries", "content_hash FROM entries WHERE role = 'user'"), encoding="utf-8")
    mapping = load_mapping(own)
    assert mapping.implementation == "port" and mapping.source == str(own)
    rows, _ = load(project, mapping)
    assert rows[AuditView.ENTRIES] == direct(project.index, DIRECT_SQL[AuditView.ENTRIES] + " WHERE role = 'user'")
    assert 0 < len(rows[AuditView.ENTRIES]) < len(direct(project.index, DIRECT_SQL[AuditView.ENTRIES]))


def test_a_mapping_file_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(MappingError, match=r"absent\.toml: cannot read the mapping") as refused:
        load_mapping(tmp_path / "absent.toml")
    assert "\n" not in str(refused.value)
    (tmp_path / "latin.toml").write_bytes(b'implementation = "caf\xe9"')
    with pytest.raises(MappingError, match=r"latin\.toml: cannot read the mapping"):
        load_mapping(tmp_path / "latin.toml")


def test_an_index_that_is_missing_or_not_sqlite_fails_at_once(tmp_path: Path) -> None:
    missing = Project(tmp_path, tmp_path, tmp_path / "absent.sqlite")
    with pytest.raises(IndexUnreadable, match="no such index file"):
        load(missing)
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(IndexUnreadable, match="not a readable SQLite index"):
        load(Project(tmp_path, tmp_path, tmp_path / "junk.sqlite"))
    assert sorted(os.listdir(tmp_path)) == ["junk.sqlite"]



def test_a_journal_invalid_against_its_schema_says_how(project: Project) -> None:
    (journal_file,) = sorted(project.journals.glob("*.json"))
    journal = json.loads(journal_file.read_bytes())
    journal_file.write_text(json.dumps({**journal, "phase": "Failed-ish"}))
    rows, _ = load(project)
    (row,) = rows[AuditView.JOURNALS]
    assert row[4] is None and "phase" in row[-1] and "Failed-ish" in row[-1]
