"""tools/crashstates.py (issue 28): a seeded small run of the explorer on the real workloads, with
the reference run on each state; the slow functions are in tests/slow.txt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from crashsim.capture import capture
from crashsim.config_workload import ConfigSet
from crashsim.drop_syncs import without_site
from crashsim.explorer import Exploring, explore_workload
from crashsim.index_workloads import IndexBuild, IndexCatchUp
from crashsim.model import CrashState, Model, Trace, states_at
from crashsim.rebase_workloads import LineageRun, RebaseRun, RecoveryRun
from crashsim.running import Outcome, recall_answer
from crashsim.workloads import workloads
from testkit.paths import REPO_ROOT

from reference.artifacts.phases import CRASH_POINTS
from reference.primitives.platform_ops import steps
from reference.primitives.platform_ops.family import CURRENT, Platform
from reference.primitives.platform_ops.recorder import CreateFile
from reference.primitives.platform_ops.sync_sites import SyncSite


def test_every_crash_state_of_config_set_holds_the_old_file_or_the_new(tmp_path: Path) -> None:
    report = explore_workload(ConfigSet(), tmp_path)
    assert report.steps == 5 and report.states >= 4 and report.sampled == 0
    assert report.violations == ()


def test_a_seeded_sample_of_a_rebase_run_keeps_every_invariant(tmp_path: Path) -> None:
    report = explore_workload(RebaseRun(), tmp_path, Exploring(seed=7, point_limit=16, max_states=12))
    assert report.steps > 30
    assert report.states == report.sampled == 12
    assert min(report.per_model.values()) > 100
    assert report.violations == ()


@pytest.fixture(scope="module")
def rebase_trace(tmp_path_factory: pytest.TempPathFactory) -> Trace:
    """One rebase run, recorded (the workload's folder stays where it ran)."""
    root = tmp_path_factory.mktemp("rebase")
    workload = RebaseRun()
    workload.prepare(root)
    return capture(root, lambda: workload.run(root))


def _has_journal(state: CrashState) -> bool:
    return any(n.startswith("sessions/.ds4-rebase/operations/") and n.endswith(".json") for n in state.visible()[1])


def test_a_finished_rebase_keeps_its_journal_and_target_through_any_power_loss(rebase_trace: Trace) -> None:
    """Every folder the rebase creates is synced into its parent, so once the run has returned no
    crash state (general model) lacks the journal or the target: the journal's folder
    ``.ds4-rebase/operations`` was never synced into ``.ds4-rebase`` before, and a power loss could
    drop the journal of a finished rebase (a fresh run then refused with target-integrity)."""
    finished = states_at(rebase_trace, len(rebase_trace.steps), Model.GENERAL)
    assert finished
    for state in finished:
        assert _has_journal(state), state.description
        assert any(n.startswith("sessions/ds4-rebase_") and n.endswith(".jsonl") for n in state.visible()[1])


def test_once_the_first_journal_write_returned_every_crash_state_keeps_a_journal(rebase_trace: Trace) -> None:
    """``.ds4-rebase`` is made with the lock's folder, before any journal: it is synced into the
    sessions folder then, or a crash that kept the target's link could lose the journal's folder
    (a fresh run then refused with target-integrity)."""
    journal_creates = [i for i, step in enumerate(rebase_trace.steps)
                       if isinstance(step, CreateFile) and "/operations/" in step.path]
    for point in range(journal_creates[1], len(rebase_trace.steps) + 1):  # the second journal write began
        for state in states_at(rebase_trace, point, Model.GENERAL, point_limit=32):
            assert _has_journal(state), state.description


def test_without_the_lock_s_folder_sync_a_journal_may_vanish_mid_run(rebase_trace: Trace) -> None:
    """The site ``--drop-syncs`` reports not caught: with the lock's syncs of ``.ds4-rebase`` taken
    out, a crash after the second journal write may lose the journal (and keep the target); the
    run on such a state refuses with a documented code (target-integrity), which deliverable 3's
    invariants accept, so only this model-level check shows the sync matters."""
    dropped = without_site(rebase_trace, SyncSite.LOCK_NEW_FOLDERS)
    journal_creates = [i for i, step in enumerate(dropped.steps)
                       if isinstance(step, CreateFile) and "/operations/" in step.path]
    lost = [state for point in range(journal_creates[1], len(dropped.steps) + 1)
            for state in states_at(dropped, point, Model.GENERAL, point_limit=32) if not _has_journal(state)]
    assert lost


def test_a_journal_write_without_its_fsync_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The invariants can fail: with the journal temporaries' fsync left out, a crash may keep a
    journal's rename and lose its bytes, and the explorer says which journal is not JSON."""
    real_sync = steps.sync_file

    def sync_all_but_journals(fd: int, path: str | os.PathLike[str], site: SyncSite,
                              platform: Platform = CURRENT) -> None:
        if ".json." not in os.fspath(path):
            real_sync(fd, path, site, platform)

    monkeypatch.setattr(steps, "sync_file", sync_all_but_journals)
    how = Exploring(models=(Model.GENERAL,), seed=2, point_limit=32, max_states=12)
    report = explore_workload(RebaseRun(), tmp_path, how)
    assert report.violations, "no state lost a journal's bytes"
    assert {v.invariant for v in report.violations} == {"journal-valid-or-absent", "durable-once-returned", "target-recovers"}
    journals = [v for v in report.violations if v.invariant == "journal-valid-or-absent"]
    assert journals and all("not JSON" in v.detail or "missing" in v.detail for v in journals)
    returned = [v for v in report.violations if v.invariant == "durable-once-returned"]  # even after the run
    assert all("sessions/.ds4-rebase/operations/" in v.detail for v in returned)


@pytest.mark.parametrize("flag", ["--json"])
def test_the_command_prints_the_issue_s_json_object(flag: str) -> None:
    done = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "crashstates.py"), "--workload", "config-set",
                           "--seed", "3", flag], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"states", "workloads", "violations", "seed"}
    assert result["seed"] == 3 and result["violations"] == []
    assert result["states"] == result["workloads"]["config-set"]["states"] >= 4


def test_every_workload_has_its_own_name_and_each_crash_point_a_recovery() -> None:
    names = [w.name for w in workloads()]
    assert len(names) == len(set(names)) >= 12
    assert {f"recover-{point}" for point in CRASH_POINTS} <= set(names)
    assert {"rebase-lineage", "index-build", "index-catchup"} <= set(names)


@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_seeded_sample_of_the_recovery_from_each_crash_point_keeps_every_invariant(point: str, tmp_path: Path) -> None:
    """The rebase dies at ``point`` (a child process), then the recorded ``--recover`` finishes it."""
    workload = RecoveryRun(point)
    report = explore_workload(workload, tmp_path, Exploring(models=(Model.GENERAL,), seed=5, point_limit=16,
                                                           max_states=4))
    assert workload.operation.startswith("rebase_")
    assert report.steps >= 5 and report.states == 4
    assert report.violations == ()
    assert set(report.outcomes) <= {"recover: verified", "fresh run: verified"}


def test_a_seeded_sample_of_a_rebase_of_a_rebased_session_keeps_its_lineage(tmp_path: Path) -> None:
    workload = LineageRun()
    report = explore_workload(workload, tmp_path, Exploring(models=(Model.GENERAL,), seed=2, point_limit=16,
                                                           max_states=6))
    assert report.steps > 30 and report.states == 6
    assert len(workload.answers) == 2 and all('"relation": "lineage-ancestor"' in a for a in workload.answers)
    assert report.violations == ()


def test_the_finished_rebase_of_a_rebased_session_recovers_from_its_own_target_and_verifies_its_lineage(
        tmp_path: Path) -> None:
    workload = LineageRun()
    workload.prepare(tmp_path)
    workload.run(tmp_path)
    assert workload.recovery_session(tmp_path).name != workload.session.rpartition("/")[2]
    assert workload.check(tmp_path).broken == ()
    (tmp_path / workload.session).write_bytes(b"")  # the first target, lost: the lineage cannot verify
    assert {b.invariant for b in workload.check(tmp_path).broken} >= {"source-unchanged", "lineage-verifies"}


@pytest.mark.parametrize("workload", [IndexBuild, IndexCatchUp])
def test_after_catch_up_every_crash_state_of_the_index_answers_as_a_fresh_rebuild(
        workload: type[IndexBuild], tmp_path: Path) -> None:
    chosen = workload()
    report = explore_workload(chosen, tmp_path)
    assert report.states >= 3 and report.sampled == 0
    assert len(chosen.answers) == 3 and all('"hits": [{' in a for a in chosen.answers)
    assert report.violations == ()
    # the session file is the one the index saw (not a copy), so catch-up takes its own path there
    assert report.outcomes.get("catch-up: unchanged") == 1
    assert "catch-up: appended" in report.outcomes or workload is IndexBuild


def test_the_index_invariant_fails_on_an_answer_that_is_not_the_fresh_rebuild_s(tmp_path: Path) -> None:
    chosen = IndexCatchUp()
    chosen.prepare(tmp_path)
    chosen.run(tmp_path)
    assert chosen.check(tmp_path).broken == ()
    chosen.answers = (chosen.answers[0].replace('"entryId": "e2', '"entryId": "e1'), *chosen.answers[1:])
    assert {b.invariant for b in chosen.check(tmp_path).broken} == {"recall-as-fresh-rebuild"}


def test_a_recall_answer_leaves_out_only_the_random_source_refs() -> None:
    stdout = json.dumps({"status": "complete", "hits": [{"sourceRef": "hist_" + "a" * 32, "entryId": "e1"}]})
    assert json.loads(recall_answer(Outcome(0, stdout, None))) == {"status": "complete", "hits": [{"entryId": "e1"}]}
    assert recall_answer(Outcome(None, "", "Traceback\nKeyError: 'x'")) == "traceback: KeyError: 'x'"
def _crashstates(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "crashstates.py"), *arguments],
                          capture_output=True, text=True, timeout=120, check=False)


def test_drop_syncs_lists_every_site_and_catches_the_config_file_s_fsync() -> None:
    """With the configuration temporary's fsync removed a power loss may keep the rename and lose
    the bytes (the bug the explorer found first): ``--drop-syncs`` must say that site is caught,
    naming the workload, the state and the invariant; every site is listed with a reason."""
    done = _crashstates("--workload", "config-set", "--drop-syncs", "--seed", "3", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"states", "workloads", "violations", "seed", "sync_sites"}
    sites = {entry["site"]: entry for entry in result["sync_sites"]}
    assert set(sites) == {str(site) for site in SyncSite}
    assert all(set(entry) == {"site", "caught", "why"} and entry["why"] for entry in result["sync_sites"])
    config_file = sites[SyncSite.CONFIG_FILE]
    assert config_file["caught"] is True
    assert "config-set" in config_file["why"] and "config-old-or-new" in config_file["why"]
    assert "after " in config_file["why"]  # the state's description
    assert sites[SyncSite.CONFIG_FOLDER]["caught"] is True
    assert "durable-once-returned" in sites[SyncSite.CONFIG_FOLDER]["why"]
    assert sites[SyncSite.INSTALL_FILE] == {"site": str(SyncSite.INSTALL_FILE), "caught": False,
                                            "why": "not caught: no workload run reaches it (config-set)"}


def test_drop_syncs_prints_a_table_of_sites() -> None:
    done = _crashstates("--workload", "config-set", "--drop-syncs", "--model", "general")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| sync site"))
    rows = [line for line in lines[header + 2:] if line.startswith("| ")]
    assert len(rows) == len(SyncSite)
    assert any(row.startswith(f"| `{SyncSite.CONFIG_FILE}` | caught |") for row in rows)


@pytest.mark.parametrize("arguments", [["--workload", "nope"], ["--max-states", "many"], ["--bogus"],
                                       ["--seed", "1", "--seed", "2"], ["--max-states", "0"]])
def test_bad_arguments_are_one_coded_line_and_exit_2(arguments: list[str]) -> None:
    done = _crashstates(*arguments)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("crashstates: usage: ")


def test_help_explains_the_tool_whole() -> None:
    done = _crashstates("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "checked by running the reference on it" in text  # the description was cut here
    for option in ("--drop-syncs", "--workload", "--model", "--max-states", "--point-limit", "--json"):
        assert option in text
    assert "docs/rebase-durability.md" in text and "exit" in text.lower()
