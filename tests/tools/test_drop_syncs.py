"""``--drop-syncs`` on hand-made traces (issue 28, deliverable 4): one site's syncs taken out, the
SQLite units kept at their place, the later syncs of the same folder named, and each finding's
wording (caught, not reached, covered, not caught)."""

from __future__ import annotations

from crashsim.drop_syncs import Dropped, finding, later_syncs, without_site
from crashsim.explorer import Violation
from crashsim.model import Model, Trace, UnitHistory, states_at

from reference.primitives.platform_ops.recorder import (
    CreateFile,
    Rename,
    Step,
    SyncFile,
    SyncFolder,
    WriteBytes,
)
from reference.primitives.platform_ops.sync_sites import SyncSite

NEW = (0, 2)
FILE, FOLDER, NEW_FOLDERS = SyncSite.REPLACE_FILE, SyncSite.REPLACE_FOLDER, SyncSite.REPLACE_NEW_FOLDERS


def _trace(*steps: Step, units: tuple[UnitHistory, ...] = ()) -> Trace:
    return Trace(frozenset({"d"}), (("d/j", 1, b"old"),), steps, units)


REPLACE = _trace(CreateFile("d/t", NEW), WriteBytes("d/t", NEW, 0, b"new"), SyncFile("d/t", NEW, FILE),
                 Rename("d/t", "d/j", NEW), SyncFolder("d", FOLDER), SyncFolder("d", NEW_FOLDERS))


def _journal_bytes(trace: Trace, point: int) -> set[bytes]:
    result = set()
    for state in states_at(trace, point, Model.GENERAL):
        names, contents = state.visible()[1], dict(state.contents)
        result.add(contents.get(names["d/j"], b"") if "d/j" in names else b"<absent>")
    return result


def test_without_the_file_sync_a_power_loss_after_the_rename_may_leave_an_empty_journal() -> None:
    assert _journal_bytes(REPLACE, len(REPLACE.steps)) == {b"new"}
    dropped = without_site(REPLACE, FILE)
    assert [type(s).__name__ for s in dropped.steps] == ["CreateFile", "WriteBytes", "Rename", "SyncFolder", "SyncFolder"]
    assert b"" in _journal_bytes(dropped, len(dropped.steps))  # the rename kept, the bytes lost


def test_a_unit_version_keeps_its_place_among_the_steps_left() -> None:
    unit = UnitHistory("d/i.sqlite", ((), (("d/i.sqlite", b"v1"),)), (0, 4))  # after the Rename
    dropped = without_site(_trace(*REPLACE.steps, units=(unit,)), FILE)
    assert dropped.units[0].seen_at == (0, 3)  # the SyncFile before it is gone


def test_the_later_syncs_of_the_same_folder_are_named() -> None:
    assert later_syncs(REPLACE, FOLDER) == (str(NEW_FOLDERS),)
    assert later_syncs(REPLACE, NEW_FOLDERS) == ()
    assert later_syncs(REPLACE, FILE) == ()


def _dropped(added: int, violations: tuple[Violation, ...] = (), later: tuple[str, ...] = ()) -> Dropped:
    return Dropped("w", 1, added, added, violations, (), later, {"recover: verified": added})


def test_each_finding_says_why() -> None:
    broken = Violation("w", "general: after 3/5 steps; torn #1 0/1 sectors", "journal-valid-or-absent", "not JSON")
    caught = finding(FILE, [_dropped(4, (broken,))], ["w"])
    assert caught.caught and caught.why.startswith("w: general: after 3/5 steps; torn #1 0/1 sectors: "
                                                   "journal-valid-or-absent (not JSON); ")
    assert finding(FILE, [], ["w", "v"]).why == "not caught: no workload run reaches it (w, v)"
    covered = finding(FOLDER, [_dropped(0, later=(str(NEW_FOLDERS),))], ["w"])
    assert not covered.caught and "adds no crash state" in covered.why and str(NEW_FOLDERS) in covered.why
    quiet = finding(FOLDER, [_dropped(7)], ["w"])
    assert not quiet.caught and quiet.why.startswith("not caught: the added states (w 7 of 7 checked) break no invariant")
    assert "recover: verified 7" in quiet.why
