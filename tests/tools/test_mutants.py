"""tools/mutants.py: the catalogue checked and applied by content, verdicts from real mutants of the real
reference (narrow scenario selections keep it fast), a hang that never hangs the run, and the sample."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import mutants as runner
import pytest
from mutation import report
from mutation.catalogue import apply
from mutation.judge import Judgement, Setup, Verdict, provenance
from mutation.sample import choose, week_seed

from conformance.mutant_catalogue import Mutant

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "mutants.py"

# Real mutants of reference/lineage/chain.py: LINEAGE-001 fails when no lineage link is followed.
NO_LINEAGE_FIND = "\n    for depth in range(MAX_DEPTH):\n        pair = find_pair(current)"
NO_LINEAGE_REPLACE = "\n    for depth in range(0):\n        pair = find_pair(current)"
NO_LINEAGE = f"find = {json.dumps(NO_LINEAGE_FIND)}\nreplace = {json.dumps(NO_LINEAGE_REPLACE)}\n"
ENDLESS_LOOP = '''
find = """
    visited: set[str] = set()
    origins: dict[str, Origin] = {}"""
replace = """
    while True:
        pass
    visited: set[str] = set()
    origins: dict[str, Origin] = {}"""
'''
ONE_DEEPER = '''
find = "MAX_DEPTH: Final = 16"
replace = "MAX_DEPTH: Final = 17"
'''


def entry(entry_id: str, kills: list[str], patch: str, *, section: str = "contract.md: lineage") -> str:
    return (f'[[mutant]]\nid = "{entry_id}"\narea = "{entry_id.split("-")[0]}"\nsection = "{section}"\n'
            f'bug = "a port bug of {entry_id}"\nkills = {json.dumps(kills)}\n{patch}\n')


def catalogue(folder: Path, *entries: str, name: str = "fixture.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("\n".join(entries), encoding="utf-8")
    return folder


def mutants(folder: Path, command: str, *args: str, tmp: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI as CI runs it, from outside the checkout; its temporary copies under ``tmp``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    return subprocess.run([sys.executable, str(SCRIPT), command, "--catalogue", str(folder), *args], cwd=folder,
                          env=env, capture_output=True, text=True, check=False, timeout=300)


def check(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``tools/mutants.py check`` in this process (no suite runs): its exit code and stdout."""
    code = runner.main(["check", "--catalogue", str(folder)])
    return code, capsys.readouterr().out


def test_check_accepts_entries_found_exactly_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = catalogue(tmp_path / "cat", entry("LINEAGE-M901", ["LINEAGE-001"], NO_LINEAGE),
                       entry("LINEAGE-M902", ["LINEAGE-00[12]", "LINEAGE-*"], ONE_DEEPER))
    code, out = check(folder, capsys)
    assert code == 0, out
    assert out.splitlines()[-1] == "2/2 entries apply"


def test_check_names_entries_found_zero_or_two_times(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nowhere = 'find = "this text is in no file of the reference"\nreplace = "x"\n'
    twice = 'find = "from __future__ import annotations"\nreplace = "import os"\n'
    folder = catalogue(tmp_path / "cat", entry("LINEAGE-M901", ["LINEAGE-001"], nowhere),
                       entry("LINEAGE-M902", ["LINEAGE-001"], twice), entry("LINEAGE-M903", ["LINEAGE-001"], ONE_DEEPER))
    code, out = check(folder, capsys)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "STALE LINEAGE-M901 (fixture.toml): its find text occurs 0 times under reference/"
    assert lines[1].startswith("STALE LINEAGE-M902 (fixture.toml): its find text occurs ")
    assert int(lines[1].split("occurs ")[1].split()[0]) >= 2
    assert lines[-1] == "1/3 entries apply"


@pytest.mark.parametrize(("bad", "message"), [
    ('[[mutant]]\nid = "LINEAGE-1"\narea = "LINEAGE"\nsection = "s"\nbug = "b"\nkills = ["LINEAGE-001"]\n'
     'find = "a"\nreplace = "b"\n', "$.mutant[0].id: 'LINEAGE-1' does not match"),
    (entry("LINEAGE-M901", [], ONE_DEEPER), "$.mutant[0].kills: [] should be non-empty"),
    (entry("LINEAGE-M901", ["LINEAGE-001"], ONE_DEEPER, section=""), "$.mutant[0].section: '' should be non-empty"),
    (entry("LINEAGE-M901", ["LINEAGE-001"], 'find = "MAX_DEPTH: Final = 16"\n'),
     "$.mutant[0]: 'replace' is a required property"),
    (entry("LINEAGE-M901", ["LINEAGE-001"], ONE_DEEPER) + 'extra = "x"\n', "Additional properties"),
    ("[[mutant]\n", "not TOML"),
])
def test_check_refuses_what_the_schema_refuses(tmp_path: Path, bad: str, message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(catalogue(tmp_path / "cat", bad), capsys)
    assert code == 1
    assert message in out
    assert out.splitlines()[-1].startswith("catalogue refused:")


def test_check_refuses_unknown_kills_duplicate_ids_and_a_foreign_area(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = catalogue(tmp_path / "cat", entry("LINEAGE-M901", ["LINEAGE-001", "LINEAGE-999"], ONE_DEEPER),
                       entry("READ-M901", ["LINEAGE-001"], ONE_DEEPER).replace('area = "READ"', 'area = "LINEAGE"'))
    catalogue(folder, entry("LINEAGE-M901", ["LINAEGE-*"], ONE_DEEPER), name="other.toml")
    code, out = check(folder, capsys)
    assert code == 1
    assert "LINEAGE-M901 (fixture.toml): kills 'LINEAGE-999' matches no scenario id in features/" in out
    assert "LINEAGE-M901 (other.toml): id already used in fixture.toml" in out
    assert "LINEAGE-M901 (other.toml): kills 'LINAEGE-*' matches no scenario id in features/" in out
    assert "READ-M901 (fixture.toml): area LINEAGE is not the id's READ" in out


def test_check_refuses_a_clause_id_the_spec_does_not_have(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    known = json.loads((ROOT / "docs" / "spec" / "clauses.json").read_text(encoding="utf-8"))["clauses"][0]["id"]
    folder = catalogue(tmp_path / "cat", entry("LINEAGE-M901", ["LINEAGE-001"], ONE_DEEPER) + f"clauses = [{known!r}]\n",
                       entry("LINEAGE-M902", ["LINEAGE-001"], NO_LINEAGE) + 'clauses = ["C99.9-1", "D99-2"]\n')
    code, out = check(folder, capsys)
    assert code == 1
    assert out.splitlines() == ["fixture.toml:14: LINEAGE-M902 names clause 'C99.9-1', no clause of docs/spec/",
                                "fixture.toml:14: LINEAGE-M902 names clause 'D99-2', no clause of docs/spec/",
                                "catalogue refused: 2 problem(s)"]


def test_run_reports_a_stale_entry_by_name_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nowhere = 'find = "this text is in no file of the reference"\nreplace = "x"\n'
    folder = catalogue(tmp_path / "cat", entry("LINEAGE-M901", ["LINEAGE-001"], nowhere),
                       entry("LINEAGE-M902", ["LINEAGE-999"], ONE_DEEPER))
    code = runner.main(["run", "--catalogue", str(folder), "--no-baseline"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "STALE            LINEAGE-M901 (fixture.toml): a port bug of LINEAGE-M901" in out
    assert "its find text occurs 0 times under reference/" in out
    assert "kills names no scenario of features/: LINEAGE-999" in out
    assert out.splitlines()[-1] == "killed 0/2"
    assert "[2/2] " in err
    assert runner.main(["run", "--catalogue", str(folder), "--only", "LINEAGE-M9*", "--area", "READ"]) == 2
    assert capsys.readouterr().out.startswith("no entry of ")
    assert runner.main(["run", "--catalogue", str(folder), "--sample", "0"]) == 2  # never "killed 0/0"
    assert capsys.readouterr().out.startswith("no entry of ")


def test_a_folder_without_a_catalogue_is_refused_not_judged_empty(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "mistyped"
    assert runner.main(["check", "--catalogue", str(missing)]) == 1
    assert f"{missing}: no *.toml catalogue file there" in capsys.readouterr().out
    assert runner.main(["run", "--catalogue", str(missing)]) == 2
    assert "catalogue refused: 1 problem(s)" in capsys.readouterr().out


def test_killed_killed_elsewhere_and_survived_against_the_real_reference(tmp_path: Path) -> None:
    """The copy's reference is what runs: the mutants change its verdicts (an unmutated run passes)."""
    folder = catalogue(tmp_path / "cat", entry("LINEAGE-M901", ["LINEAGE-001"], NO_LINEAGE),
                       entry("LINEAGE-M902", ["LINEAGE-002"], NO_LINEAGE),
                       entry("LINEAGE-M903", ["LINEAGE-002"], ONE_DEEPER))
    done = mutants(folder, "run", "--json", "-j", "2", "--suite-ids", "LINEAGE-00[12]")
    assert done.returncode == 1, done.stdout + done.stderr
    result = json.loads(done.stdout)
    verdicts = {item["id"]: (item["verdict"], item["failed"]) for item in result["entries"]}
    assert verdicts == {"LINEAGE-M901": ("killed", ["LINEAGE-001"]),
                        "LINEAGE-M902": ("killed-elsewhere", ["LINEAGE-001"]),
                        "LINEAGE-M903": ("survived", [])}
    assert (result["killed"], result["total"], result["passed"]) == (2, 3, False)
    assert sorted(line.split()[1] for line in done.stderr.splitlines() if line.startswith("[")) == [
        "LINEAGE-M901", "LINEAGE-M902", "LINEAGE-M903"]


def test_a_mutant_that_loops_forever_times_out_as_killed_and_leaves_no_process(tmp_path: Path) -> None:
    folder = catalogue(tmp_path / "cat", entry("LINEAGE-M901", ["LINEAGE-001"], ENDLESS_LOOP))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    done = mutants(folder, "run", "--in-process", "--no-baseline", "--timeout", "10", tmp=scratch)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TIMEOUT          LINEAGE-M901" in done.stdout
    assert "the named run outlived 10 s; its process tree was killed" in done.stdout
    assert done.stdout.splitlines()[-1] == "killed 1/1"
    assert processes_in(scratch) == []


def test_over_stdio_a_mutant_that_loops_forever_fails_its_rows_by_the_request_timeout(tmp_path: Path) -> None:
    folder = catalogue(tmp_path / "cat", entry("LINEAGE-M901", ["LINEAGE-001"], ENDLESS_LOOP))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    done = mutants(folder, "run", "--json", "--no-baseline", "--request-timeout", "2", tmp=scratch)
    assert done.returncode == 0, done.stdout + done.stderr
    [judged] = json.loads(done.stdout)["entries"]
    assert (judged["verdict"], judged["failed"]) == ("killed", ["LINEAGE-001"])
    assert processes_in(scratch) == []


def processes_in(folder: Path) -> list[int]:
    """Processes whose working directory is under ``folder`` (the runner's copies)."""
    found = []
    for cwd in Path("/proc").glob("[0-9]*/cwd"):
        try:
            if Path(os.readlink(cwd)).is_relative_to(folder):
                found.append(int(cwd.parent.name))
        except OSError:
            continue
    return found


def test_the_sample_is_deterministic_fixed_in_size_and_rotates_over_every_entry() -> None:
    ids = [f"READ-M{number:03}" for number in range(1, 24)]
    first = choose(ids, 5, seed=7)
    assert first == choose(list(reversed(ids)), 5, seed=7)
    assert len(first.ids) == 5 and len(set(first.ids)) == 5
    assert choose(ids, 5, seed=8).ids != first.ids
    covered = {entry_id for seed in range(7, 7 + 5) for entry_id in choose(ids, 5, seed).ids}
    assert covered == set(ids)
    assert choose(ids, 50, seed=3).ids == choose(ids, 50, seed=4).ids and len(choose(ids, 50, 3).ids) == 23


def test_the_default_seed_moves_on_every_iso_week_across_a_year() -> None:
    sunday, monday = datetime.date(2027, 1, 3), datetime.date(2027, 1, 4)
    assert week_seed(monday) == week_seed(sunday) + 1
    assert week_seed(monday) == week_seed(datetime.date(2026, 12, 28)) + 1
    assert week_seed(datetime.date(2026, 12, 28)) == week_seed(datetime.date(2027, 1, 3))


def test_the_cli_prints_the_sample_it_chose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = [entry(f"LINEAGE-M9{number:02}", ["LINEAGE-001"], ONE_DEEPER) for number in range(10)]
    folder = catalogue(tmp_path / "cat", *entries)
    outputs = []
    for seed in ("5", "5", "6"):
        assert runner.main(["run", "--catalogue", str(folder), "--sample", "3", "--sample-seed", seed, "--dry-run"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] != outputs[2]
    head, *chosen = outputs[0].splitlines()
    assert head.startswith("sample: seed 5 (3 of 10 entries; seeds 5..8 cover all): ")
    assert head.endswith(", ".join(sorted(chosen))) and len(chosen) == 3


def test_the_text_lists_every_entry_not_plainly_killed_and_prints_killed_last() -> None:
    def judged(entry_id: str, verdict: Verdict, failed: tuple[str, ...] = (), detail: str = "") -> Judgement:
        mutant = Mutant(entry_id, "READ", "contract.md §7", f"bug {entry_id}", ("READ-001",), "a", "b", "read.toml")
        return Judgement(mutant, verdict, 1.0, failed, detail)

    judgements = [judged("READ-M001", Verdict.KILLED, ("READ-001",)),
                  judged("READ-M002", Verdict.KILLED_ELSEWHERE, ("READ-009",)),
                  judged("READ-M003", Verdict.SURVIVED), judged("READ-M004", Verdict.STALE, detail="gone"),
                  judged("READ-M005", Verdict.TIMEOUT, detail="hung")]
    lines = report.text(judgements).splitlines()
    assert lines[-1] == "killed 3/5"
    assert "READ-M001" not in "\n".join(lines)
    assert [line.split()[0] for line in lines if not line.startswith(" ")][:-1] == [
        "KILLED-ELSEWHERE", "SURVIVED", "STALE", "TIMEOUT"]
    assert "failed instead: READ-009 (correct its kills)" in "\n".join(lines)
    assert not report.passed(judgements)
    assert report.passed([judgements[0], judgements[1], judgements[4]])


def test_provenance_refuses_a_toolkit_that_is_not_the_checkouts(tmp_path: Path) -> None:
    """A checkout without conformance/ would run an installed toolkit: no verdict is given then."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "reference").symlink_to(ROOT / "reference")
    problems = provenance(Setup(root=checkout, timeout=120), tmp_path / "probe")
    assert any(problem.startswith("conformance is imported from ") for problem in problems), problems
    assert not any(problem.startswith("reference is imported") for problem in problems), problems
    assert provenance(Setup(root=ROOT, timeout=120), tmp_path / "probe2") == []


def test_a_kill_by_a_row_that_fails_without_the_mutant_is_no_kill(tmp_path: Path) -> None:
    """The confirmation runs the unmutated reference over the failed rows: here it is itself broken."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("conformance", "features", "schemas", "fixtures", "docs"):
        (checkout / name).symlink_to(ROOT / name)
    broken = Mutant("LINEAGE-M901", "LINEAGE", "s", "b", ("LINEAGE-001",), NO_LINEAGE_FIND, NO_LINEAGE_REPLACE,
                    "fixture.toml")
    shutil.copytree(ROOT / "reference", checkout / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    assert apply(broken, checkout) is None
    setup = Setup(root=checkout, timeout=300)
    killed = Judgement(broken, Verdict.KILLED, 1.0, ("LINEAGE-001",))
    elsewhere = Judgement(broken, Verdict.KILLED_ELSEWHERE, 1.0, ("LINEAGE-001", "LINEAGE-002"))
    judged, problems = runner.confirm(setup, [killed, elsewhere])
    assert problems == ["the unmutated reference fails: LINEAGE-001"]
    assert judged[0].verdict is Verdict.ERROR
    assert judged[0].detail == "killed only by rows that fail without the mutant too: LINEAGE-001"
    assert judged[1] == elsewhere

