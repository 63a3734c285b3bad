"""Source references: grammar, ten-minute lifetime, 512 cap, session binding (contract §3.2)."""

from __future__ import annotations

from typing import Any

from reference.primitives.clock import ManualClock
from reference.recall.refs import REF_CAP, REF_PATTERN, REF_TTL_MS, RefTable, SourceRef


def _mint(table: RefTable) -> SourceRef:
    """A live ref, as a recall makes one it returns: drafted, then kept."""
    source = table.draft(**FIELDS)
    table.keep(source)
    return source


FIELDS: dict[str, Any] = dict(
    session_id="s", session_file="/f", project_path="/p", entry_id="e", content_hash="h",
    issuing_session_id="s", scope="current-branch", kind="message", role="user", timestamp=1,
    relation="ancestor", classification="normal", public_project_id="p", public_session_id="s",
    public_entry_id="e",
)


def test_refs_are_opaque_random_and_well_formed() -> None:
    table = RefTable(ManualClock(0))
    refs = {_mint(table).ref for _ in range(50)}
    assert len(refs) == 50
    assert all(REF_PATTERN.match(ref) for ref in refs)


def test_a_ref_expires_after_ten_minutes() -> None:
    clock = ManualClock(1)
    table = RefTable(clock)
    ref = _mint(table).ref
    clock.set(1 + REF_TTL_MS - 1)
    assert table.resolve(ref, "s") is not None
    clock.set(1 + REF_TTL_MS)
    assert table.resolve(ref, "s") is None
    clock.set(1)
    assert table.resolve(ref, "s") is None  # deleted, not just hidden


def test_a_ref_from_another_session_is_refused_and_forgotten() -> None:
    table = RefTable(ManualClock(0))
    ref = _mint(table).ref
    assert table.resolve(ref, "other") is None
    assert table.resolve(ref, "s") is None


def test_at_most_512_live_refs_oldest_evicted_first() -> None:
    table = RefTable(ManualClock(0))
    first = _mint(table).ref
    second = _mint(table).ref
    for _ in range(REF_CAP - 1):
        _mint(table)
    assert len(table) == REF_CAP
    assert table.resolve(first, "s") is None
    assert table.resolve(second, "s") is not None


def test_expired_refs_go_before_live_ones_are_evicted() -> None:
    clock = ManualClock(0)
    table = RefTable(clock)
    old = [_mint(table).ref for _ in range(10)]
    clock.advance(REF_TTL_MS)
    keep = _mint(table).ref
    assert len(table) == 1 and all(table.resolve(r, "s") is None for r in old)
    assert table.resolve(keep, "s") is not None
