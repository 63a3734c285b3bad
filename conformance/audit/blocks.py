"""A session file as LF-aligned blocks of bytes, the unit DuckDB reads the canonical side in.

DuckDB has no ranged read of a file as bytes (``read_blob`` takes it whole; its CSV reader takes
CR for a line break), so the audit opens the file read-only and hands DuckDB one block at a time:
memory follows the block size and the longest line, never the size of the file. Nothing here
looks inside a line; DuckDB splits, locates, hashes and classifies (``sql/canonical_insert_block.sql``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: What is read at a time; a block is this long, or one line when a line is longer.
DEFAULT_BLOCK_BYTES: Final = 8 * 1024 * 1024

LF: Final = b"\n"


@dataclass(frozen=True, slots=True)
class Block:
    """Bytes of a session file from ``start``, ending just after an LF or at the end of the file."""

    start: int
    data: bytes
    lines_before: int  # the physical lines of the file before this block


def iter_blocks(session_file: Path, *, block_bytes: int = DEFAULT_BLOCK_BYTES) -> Iterator[Block]:
    """Every byte of the file once, in order, as blocks cut after an LF (opened read-only)."""
    start = 0
    lines_before = 0
    pending = bytearray()  # grows in place: a line of many blocks costs its length, not its square
    with session_file.open("rb") as stream:
        while chunk := stream.read(block_bytes):
            pending += chunk
            last_lf = chunk.rfind(LF)  # only the new bytes can hold the block's last LF
            if last_lf < 0:
                continue  # a line longer than a block: read on until its LF
            cut = len(pending) - len(chunk) + last_lf + 1
            block = Block(start, bytes(pending[:cut]), lines_before)
            yield block
            start += cut
            lines_before += block.data.count(LF)
            del pending[:cut]
    if pending:
        yield Block(start, bytes(pending), lines_before)
