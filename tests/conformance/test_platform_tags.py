"""``@platform:``/``@needs:`` tags: a scenario for other platforms is UNSUPPORTED with its primitive named.

The port is :mod:`testkit.partial_port` (the reference over ``--stdio``) with ``--platform``: its
hello pretends another platform, which the runner must believe, so a Linux machine sees what a
Windows or macOS port would. OWNER-001 needs POSIX permission bits, PRIM-007 a symbolic link;
PRIM-005 carries no platform tag and runs everywhere. The partial port runs every scenario it is
sent, so a harness that ignored the tags would report them PASS here: these tests can fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.conformance_runs import Outcome, conformance, run_partial_port

from conformance import schemas
from conformance.platforms import Platform, Requirement, platform_of, tag_problems
from conformance.suite import suite_root

ONLY = "OWNER-001,PRIM-007,PRIM-005"
REPORT_LINE = "report/v1/report-line.schema.json"


def assert_valid(outcome: Outcome) -> None:
    assert outcome.lines, outcome.stdout + outcome.stderr
    for line in outcome.lines:
        assert [schemas.describe(e) for e in schemas.errors(line, REPORT_LINE)] == [], line


def test_a_port_on_windows_gets_unsupported_with_the_primitive_named_in_the_report_and_the_summary(
        tmp_path: Path) -> None:
    outcome = run_partial_port(tmp_path, "--platform", "windows", only=ONLY)
    assert outcome.code == 0, outcome.stdout + outcome.stderr
    assert outcome.statuses() == {"OWNER-001": "UNSUPPORTED", "PRIM-007": "UNSUPPORTED", "PRIM-005": "PASS"}
    owner, link = outcome.result("OWNER-001"), outcome.result("PRIM-007")
    assert owner["unsupported"] == {"platform": "windows", "declared": True, "primitives": ["permission-bits"]}
    assert link["unsupported"] == {"platform": "windows", "declared": True, "primitives": ["symlink"]}
    assert owner["message"].startswith("UNSUPPORTED: needs permission-bits, which platform 'windows' "
                                       "(declared in the implementation's hello) lacks; the scenario runs on "
                                       "@platform:posix\npermission-bits: POSIX permission bits")
    assert link["message"].startswith("UNSUPPORTED: needs symlink, which platform 'windows'")
    assert outcome.lines[0]["run_info"]["platform"] == "windows"
    assert outcome.lines[0]["run_info"]["platform_from"] == "hello"
    assert outcome.lines[-1]["counts"] == {"PASS": 1, "UNSUPPORTED": 2}
    assert outcome.lines[-1]["conformant"] is True
    assert "0 expected failures, 0 skipped, 2 unsupported -> conformant" in outcome.stdout
    assert_valid(outcome)
    counted = conformance("summary", tmp_path / "report.ndjson", "--show", "failures")
    assert counted.code == 0, counted.stderr
    assert "0 rows not PASS, 2 UNSUPPORTED not listed" in counted.stdout and "OWNER-001" not in counted.stdout
    summary = conformance("summary", tmp_path / "report.ndjson", "--show", "failures,unsupported")
    assert summary.code == 0, summary.stderr
    listed = [line for line in summary.stdout.splitlines() if "OWNER-001" in line or "PRIM-007" in line]
    assert len(listed) == 2, summary.stdout
    assert "UNSUPPORTED: needs permission-bits" in listed[0] and "UNSUPPORTED: needs symlink" in listed[1]


def test_a_port_on_macos_runs_the_posix_scenarios(tmp_path: Path) -> None:
    outcome = run_partial_port(tmp_path, "--platform", "macos", only=ONLY)
    assert outcome.code == 0, outcome.stdout + outcome.stderr
    assert outcome.statuses() == {"OWNER-001": "PASS", "PRIM-007": "PASS", "PRIM-005": "PASS"}
    assert all("unsupported" not in line for line in outcome.lines[1:-1])
    assert outcome.lines[0]["run_info"]["platform"] == "macos"
    assert_valid(outcome)


def test_without_a_declared_platform_the_runner_judges_by_its_own(tmp_path: Path) -> None:
    outcome = run_partial_port(tmp_path, "--platform", "", only="OWNER-001")
    here = platform_of()
    assert outcome.lines[0]["run_info"] == {**outcome.lines[0]["run_info"], "platform": here.value,
                                            "platform_from": "runner"}
    if here is Platform.WINDOWS:
        assert outcome.result("OWNER-001")["unsupported"] == {"platform": "windows", "declared": False,
                                                              "primitives": ["permission-bits"]}
        assert "the runner's own: the hello declares none" in outcome.result("OWNER-001")["message"]
    else:
        assert outcome.statuses() == {"OWNER-001": "PASS"}, outcome.stdout
    assert_valid(outcome)


def test_a_hello_naming_an_unknown_platform_fails_the_handshake(tmp_path: Path) -> None:
    outcome = run_partial_port(tmp_path, "--platform", "beos", only="PRIM-005")
    assert outcome.code == 3, outcome.stdout + outcome.stderr
    assert "platform" in outcome.stderr and "beos" in outcome.stderr


@pytest.mark.parametrize(("system", "platform"), [
    ("linux", Platform.LINUX), ("darwin", Platform.MACOS), ("win32", Platform.WINDOWS),
    ("freebsd14", Platform.POSIX), ("cygwin", Platform.POSIX),
])
def test_sys_platform_is_named_by_its_family(system: str, platform: Platform) -> None:
    assert platform_of(system) is platform


def test_posix_covers_linux_macos_and_the_other_posix_systems() -> None:
    requirement = Requirement(("posix",), ("permission-bits",))
    assert [requirement.missing_on(p) for p in (Platform.LINUX, Platform.MACOS, Platform.POSIX)] == [[], [], []]
    assert [p.name for p in requirement.missing_on(Platform.WINDOWS)] == ["permission-bits"]
    assert [p.name for p in Requirement(("linux", "windows"), ("symlink",)).missing_on(Platform.MACOS)] == ["symlink"]


@pytest.mark.parametrize(("tags", "problem"), [
    (["platform:posix", "needs:permission-bits"], None),
    (["platform:posix", "needs:symlink,permission-bits"], None),
    (["needs:hard-link"], None),
    ([], None),
    (["platform:beos", "needs:symlink"], "@platform:beos is not a platform"),
    (["platform:posix", "needs:teleport"], "@needs:teleport is not a primitive"),
    (["platform:posix"], "names no primitive"),
    (["needs:symlink"], "no @platform tag with @needs:symlink: the primitives exist on linux, macos, posix, "
                        "so the scenario needs @platform:posix"),
    (["platform:linux", "needs:permission-bits"], "so the scenario needs @platform:posix"),
    (["platform:posix", "needs:hard-link"], "so the scenario needs no @platform tag"),
    (["platform:posix", "platform:linux", "needs:symlink"], "more than one @platform tag"),
])
def test_check_holds_the_tags_to_the_grammar_and_the_catalogue(tags: list[str], problem: str | None) -> None:
    found = tag_problems(tags)
    if problem is None:
        assert found == []
    else:
        assert len(found) == 1 and problem in found[0], found


def test_conformance_check_fails_on_an_unknown_platform_tag(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    for part in ("features", "schemas", "fixtures", "docs"):
        shutil.copytree(suite_root() / part, suite / part)
    feature = suite / "features/tree/tree.feature"
    feature.write_text(feature.read_text(encoding="utf-8") + "\n  @id:TREE-996\n  @platform:amiga @needs:symlink\n"
                       "  Scenario: A platform tag the toolkit does not know\n    When the session is inspected\n",
                       encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "reference.cli", "conformance", "check"], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "RECALL_REBASE_SUITE": str(suite)})
    assert done.returncode == 1, done.stdout
    assert "tree/tree.feature" in done.stdout and "@platform:amiga is not a platform" in done.stdout

