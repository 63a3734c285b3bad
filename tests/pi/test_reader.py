"""The streaming reader: locators, raw hashes, kinds, bounded memory over chunk boundaries."""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.pi.exact import lines as lines_module
from reference.pi.exact import reader
from reference.pi.exact.reader import Record, RecordKind, iter_records

HEADER = b'{"type":"session","version":3,"id":"s","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}'


def records(data: bytes, limit: int = reader.RECORD_LIMIT_BYTES) -> list[Record]:
    return list(iter_records(io.BytesIO(data), limit=limit))


def expected_spans(data: bytes) -> list[tuple[int, int]]:
    spans, position = [], 0
    while position < len(data):
        newline = data.find(b"\n", position)
        end = len(data) if newline < 0 else newline + 1
        spans.append((position, end))
        position = end
    return spans


lines = st.lists(
    st.one_of(
        st.just(HEADER),
        st.builds(lambda t: json.dumps({"type": "message", "id": t}).encode(), st.text(max_size=30)),
        st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
        st.sampled_from([b"", b"   ", b"\r", b"null", b"0", b"[1]", b"{bad", b"\xef\xbb\xbf{}"]),
    ),
    max_size=30,
)


@pytest.fixture(autouse=True)
def tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small read chunks so that lines straddle chunk boundaries in every test."""
    monkeypatch.setattr(lines_module, "READ_CHUNK_BYTES", 7)


@examples(deep=200, ci=200)
@given(lines, st.booleans(), st.booleans())
def test_spans_tile_the_file_and_hashes_cover_the_line_without_lf(
    parts: list[bytes], crlf: bool, terminated: bool
) -> None:
    ending = b"\r\n" if crlf else b"\n"
    data = ending.join(parts) + (ending if terminated and parts else b"")
    found = records(data)
    assert [(r.start, r.end) for r in found] == expected_spans(data)
    for record in found:
        line = data[record.start : record.end]
        assert record.terminated == line.endswith(b"\n")
        raw = line[:-1] if record.terminated else line
        assert record.sha256 == hashlib.sha256(raw).hexdigest()
        assert record.crlf == raw.endswith(b"\r")


@examples(deep=200, ci=200)
@given(st.lists(st.binary(min_size=0, max_size=60).map(lambda b: b.replace(b"\n", b"")), max_size=12),
       st.integers(5, 40))
def test_oversize_lines_are_hashed_in_pieces_and_never_decoded(parts: list[bytes], limit: int) -> None:
    data = b"\n".join(parts) + b"\n"
    found = records(data, limit=limit)
    assert [(r.start, r.end) for r in found] == expected_spans(data)
    for record in found:
        raw = data[record.start : record.end - 1]
        assert record.sha256 == hashlib.sha256(raw).hexdigest()
        assert (record.kind is RecordKind.OVERSIZE) == (record.end - record.start > limit)


def test_kinds_follow_pis_loader() -> None:
    data = b"\n".join([
        b"{bad", HEADER, b"  \t", b"null", b"0", b'""', b"[1]", b'"x"', b'{"type":"session","id":"again"}',
        b'{"type":"message","id":"a","parentId":null}', b'{"type":"message","id":"\\ud800"}',
    ]) + b"\n"
    kinds = [r.kind for r in records(data)]
    assert kinds == [
        RecordKind.MALFORMED, RecordKind.HEADER, RecordKind.BLANK, RecordKind.FALSY, RecordKind.FALSY,
        RecordKind.FALSY, RecordKind.ENTRY, RecordKind.ENTRY, RecordKind.EXTRA_HEADER, RecordKind.ENTRY,
        RecordKind.ENTRY,
    ]
    last = records(data)[-1]
    assert last.id == "\ud800"  # msgspec refuses lone surrogates; the JavaScript-faithful path reads them


def test_unicode_whitespace_lines_are_blank_as_javascript_trims_them() -> None:
    data = "\u00a0\u2028\ufeff\n".encode() + HEADER + b"\n"
    assert [r.kind for r in records(data)] == [RecordKind.BLANK, RecordKind.HEADER]


def test_invalid_utf8_is_replaced_not_refused() -> None:
    data = HEADER + b'\n{"type":"message","id":"a\xff"}\n'
    entry = records(data)[1]
    assert entry.kind is RecordKind.ENTRY and entry.id == "a\ufffd"


def test_the_reader_opens_read_only(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "s.jsonl"  # type: ignore[operator]
    path.write_bytes(HEADER + b"\n")
    with reader.open_session_file(path) as stream:
        assert stream.mode == "rb"
        assert not stream.writable()
