"""What one step proved, handed on as a value (``reference.lineage.proof``): a scan is taken only
while its file is unchanged, a prefix proof only for exactly the claim it proved."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from testkit.scanlines import HEADER, entry

from reference.lineage import proof as prefix
from reference.lineage.proof import ProvenPrefix, prefix_holds, scan_once


def test_a_run_reuses_its_scan_only_while_the_file_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + b"\n" + entry("a", None) + b"\n")
    first = scan_once(str(path), ())
    assert scan_once(str(path), (first,)) is first
    with path.open("ab") as handle:
        handle.write(entry("b", "a") + b"\n")
    again = scan_once(str(path), (first,))
    assert again is not first and again.entry_count == 2 and first.entry_count == 1


def test_a_prefix_proof_serves_only_its_own_claim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    data = HEADER + b"\n" + entry("a", None) + b"\n"
    path.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    hashed: list[int] = []
    original = prefix.sha256_prefix

    def counted(file: str, size: int) -> str | None:
        hashed.append(size)
        return original(file, size)

    monkeypatch.setattr(prefix, "sha256_prefix", counted)
    proof = prefix_holds(str(path), len(data), digest)
    assert proof == ProvenPrefix(str(path.resolve()), len(data), digest) and hashed == [len(data)]
    assert prefix_holds(str(path), len(data), digest, proof) == proof and hashed == [len(data)]
    other = ProvenPrefix(proof.path, proof.size - 1, digest)
    assert prefix_holds(str(path), len(data), digest, other) == proof and len(hashed) == 2
    path.write_bytes(data.replace(b'"a"', b'"b"'))  # a proof is not a cache: a real check fails
    assert prefix_holds(str(path), len(data), digest) is None
    assert prefix_holds(str(path), len(data), "0" * 63) is None and prefix_holds(str(path), 0, digest) is None


@pytest.mark.parametrize(("size", "digest"), [
    (0, hashlib.sha256(b"").hexdigest()),  # upstream's checkPrefix wants at least one byte
    (1.5, None), (True, None), (2**53, None), (-1, None), ("1", None),
    (1, "A" * 64), (1, "a" * 63), (1, "a" * 65), (1, 7),
])
def test_a_malformed_claim_never_holds(tmp_path: Path, size: object, digest: object) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + b"\n")
    claim = hashlib.sha256(HEADER[:1]).hexdigest() if digest is None else digest
    assert prefix_holds(str(path), size, claim) is None
    assert prefix_holds(str(path), 1, hashlib.sha256(HEADER[:1]).hexdigest()) is not None
