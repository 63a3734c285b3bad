"""DuckDB's reading of the canonical bytes agrees with the reference's, line for line.

``jsonl_lines`` must be exactly what the adapter operation ``session.records`` reports (spans,
hashes, kinds) and ``jsonl_entries`` exactly the fields a JavaScript-faithful parse of each entry
line gives, for every fixture, for hand-made edge files and for random soups of lines; nothing
read is ever changed.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from testkit.profiles import examples

from conformance.audit.blocks import iter_blocks
from conformance.audit.canonical import RECORD_LIMIT_BYTES, CanonicalView, LineKind, load_canonical
from conformance.audit.connection import offline_connection
from conformance.protocol import ContractError
from reference.adapter.operations import ReferenceAdapter
from reference.fixturegen.generator import generate
from reference.fixturegen.options import GenOptions
from reference.pi.exact.entries import is_pi_entry
from reference.pi.exact.reader import decode_value, iter_records
from reference.primitives.jsvalues import date_time_ms
from reference.recall.catchup_state import new_checkpoint

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
MANIFEST = json.loads((FIXTURES / "MANIFEST.json").read_text(encoding="utf-8"))
FIXTURE_PATHS = [FIXTURES / item["path"] for item in MANIFEST["fixtures"]]

HEADER = b'{"type":"session","version":3,"id":"s-1","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/p"}'
ENTRY = b'{"type":"message","id":"e1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user"}}'
CHILD = b'{"type":"label","id":"e2","parentId":"e1","timestamp":"2025-06-01T12:00:02.5+02:00","targetId":"e1"}'

#: Hand-made files, each the bytes of one edge of the reading.
EDGE_FILES: dict[str, bytes] = {
    "crlf": HEADER + b"\r\n" + ENTRY + b"\r\n" + CHILD + b"\r\n",
    "lone-cr": HEADER + b"\n" + ENTRY[:20] + b"\r" + ENTRY[20:] + b"\n",
    "invalid-utf8": HEADER + b"\n" + b'{"type":"custom","id":"\xff\xfe","parentId":null}\n' + b"\xc3\x28 garbage\n",
    "nul": HEADER + b"\n" + b'{"type":"custom","id":"n\x00"}\n' + b"\x00\n" + ENTRY + b"\n",
    "torn-tail": HEADER + b"\n" + ENTRY + b"\n" + CHILD[:30],
    "blank-lines": b"\n  \n" + HEADER + b"\n\t\n\n" + ENTRY + b"\n \xc2\xa0\xe3\x80\x80\n",
    "falsy": HEADER + b"\n" + b'null\n0\nfalse\n""\n-0\n0.0e3\n' + ENTRY + b"\n",
    "truthy-non-objects": HEADER + b'\n42\n[]\n"x"\ntrue\n[0]\n{}\n',
    "second-header": HEADER + b"\n" + ENTRY + b"\n" + HEADER + b"\n",
    "header-after-entry": b"7\n" + HEADER + b"\n" + ENTRY + b"\n",
    "header-after-malformed": b"{oops\n" + HEADER + b"\n" + ENTRY + b"\n",
    "bom": b"\xef\xbb\xbf" + HEADER + b"\n" + ENTRY + b"\n\xef\xbb\xbf\n",
    "js-json": HEADER + b'\n{"a":NaN}\n[1,]\n{"a":1,}\nInfinity\n{"s":"\\ud800"}\n{"s":"\\\\ud800"}\n'
               + b'{"s":"NaN, [1,]"}\n 1 \n',
    "js-json-spaced": HEADER + b'\n{"a": NaN}\n[ -Infinity]\n[1 , ]\n{"a":1,\t}\n{"a":\r-inf}\n  nan\n[0, iNf]\n'
                      + b'{"s":"x: nan, [inf] ,]"}\n{"a": "Note: info", "b": [ "Inf" ]}\n-NaN\n',
    "oversize": HEADER + b"\n" + b'{"pad":"' + b"a" * (RECORD_LIMIT_BYTES - 10) + b'"}\n' + ENTRY + b"\n",
    "exactly-the-limit": HEADER + b"\n" + b'{"pad":"' + b"a" * (RECORD_LIMIT_BYTES - 11) + b'"}\n',
    "long-last-line": HEADER + b"\n" + b'{"pad":"' + b"b" * 100_000 + b'"}\n' + CHILD[:12],
    "empty": b"",
    "only-lf": b"\n",
}


def reference_records(path: Path) -> list[dict[str, Any]]:
    """``session.records`` through the adapter; for a file it refuses (no header, empty), the
    rows its own loop gives."""
    try:
        rows: list[dict[str, Any]] = ReferenceAdapter().request("session.records", {"path": str(path)})["records"]
        return rows
    except ContractError:
        with path.open("rb") as stream:
            return [{"line": r.line, "start": r.start, "end": r.end, "sha256": r.sha256, "kind": str(r.kind),
                     "terminated": r.terminated, "crlf": r.crlf} for r in iter_records(stream)]


def reference_entries(path: Path) -> list[tuple[Any, ...]]:
    """The fields of every entry line, parsed as JavaScript's ``JSON.parse`` does."""
    rows = []
    content = path.read_bytes()
    with path.open("rb") as stream:
        records = list(iter_records(stream))
    for record in records:
        if str(record.kind) != LineKind.ENTRY:
            continue
        value = decode_value(content[record.start:record.end].removesuffix(b"\n"))
        fields = value if isinstance(value, dict) else {}
        message = fields.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        stamp = fields.get("timestamp")
        ms = date_time_ms(stamp) if isinstance(stamp, str) else math.nan
        rows.append((record.line, record.start, record.end, record.sha256, isinstance(value, dict),
                     _string(fields.get("id")), _string(fields.get("parentId")), _string(fields.get("type")),
                     _string(role), None if math.isnan(ms) else int(ms), is_pi_entry(value)))
    return rows


def _string(value: Any) -> str | None:
    """A string field as the audit reads it: DuckDB decodes an invalid UTF-8 sequence as '?'
    where JavaScript gives U+FFFD (``jsonl_entries.utf8_valid`` is false on those lines)."""
    return value.replace("\ufffd", "?") if isinstance(value, str) else None


def canonical_lines(paths: Sequence[Path], **options: int) -> dict[str, list[dict[str, Any]]]:
    with offline_connection() as connection:
        load_canonical(connection, paths, **options)
        rows = connection.execute(
            f"SELECT session_file, line_no, start_offset, end_offset, sha256, kind, terminated, crlf "
            f"FROM {CanonicalView.LINES} ORDER BY session_file, line_no").fetchall()
    by_file: dict[str, list[dict[str, Any]]] = {str(path): [] for path in paths}
    for name, line, start, end, sha256, kind, terminated, crlf in rows:
        by_file[name].append({"line": line, "start": start, "end": end, "sha256": sha256, "kind": kind,
                              "terminated": terminated, "crlf": crlf})
    return by_file


def canonical_entries(path: Path) -> list[tuple[Any, ...]]:
    with offline_connection() as connection:
        load_canonical(connection, [path])
        return connection.execute(
            f"SELECT line_no, start_offset, end_offset, sha256, is_object, entry_id, parent_id, entry_type, "
            f"role, timestamp_ms, pi_entry FROM {CanonicalView.ENTRIES} ORDER BY line_no").fetchall()


def bare_records(path: Path) -> list[dict[str, Any]]:
    return [{key: row[key] for key in ("line", "start", "end", "sha256", "kind", "terminated", "crlf")}
            for row in reference_records(path)]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(params=sorted(EDGE_FILES), ids=sorted(EDGE_FILES))
def edge_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / f"{request.param}.jsonl"
    path.write_bytes(EDGE_FILES[request.param])
    return path


@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=[item["path"] for item in MANIFEST["fixtures"]])
def test_every_fixture_reads_as_session_records_reports_it(path: Path) -> None:
    assert canonical_lines([path])[str(path)] == bare_records(path)
    assert canonical_entries(path) == reference_entries(path)


def test_every_edge_file_reads_as_session_records_reports_it(edge_file: Path) -> None:
    before = digest(edge_file)
    assert canonical_lines([edge_file])[str(edge_file)] == bare_records(edge_file)
    assert canonical_entries(edge_file) == reference_entries(edge_file)
    assert digest(edge_file) == before


@pytest.mark.parametrize("block_bytes", [1, 7, 64])
def test_block_boundaries_do_not_change_a_single_row(tmp_path: Path, block_bytes: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(EDGE_FILES["blank-lines"] + EDGE_FILES["torn-tail"])
    assert canonical_lines([path], block_bytes=block_bytes)[str(path)] == bare_records(path)


def test_torn_and_malformed_lines_are_rows_with_their_kind_never_nulls(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + b"\n{not json\n" + ENTRY[:25])
    kinds = [(row["kind"], row["terminated"]) for row in canonical_lines([path])[str(path)]]
    assert kinds == [("header", True), ("malformed", True), ("malformed", False)]


def test_a_repeated_member_is_read_as_duckdb_reads_it_the_first_one(tmp_path: Path) -> None:
    """The one known divergence (docs/audit.md): JSON.parse keeps the last of repeated names."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + b'\n{"id":"x","id":"y"}\n')
    assert canonical_lines([path])[str(path)] == bare_records(path)
    assert [row[5] for row in canonical_entries(path)] == ["x"]
    assert [row[5] for row in reference_entries(path)] == ["y"]


def reference_cursor(path: Path) -> tuple[int, int | None, str | None]:
    """The catch-up cursor the reference's indexer would store for the file as it is."""
    with path.open("rb") as stream:
        spans = [(r.start, r.end) for r in iter_records(stream) if r.terminated]
        return new_checkpoint(stream, spans[-1]) if spans else (0, None, None)


def canonical_cursor(path: Path, **options: int) -> tuple[Any, ...]:
    with offline_connection() as connection:
        load_canonical(connection, [path], **options)
        row = connection.execute(
            f"SELECT checkpoint_offset, checkpoint_hash_start, checkpoint_hash FROM {CanonicalView.FILES}").fetchone()
    assert row is not None
    return tuple(row)


def test_files_view_gives_the_header_and_the_size(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n" + HEADER + b"\n" + ENTRY)
    with offline_connection() as connection:
        load_canonical(connection, [path])
        row = connection.execute(
            f"SELECT session_file, size_bytes, line_count, terminated, header_line_no, header_sha256, session_id, "
            f"version, cwd FROM {CanonicalView.FILES}").fetchall()
    assert row == [(str(path), path.stat().st_size, 3, False, 2, hashlib.sha256(HEADER).hexdigest(), "s-1", "3", "/p")]


def test_entries_carry_their_key_from_the_header(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + b"\n" + ENTRY + b"\n")
    with offline_connection() as connection:
        load_canonical(connection, [path])
        rows = connection.execute(f"SELECT session_id, entry_key FROM {CanonicalView.ENTRIES}").fetchall()
    assert rows == [("s-1", "s-1:e1")]


@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=[item["path"] for item in MANIFEST["fixtures"]])
def test_the_cursor_of_every_fixture_is_the_one_the_indexer_stores(path: Path) -> None:
    assert canonical_cursor(path) == reference_cursor(path)


@pytest.mark.parametrize("block_bytes", [16, 1 << 20])
def test_the_cursor_of_every_edge_file_is_the_one_the_indexer_stores(edge_file: Path, block_bytes: int) -> None:
    assert canonical_cursor(edge_file, block_bytes=block_bytes) == reference_cursor(edge_file)


def test_an_empty_file_has_its_row(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    with offline_connection() as connection:
        load_canonical(connection, [path])
        row = connection.execute(f"SELECT * FROM {CanonicalView.FILES}").fetchall()
    assert row == [(str(path), 0, 0, True, None, None, None, None, None, 0, None, None)]


def test_several_files_are_kept_apart_and_left_unchanged(tmp_path: Path) -> None:
    paths = []
    for name in ("crlf", "falsy", "torn-tail"):
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(EDGE_FILES[name])
        path.chmod(0o400)
        paths.append(path)
    before = [digest(path) for path in paths]
    read = canonical_lines(paths)
    assert [read[str(path)] for path in paths] == [bare_records(path) for path in paths]
    assert [digest(path) for path in paths] == before


LINE_PIECES = st.sampled_from([
    b"", b" ", b"\t", b"\r", b"\x00", b"\xff", b"\xc3\xa9", b"\xef\xbb\xbf", b"\xc2\xa0", b"{", b"}", b"[", b"]",
    b",", b":", b'"', b"\\", b"u", b"d800", b"1", b"0", b"-", b"e", b"null", b"false", b"true", b"NaN",
    b'"type"', b'"session"', b'"id"', b'"x"', b'{"type":"session"}', b'{"id":"a","type":"t"}',
    b'{"message":{"role":"user"}}', b'{"timestamp":"2025-06-01T12:00:00Z"}',
])
LINES = st.lists(st.lists(LINE_PIECES, max_size=6).map(b"".join), min_size=0, max_size=8)


@examples(deep=60, ci=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=LINES, terminated=st.booleans())
def test_random_soups_of_lines_read_as_session_records_reports_them(
        tmp_path: Path, lines: list[bytes], terminated: bool) -> None:
    path = tmp_path / "soup.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"\n" if terminated and lines else b""))
    assert canonical_lines([path], block_bytes=16)[str(path)] == bare_records(path)
    assert canonical_entries(path) == reference_entries(path)


def test_the_examples_of_docs_audit_md_run_on_the_views() -> None:
    section = (ROOT / "docs" / "audit.md").read_text(encoding="utf-8").split("## Reading the canonical bytes", 1)[1]
    example = section.split("```sql", 1)[1].split("```", 1)[0]
    statements = [line.split("--")[0].strip() for line in example.strip().splitlines()]
    torn = FIXTURES / "invalid" / "torn-tail.jsonl"
    with offline_connection() as connection:
        load_canonical(connection, [torn])
        results = [connection.execute(statement).fetchall() for statement in statements]
    assert len(statements) == 3 and all(results)
    assert results[1][0][3] == LineKind.MALFORMED  # the torn tail is a row of its own kind


@pytest.mark.parametrize("damage", [{}, {"crlf": True}, {"torn_tail": True, "malformed": 5, "blank": 5}])
def test_generated_sessions_read_in_many_blocks_as_session_records_reports_them(
        tmp_path: Path, damage: dict[str, Any]) -> None:
    sessions = generate(tmp_path / "sessions", GenOptions(seed=11, sessions=2, target_bytes=300_000, **damage))
    paths = [session.path for session in sessions]
    before = [digest(path) for path in paths]
    read = canonical_lines(paths, block_bytes=4096)
    assert [read[str(path)] for path in paths] == [bare_records(path) for path in paths]
    assert [digest(path) for path in paths] == before


def test_blocks_cover_every_byte_once_and_end_after_an_lf(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    content = b"a\n" + b"b" * 50 + b"\n\nccc\r\nd"
    path.write_bytes(content)
    blocks = list(iter_blocks(path, block_bytes=8))
    assert b"".join(block.data for block in blocks) == content
    assert [block.start for block in blocks] == [sum(len(b.data) for b in blocks[:i]) for i in range(len(blocks))]
    assert all(block.data.endswith(b"\n") for block in blocks[:-1]) and blocks[-1].data == b"d"
    assert [block.lines_before for block in blocks] == [content[:block.start].count(b"\n") for block in blocks]
    assert max(len(block.data) for block in blocks) <= 51 + 8  # the longest line and one read, at most


def test_progress_is_told_each_block_once_it_is_in_from_the_calling_thread(tmp_path: Path) -> None:
    paths = []
    for name in ("crlf", "empty", "long-last-line", "falsy"):
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(EDGE_FILES[name])
        paths.append(path)
    calls: list[tuple[int, int]] = []
    with offline_connection() as connection:
        load_canonical(connection, paths, block_bytes=64,
                       progress=lambda size: calls.append((size, threading.get_ident())))
        lines = connection.execute(f"SELECT count(*) FROM {CanonicalView.LINES}").fetchone()
    blocks = [len(block.data) for path in paths for block in iter_blocks(path, block_bytes=64)]
    assert sorted(size for size, _ in calls) == sorted(blocks)
    assert sum(size for size, _ in calls) == sum(path.stat().st_size for path in paths)
    assert {thread for _, thread in calls} == {threading.get_ident()}
    assert lines == (sum(len(bare_records(path)) for path in paths),)
