"""The block read of ordinary session files (``reference.bulkscan``) gives exactly the exact
reader's scan, for any file: generated lines mix what Pi writes with what it never does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import archive
from reference.archive import SourceScan, scan_source
from reference.bulkscan import NotOrdinary, ordinary_blocks
from reference.errors import ContractViolation

HEADER = b'{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}'


def entry(entry_id: str, parent: str | None, **extra: Any) -> bytes:
    value = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": "hi"}, **extra}
    return json.dumps(value, separators=(",", ":")).encode()


ODD_LINES = [
    b"", b"   ", b"null", b"[1,2]", b"{", b'"text"', b"0",
    b'{"type":"message","id":"x1","parentId":null}',  # no timestamp
    b'{"type":"session","version":3,"id":"again","timestamp":"t","cwd":"/p"}',  # a later header
    b'{"a":[{}', b'{}]},{"c":1}',  # two halves that would pair up inside one JSON array
    b'{"type":"message","id":"sur","parentId":null,"timestamp":"t","message":{"content":"\\ud800"}}',
    b'{"type":"message","id":"crlf","parentId":null,"timestamp":"t"}\r',
    b'{"type":"message","id":"dup","parentId":null,"timestamp":"t"}',
    b'{"type":"message","id":"dup","parentId":null,"timestamp":"t"}',
    b'{"type":7,"id":"num","parentId":null,"timestamp":"t"}',
    b'{"type":"message","id":"e","parentId":"","timestamp":"t"}',
    b'\xff\xfe{"type":"message"}',
]


def fields(scan: SourceScan) -> dict[str, Any]:
    return {
        "size": scan.size, "sha256": scan.sha256, "header": scan.header, "entries": scan.entry_count,
        "extra": scan.extra_headers, "incomplete": scan.incomplete, "invalid": scan.invalid_line,
        "last": scan.last_id, "ids": scan.ids, "parents": list(scan.parents), "empty": scan.empty_parents,
        "types": scan.types, "starts": list(scan.starts), "ends": list(scan.ends),
    }


def exact_scan(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | str:
    with monkeypatch.context() as patch:
        def refuse(stream: Any) -> Any:
            raise NotOrdinary

        patch.setattr(archive, "_ordinary_table", refuse)
        return outcome(path)


def outcome(path: Path) -> dict[str, Any] | str:
    try:
        return fields(scan_source(str(path)))
    except ContractViolation as exc:
        return exc.code


@st.composite
def session_files(draw: st.DrawFn) -> bytes:
    count = draw(st.integers(0, 40))
    lines = [HEADER] if draw(st.booleans()) or count == 0 else []
    for number in range(count):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(ODD_LINES)))
        else:
            parent = draw(st.sampled_from([None, f"e{number - 1}", f"e{number + 1}", "missing"]))
            lines.append(entry(f"e{number}", parent))
    body = b"\n".join(lines)
    return body + (b"\n" if draw(st.booleans()) else b"")


@settings(max_examples=300, deadline=None)
@given(data=session_files())
def test_the_block_read_equals_the_exact_reader(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("scan") / "s.jsonl"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        assert outcome(path) == exact_scan(path, patch)


def test_a_file_pi_writes_is_read_in_blocks(tmp_path: Path) -> None:
    lines = [HEADER, *(entry(f"e{n}", f"e{n - 1}" if n else None) for n in range(2000))]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with path.open("rb") as stream:
        blocks = list(ordinary_blocks(stream))
    assert sum(len(block.fields) for block in blocks) == 2001 and len(blocks) > 1
    assert blocks[-1].ends[-1] == path.stat().st_size


@pytest.mark.parametrize("odd", [b"", b"null", b'{"a":[{}\n{}]},{"c":1}', b"[1]"])
def test_an_unusual_line_hands_the_file_to_the_exact_reader(tmp_path: Path, odd: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + b"\n" + entry("a", None) + b"\n" + odd + b"\n" + entry("b", "a") + b"\n")
    with path.open("rb") as stream, pytest.raises(NotOrdinary):
        list(ordinary_blocks(stream))
