"""The chunked line scanner (``reference.pi.exact.lines``) against the plain split of the whole bytes,
for any chunk size and limit."""

from __future__ import annotations

import hashlib
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.pi.exact import lines as lines_module
from reference.pi.exact.lines import LineChunk, LineTooLong, LongLine, line_chunks

data_strategy = st.lists(st.sampled_from([b"a", b"bb", b"\r", b"\n", b"{}", b"xyz" * 5]), max_size=40).map(b"".join)


def plain(data: bytes) -> list[tuple[int, bytes, bool]]:
    """Every line with its offset and whether it ends with a LF, from one split."""
    out, start = [], 0
    parts = data.split(b"\n")
    for index, part in enumerate(parts):
        terminated = index < len(parts) - 1
        if terminated or part:
            out.append((start, part, terminated))
        start += len(part) + 1
    return out


def flatten(items: list[LineChunk | LongLine], data: bytes) -> list[tuple[int, bytes, bool]]:
    out = []
    for item in items:
        if isinstance(item, LongLine):
            line = data[item.start:item.end - item.terminated]
            assert item.sha256 == hashlib.sha256(line).hexdigest() and item.crlf == line.endswith(b"\r")
            out.append((item.start, line, item.terminated))
            continue
        start = item.start
        for index, line in enumerate(item.lines):
            ended = item.terminated or index < len(item.lines) - 1
            out.append((start, line, ended))
            start += len(line) + 1
    return out


@examples(deep=200, ci=200)
@given(data_strategy, st.sampled_from([1, 2, 3, 7, 64]), st.sampled_from([1, 4, 10, 1000]))
def test_the_lines_are_the_plain_split(data: bytes, chunk: int, limit: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines_module, "READ_CHUNK_BYTES", chunk)
        found = flatten(list(line_chunks(io.BytesIO(data), limit, long_lines=True)), data)
        assert found == plain(data)
        try:
            short = flatten(list(line_chunks(io.BytesIO(data), limit)), data)
        except LineTooLong as too_long:
            assert any(start == too_long.offset and len(line) > limit for start, line, _ in plain(data))
        else:
            assert short == plain(data)


def test_a_size_bounds_the_read_and_offsets_start_where_told() -> None:
    stream = io.BytesIO(b"ab\ncd\nef")
    stream.seek(3)
    assert list(line_chunks(stream, 100, start=3, size=3)) == [LineChunk(3, [b"cd"], True)]
