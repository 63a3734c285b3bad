"""The generator's bytes are pinned: fixed options give files whose SHA-256 never changes.

Why: fixtures, benchmark inputs and bug reports are named by seed and options alone, so any change
to what the generator writes (a reordered random draw, a key order) must be a deliberate one.
Together the cases use every option of ``GenOptions``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from reference.fixturegen.generator import generate
from reference.fixturegen.options import GenOptions
from reference.primitives.jsonbytes import js_stringify

#: name -> (options, [(SHA-256 of the file, SHA-256 of its name, id, count, leaf and notable ids as JSON)])
PINNED: dict[str, tuple[GenOptions, list[tuple[str, str]]]] = {
    "tree": (
        GenOptions(
            seed=7, sessions=2, entries=40, siblings=12, compactions=2, branches=3, malformed=2, blank=1
        ),
        [
            (
                "068a6af7ec6670c5c59c5746c466b970a38eb75557efd5b45d6dc0e2643e3215",
                "a7eef5945415b3a169efb51581a0f522ac61e9e3def8e4c6c8dcb4af598c9795",
            ),
            (
                "1956d670f136a4477efb2782db81247d487f79a1beb231e45bd05f994c795c7f",
                "8eba76ce6c2ab08ed597d1c6aecf5986b298841576af84e8f228f3eab108a686",
            ),
        ],
    ),
    "v1": (
        GenOptions(seed=5, entries=30, legacy=1, crlf=True, torn_tail=True, secrets=False),
        [
            (
                "145e1e0b60cd7acf37b0b5edaa7bd34c035881a547e52b29172dafc7783e0584",
                "58944d2681084779fea629ea8f5335dd87116897bf90456b1765d5921cb00b08",
            )
        ],
    ),
    "v2": (
        GenOptions(seed=13, entries=30, legacy=2, cwd="/srv/x", target_bytes=30_000),
        [
            (
                "dfaf4627775dc2617d1e1576a62820c0f370290ef563b1c1453a4911ecb1381d",
                "2a4a00cc253b3b492b2ba94f9b0b2804af65ce4e61ba1238837a8b35d82b4c34",
            )
        ],
    ),
    "empty": (
        GenOptions(seed=2, entries=0, torn_tail=True),
        [
            (
                "69a68a4b0878e35707f598537002ca19ee675668a71f2a14ed78def5ea51b7e9",
                "45eb9f9e83380d5c9b57278a9cd4a5cc0560b9c20a2330f4172a29c4db8fda19",
            )
        ],
    ),
}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("name", sorted(PINNED))
def test_generated_bytes_and_facts_are_pinned(name: str, tmp_path: Path) -> None:
    options, expected = PINNED[name]
    sessions = generate(tmp_path, options)
    got = []
    for s in sessions:
        facts = js_stringify([s.path.name, s.session_id, s.entry_count, s.leaf_id, s.notable])
        got.append((_sha256(s.path.read_bytes()), _sha256(facts.encode("utf-8"))))
    assert got == expected
