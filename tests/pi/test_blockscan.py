"""The block read of ordinary session files (``reference.pi.model.blocks``): what Pi writes is read
in blocks, and an unusual line hands the file to the exact reader.  That the block read gives
exactly the exact reader's scan, tool exchanges included, is checked with the archive's exchange
read (tests/rebase/test_archive.py); that a run reuses its scan, in tests/lineage/test_proof.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit.scanlines import HEADER, entry

from reference.pi.model.blocks import NotOrdinary, ordinary_blocks


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

