"""Every reader of a session line keeps a line Python's decoders choke on as Pi does (issue 12).

The console-script view of the same lines is tests/cli/test_hostile_cli.py; Pi's own answer is
tests/oracle/test_hostile_lines_on_pi.py.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from reference.pi.exact.reader import RecordKind, iter_records
from reference.pi.exact.session import load_session
from reference.pi.model.blocks import line_fields, ordinary_blocks
from reference.pi.model.session import scan_source

HEADER = json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z",
                     "cwd": "/p"}).encode()
LINES = {
    "990 deep": b"[" * 990 + b"1" + b"]" * 990,
    "100,000 deep": b"[" * 100_000 + b"1" + b"]" * 100_000,
    "5,000 digits": b"9" * 5000,
}


def _entry(data: bytes) -> bytes:
    return (b'{"type":"custom","customType":"x","id":"b1","parentId":null,'
            b'"timestamp":"2026-01-01T00:00:01.000Z","data":' + data + b"}")


@pytest.mark.parametrize("data", LINES.values(), ids=LINES.keys())
def test_the_record_reader_keeps_it_as_an_entry(data: bytes) -> None:
    kinds = [(r.kind, r.id) for r in iter_records(io.BytesIO(HEADER + b"\n" + _entry(data) + b"\n"))]
    assert kinds == [(RecordKind.HEADER, "s"), (RecordKind.ENTRY, "b1")]


@pytest.mark.parametrize("data", LINES.values(), ids=LINES.keys())
def test_the_block_reader_and_the_rebase_scan_keep_it(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + b"\n" + _entry(data) + b"\n")
    assert line_fields(_entry(data)).id == "b1"
    with open(path, "rb") as stream:
        ids = [row.id for block in ordinary_blocks(stream) for row in map(block.row, range(len(block.fields)))]
    assert ids == ["s", "b1"]
    scan = scan_source(str(path))
    assert scan.entry_count == 1 and scan.incomplete is False and scan.invalid_line is None
    session = load_session(path)
    assert [r.id for r in session.entries] == ["b1"]
    assert session.diagnostics.malformed.count == 0
