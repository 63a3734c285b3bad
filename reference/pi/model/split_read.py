"""The block read of an ordinary file into the model's table, a large file in two halves at once.

:func:`ordinary_table` reads the lines of an ordinary file (:mod:`reference.pi.model.blocks`)
into a :class:`reference.pi.model.entry_table.ScanTable`.  A file of at least
``READ_IN_HALVES_BYTES`` is split after the first LF past its middle: a forked copy of this
process (:mod:`reference.pi.split_work`) builds the table of the second half while this one reads
the first, and the second table is appended to the first (its parents still unresolved, as the
table resolves every parent once all ids are known).  The whole file is still hashed here, in
order.  A copy that cannot be made or that fails costs the time of reading its half here after
all, never a different answer; a half that is not ordinary is :class:`NotOrdinary` either way.
"""

from __future__ import annotations

import os
import pickle
from typing import IO

from reference.pi.exact.lines import READ_CHUNK_BYTES
from reference.pi.exact.reader import RECORD_LIMIT_BYTES, open_session_file
from reference.pi.exact.session import HashingStream
from reference.pi.model.blocks import Block, NotOrdinary, Row, ordinary_blocks
from reference.pi.model.entry_table import ScanTable
from reference.pi.split_work import Forked, abandon, collect, fork_bytes

#: A file this large is read in two halves at once.
READ_IN_HALVES_BYTES = 32 * 1024 * 1024


def ordinary_table(stream: HashingStream, path: str) -> tuple[ScanTable, Row]:
    """The table of every entry line and the header's row, or :class:`NotOrdinary`."""
    raw = stream.raw
    split = _split_point(raw, os.fstat(raw.fileno()).st_size)
    forked = fork_bytes(lambda: _second_half(path, split)) if split is not None else None
    try:
        table, header = _read(stream, size=split, header=True)  # type: ignore[arg-type]
        if header is None:
            raise NotOrdinary
    except BaseException:  # the exact reader takes the file: the copy's half is never read
        if forked is not None:
            abandon(forked)
        raise
    if split is not None:
        lines_before = 1 + len(table.types) + table.extra_headers
        rest = _collected(forked, stream)
        if rest is None:
            rest, _ = _read(stream, start=split, header=False)  # type: ignore[arg-type]
        table.append_all(rest, lines_before)
    return table, header


def _read(stream: IO[bytes], *, start: int = 0, size: int | None = None,
          header: bool) -> tuple[ScanTable, Row | None]:
    """The table of the lines from offset ``start`` (where ``stream`` is), at most ``size``
    bytes; with ``header``, the first line is the session header, whose row comes back too."""
    table = ScanTable()
    first: Row | None = None
    for block in ordinary_blocks(stream, start=start, size=size, header=header):
        if header and first is None:
            first = block.row(0)
            table.incomplete |= not first.terminated
            block = Block(block.first_line + 1, block.starts[1:], block.ends[1:], block.fields[1:], block.terminated)
        table.add_block(block)
    return table, first


def _second_half(path: str, start: int) -> bytes:
    """The table of the lines from ``start`` and the offset the read stopped at (in a forked copy)."""
    with open_session_file(path) as raw:
        raw.seek(start)
        table, _ = _read(raw, start=start, header=False)
        return pickle.dumps((table, raw.tell()), protocol=pickle.HIGHEST_PROTOCOL)


def _split_point(raw: IO[bytes], size: int) -> int | None:
    """The offset just after the first LF past the middle of the file, if any is near."""
    if size < READ_IN_HALVES_BYTES:
        return None
    raw.seek(size // 2)
    newline = raw.read(RECORD_LIMIT_BYTES).find(b"\n")
    raw.seek(0)
    split = size // 2 + newline + 1
    return split if newline >= 0 and split < size else None


def _collected(forked: Forked | None, stream: HashingStream) -> ScanTable | None:
    """The second half's table from the forked copy, the file's bytes hashed on here up to where
    the copy stopped; None when the copy failed (the caller reads the half itself)."""
    data = collect(forked) if forked is not None else None
    if data is None:
        return None
    table, stop = pickle.loads(data)  # our own copy's bytes, through our own pipe
    while stream.size < stop and stream.read(min(READ_CHUNK_BYTES, stop - stream.size)):
        pass
    if not isinstance(table, ScanTable):
        raise NotOrdinary
    return table
