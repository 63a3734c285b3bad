"""The crash-state generator (issue 28, deliverable 2) on hand-made traces: the states each
persistence model allows, a rename reverted until its folder is synced, torn appends, folders,
hard links, and the seeded sample."""

from __future__ import annotations

import os
from pathlib import Path

from crashsim.capture import materialize
from crashsim.model import CrashState, Model, Trace, UnitHistory, explore, pieces, states_at

from reference.primitives.platform_ops.recorder import (
    CreateFile,
    Link,
    MakeFolder,
    Rename,
    Step,
    SyncFile,
    SyncFolder,
    Unlink,
    WriteBytes,
)
from reference.primitives.platform_ops.sync_sites import SyncSite

OLD, NEW = (0, 1), (0, 2)
FILE, FOLDER = SyncSite.REPLACE_FILE, SyncSite.REPLACE_FOLDER


def _trace(*steps: Step, units: tuple[UnitHistory, ...] = ()) -> Trace:
    return Trace(frozenset({"d"}), (("d/j", 1, b"old"),), steps, units)


def _views(trace: Trace, model: Model) -> set[tuple[tuple[str, bytes], ...]]:
    """Each state as what a reader sees: (name, bytes) pairs."""
    result = set()
    for state in explore(trace, model).states:
        contents = dict(state.contents)
        result.add(tuple(sorted((name, contents.get(inode, b"")) for name, inode in state.visible()[1].items())))
    return result


DURABLE_REPLACE = _trace(CreateFile("d/t", NEW), WriteBytes("d/t", NEW, 0, b"new"), SyncFile("d/t", NEW, FILE),
                         Rename("d/t", "d/j", NEW), SyncFolder("d", FOLDER))
#: The config-set bug the explorer found: no fsync between the write and the rename.
UNSYNCED_REPLACE = _trace(CreateFile("d/t", NEW), WriteBytes("d/t", NEW, 0, b"new"), Rename("d/t", "d/j", NEW),
                          SyncFolder("d", FOLDER))


def test_a_durable_replace_leaves_the_old_file_or_the_new_under_every_model() -> None:
    expected = {(("d/j", b"old"),), (("d/j", b"old"), ("d/t", b"")), (("d/j", b"old"), ("d/t", b"new")),
                (("d/j", b"new"),)}
    assert _views(DURABLE_REPLACE, Model.ORDERED) == _views(DURABLE_REPLACE, Model.GENERAL) == expected
    # harsh: the temporary's size persisted without its bytes, before its fsync
    assert _views(DURABLE_REPLACE, Model.HARSH) == expected | {(("d/j", b"old"), ("d/t", b"\0\0\0"))}


def test_the_models_differ_on_a_rename_whose_bytes_were_not_fsynced() -> None:
    ordered, general, harsh = (_views(UNSYNCED_REPLACE, m) for m in (Model.ORDERED, Model.GENERAL, Model.HARSH))
    assert (("d/j", b""),) not in ordered  # data=ordered: the bytes go before the rename's commit
    assert (("d/j", b""),) in general  # the rename kept, the bytes lost: the empty config file
    assert (("d/j", b"\0\0\0"),) in harsh  # the size kept, the bytes not
    assert (len(ordered), len(general), len(harsh)) == (4, 5, 7)
    assert ordered < general < harsh


def test_a_rename_is_reverted_until_its_folder_is_synced() -> None:
    renamed = states_at(DURABLE_REPLACE, 4)  # the rename made, its folder not yet synced
    old = [s for s in renamed if dict(s.visible()[1]) == {"d/j": 1}]
    assert old and all("lost #3 Rename" in s.description for s in old)
    assert {tuple(s.visible()[1].items()) for s in renamed} == {(("d/j", 1),), (("d/j", 1), ("d/t", 2)), (("d/j", 2),)}
    assert [tuple(s.visible()[1].items()) for s in states_at(DURABLE_REPLACE, 5)] == [(("d/j", 2),)]


def test_an_append_is_torn_at_sector_granularity() -> None:
    data = bytes(range(256)) * 5  # 1280 bytes from offset 100: pieces 100-512, 512-1024, 1024-1380
    write = WriteBytes("d/j", OLD, 100, data)
    assert pieces(write) == [(100, 412), (512, 512), (1024, 356)]
    trace = Trace(frozenset({"d"}), (("d/j", 1, b"x" * 100),), (write,))
    general = {v[0][1] for v in _views(trace, Model.GENERAL)}
    assert {len(d) for d in general} == {100, 512, 1024, 1380}  # a prefix of the sectors
    assert all(d == (b"x" * 100 + data)[:len(d)] for d in general)
    harsh = {v[0][1] for v in _views(trace, Model.HARSH)}
    assert general < harsh  # any subset; the sectors not written may also read as zeros
    assert b"x" * 100 + bytes(412) + data[412:924] + bytes(356) in harsh
    assert b"x" * 100 + data[:412] + bytes(512) + data[924:] in harsh
    assert len(harsh) == 8 + 4  # each subset of the 3 sectors; 4 more where the size grew over holes of zeros


def test_a_new_folder_and_its_files_vanish_until_the_parent_is_synced() -> None:
    trace = _trace(MakeFolder("d/n"), CreateFile("d/n/f", NEW), WriteBytes("d/n/f", NEW, 0, b"data"),
                   SyncFile("d/n/f", NEW, FILE), SyncFolder("d/n", FOLDER))
    last = states_at(trace, 5)  # the file and its folder synced, the folder's own entry in d not
    assert {tuple(s.visible()[1]) for s in last} == {("d/j",), ("d/j", "d/n/f")}
    assert all("lost #0 MakeFolder" in s.description for s in last if "d/n/f" not in s.visible()[1])


def test_a_hard_link_is_materialized_as_one_file(tmp_path: Path) -> None:
    trace = _trace(CreateFile("d/t", NEW), WriteBytes("d/t", NEW, 0, b"target"), SyncFile("d/t", NEW, FILE),
                   Link("d/t", "d/target", NEW), Unlink("d/t", NEW), SyncFolder("d", FOLDER))
    states = explore(trace, Model.GENERAL).states
    both = next(s for s in states if dict(s.visible()[1]).keys() == {"d/j", "d/t", "d/target"})
    materialize(both, tmp_path)
    assert (tmp_path / "d" / "target").read_bytes() == b"target"
    assert os.stat(tmp_path / "d" / "t").st_ino == os.stat(tmp_path / "d" / "target").st_ino
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["j", "t", "target"]


def test_sqlite_units_take_each_committed_version_seen_so_far_and_a_garbled_one_when_harsh() -> None:
    unit = UnitHistory("d/i.sqlite", ((), (("d/i.sqlite", b"v1"),), (("d/i.sqlite", b"v2" * 8),)), (0, 1, 2))
    trace = _trace(CreateFile("d/a", NEW), SyncFolder("d", FOLDER), units=(unit,))
    assert {s.unit_files for s in states_at(trace, 1)} == {(), (("d/i.sqlite", b"v1"),)}
    harsh = states_at(trace, 2, Model.HARSH)
    assert (("d/i.sqlite", b"v2" * 4 + b"\xa5" * 8),) in {s.unit_files for s in harsh}
    # point 0: no unit, no d/a; point 1: d/a or not, unit absent or v1; point 2: d/a with v2
    assert len(explore(trace, Model.GENERAL).states) == 1 + 3 + 1


def test_too_many_choices_are_sampled_with_the_seed() -> None:
    steps = [CreateFile(f"d/f{n}", (0, 10 + n)) for n in range(9)]  # 512 subsets at the last point
    trace = _trace(*steps)
    full = explore(trace, Model.GENERAL, point_limit=512)
    assert len(full.states) == 512 and not full.sampled
    first, again = (explore(trace, Model.GENERAL, seed=5, point_limit=50) for _ in range(2))
    assert first.sampled and first.sampled == again.sampled
    assert [s.digest() for s in first.states] == [s.digest() for s in again.states]
    assert isinstance(first.states[0], CrashState)
