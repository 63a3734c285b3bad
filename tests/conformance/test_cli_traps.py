"""The toolkit's argument traps users fell into (issue 23, item 4), each held by a test.

- a repeated ``--area``/``--id``/``--only``/``--tag`` (``conformance run|list``) or ``--sessions``
  (``audit``) accumulates, and a repeated ``-k`` is refused: none silently keeps the last one;
- ``audit sql --sessions DIR QUERY`` keeps its query;
- ``conformance run --stdio ./port`` (no ``--``) says how to write it, and the usage shows it;
- every refusal of a ``--json`` command is also ``{"code", "message"}`` on stdout;
- the example port's README counts the rows and areas the suite has, and docs/INTERPRETING.md
  shows a port command with no made-up flag.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from testkit.audit_projects import Project, make_project
from testkit.paths import REPO_ROOT

from conformance.audit.cli import main as audit_main
from conformance.cli import main as conformance_main
from conformance.selection import Selection, selected_rows
from conformance.suite import suite_root

NODE_README = REPO_ROOT / "examples" / "ports" / "node" / "README.md"
NODE_EXPECTATIONS = REPO_ROOT / "examples" / "ports" / "node" / "expectations.toml"
INTERPRETING = REPO_ROOT / "docs" / "INTERPRETING.md"


def _listed(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert conformance_main(["list", "--json", *args]) == 0
    return [row["id"] for row in json.loads(capsys.readouterr().out)]


# ----------------------------------------------------------------- repeatable options accumulate

@pytest.mark.parametrize(("option", "first", "second"), [
    ("--area", "PRIM", "TREE"), ("--id", "PRIM-001", "TREE-001"), ("--only", "PRIM-001", "TREE-001"),
    ("--tag", "timeout:3", "needs:permission-bits")])
def test_a_repeated_selection_option_of_list_accumulates(capsys: pytest.CaptureFixture[str], option: str,
                                                         first: str, second: str) -> None:
    both = _listed(capsys, option, first, option, second)
    assert both == _listed(capsys, option, f"{first},{second}")
    assert set(_listed(capsys, option, first)) < set(both) and set(_listed(capsys, option, second)) < set(both)


def test_a_repeated_area_of_run_runs_both_areas(capsys: pytest.CaptureFixture[str]) -> None:
    code = conformance_main(["run", "--area", "PRIM", "--area", "TREE", "--id", "PRIM-001", "--id", "TREE-001",
                             "--json", "--no-progress"])
    ran = {row["id"].split("[")[0] for row in json.loads(capsys.readouterr().out)["results"]}
    assert (code, ran) == (0, {"PRIM-001", "TREE-001"})


def test_a_repeated_k_is_refused_not_the_last_one_kept(capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance_main(["run", "-k", "PRIM", "-k", "TREE"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("recall-rebase: usage: ") and "-k" in err and len(err.splitlines()) == 1


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path)


def test_a_repeated_sessions_option_of_audit_reads_every_folder(project: Project, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "2025-06-02T00-00-00-000Z_delta.jsonl").write_bytes((project.sessions.glob("*beta.jsonl")
                                                                  .__next__()).read_bytes())
    query = "SELECT count(DISTINCT session_file) AS files FROM jsonl_files"
    code = audit_main(["sql", query, "--format", "json", "--sessions", str(project.sessions),
                       "--sessions", str(other), "--index", str(project.index)])
    files = json.loads(capsys.readouterr().out)[0]["files"]
    assert (code, files) == (0, len(list(project.sessions.glob("*.jsonl"))) + 1)


# ----------------------------------------------------------------- audit sql keeps its query

@pytest.mark.parametrize("order", ["query last", "query between", "query first"])
def test_audit_sql_keeps_a_query_written_after_sessions(project: Project, order: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    sessions, index, query = ["--sessions", str(project.sessions)], ["--index", str(project.index)], "SELECT 41 + 1 AS n"
    argv = {"query last": [*index, *sessions, query], "query between": [*sessions, query, *index],
            "query first": [query, *sessions, *index]}[order]
    code = audit_main(["sql", "--format", "json", *argv])
    captured = capsys.readouterr()
    assert (code, json.loads(captured.out or "null")) == (0, [{"n": 42}]), captured.err


# ----------------------------------------------------------------- --stdio without --

@pytest.mark.parametrize("command", ["run", "privacy"])
def test_stdio_without_the_separator_says_how_to_write_it(capsys: pytest.CaptureFixture[str], command: str) -> None:
    assert conformance_main([command, "--stdio", "./port"]) == 2
    err = capsys.readouterr().err
    assert "--stdio takes the port's command after --: --stdio -- ./port" in err, err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("command", ["run", "privacy"])
def test_the_usage_line_shows_stdio_with_its_separator(capsys: pytest.CaptureFixture[str], command: str) -> None:
    with pytest.raises(SystemExit):
        conformance_main([command, "--help"])
    usage = capsys.readouterr().out.split("\n\n")[0]
    assert "[--stdio -- PORT ...]" in " ".join(usage.split())


def test_stdio_after_the_separator_belongs_to_the_port(capsys: pytest.CaptureFixture[str]) -> None:
    """``run -- x --stdio`` is no ``--stdio`` of ours: argparse refuses the stray words."""
    assert conformance_main(["run", "--", "./port", "--stdio"]) == 2
    assert capsys.readouterr().err.startswith("recall-rebase: usage: ")


# ----------------------------------------------------------------- --json refusals are JSON

JSON_REFUSALS = {
    "audit check, no index": (audit_main, ["--sessions", "{tmp}", "--index", "{tmp}/none.sqlite", "--json"],
                              "audit-input"),
    "audit check, bad check": (audit_main, ["--sessions", "{tmp}", "--index", "{tmp}/none.sqlite", "--check",
                                            "AUDIT-999", "--json"], "audit-input"),
    "audit views, no folder": (audit_main, ["views", "--sessions", "{tmp}/none", "--index", "{tmp}/i", "--json"],
                               "audit-input"),
    "audit, argument error": (audit_main, ["--samples", "x", "--sessions", "{tmp}", "--json"], "usage"),
    "conformance run, empty selection": (conformance_main, ["run", "--area", "NOPE", "--json"], "usage"),
    "conformance run, bad manifest": (conformance_main, ["run", "--expectations", "{tmp}/none.toml", "--json"],
                                      "expectations-invalid"),
    "conformance list, empty selection": (conformance_main, ["list", "--id", "NOPE-1", "--json"], "usage"),
    "conformance check, bad manifest": (conformance_main, ["check", "--expectations", "{tmp}/none.toml", "--json"],
                                        "expectations-invalid"),
    "conformance privacy, stdio without --": (conformance_main, ["privacy", "--stdio", "./port", "--json"], "usage"),
}


@pytest.mark.parametrize(("main", "argv", "code"), JSON_REFUSALS.values(), ids=JSON_REFUSALS.keys())
def test_every_json_refusal_is_a_code_and_message_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            main: object, argv: list[str], code: str) -> None:
    assert callable(main)
    assert main([arg.replace("{tmp}", str(tmp_path)) for arg in argv]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"recall-rebase: {code}: ") and len(captured.err.splitlines()) == 1, captured.err
    document = json.loads(captured.out)
    assert set(document) == {"code", "message"} and document["code"] == code
    assert captured.err == f"recall-rebase: {code}: {document['message']}\n"


# ----------------------------------------------------------------- the docs' numbers and commands

def _port_areas() -> list[str]:
    skipped = set(re.findall(r'^id = "([A-Z]+)-\*"', NODE_EXPECTATIONS.read_text(encoding="utf-8"), re.MULTILINE))
    every = {row.id.split("-")[0] for row in selected_rows(Selection.parse([], None, None))}
    return sorted(every - skipped)


def _skipped_by_id() -> set[str]:
    """The scenarios the port's manifest skips one by one (in areas it implements)."""
    ids = re.findall(r'^id = "([^"]+)"', NODE_EXPECTATIONS.read_text(encoding="utf-8"), re.MULTILINE)
    return {i for i in ids if not i.endswith("-*")}


def test_the_node_port_readme_counts_the_rows_and_areas_of_the_suite() -> None:
    """The counts tools/readme_summary.py wrote from the port's last run are the suite's rows today
    (tests/examples/test_node_port.py checks them against a real run; this needs none)."""
    text = NODE_README.read_text(encoding="utf-8")
    areas = _port_areas()
    rows = selected_rows(Selection.parse([], ",".join(areas), None))
    every = {row.id.split("-")[0] for row in selected_rows(Selection.parse([], None, None))}
    skipped = [row for row in rows if row.id.split("[", 1)[0] in _skipped_by_id()]
    assert (f"{len(rows)} scenario rows in {len(areas)} areas: {len(rows) - len(skipped)} PASS, "
            f"{len(skipped)} SKIP by id") in text
    assert f"The other {len(every) - len(areas)} areas" in text
    for area in areas:
        count = sum(1 for row in rows if row.id.startswith(f"{area}-"))
        by_id = sum(1 for row in skipped if row.id.startswith(f"{area}-"))
        assert re.search(rf"^\| {area} \| \d+ \| {count} \| {count - by_id} \| {by_id} \|$", text, re.MULTILINE), area


def test_interpreting_shows_a_port_command_without_a_made_up_flag() -> None:
    commands = re.findall(r"--stdio -- (\./my-port[^`]*)`", INTERPRETING.read_text(encoding="utf-8"))
    assert commands and all(command.strip() == "./my-port" for command in commands), commands


@pytest.mark.parametrize("folder", ["missing", "empty", "a-file"])
@pytest.mark.parametrize("command", [["check"], ["coverage"], ["coverage", "--json"], ["list"]])
def test_a_suite_folder_that_holds_no_suite_is_one_coded_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str], folder: str,
                                                              command: list[str]) -> None:
    """RECALL_REBASE_SUITE pointing at a folder without features/ (a typo, an empty folder, a file):
    one coded line and exit 2, never a traceback."""
    where = tmp_path / folder
    if folder == "empty":
        where.mkdir()
    elif folder == "a-file":
        where.write_text("x", encoding="utf-8")
    monkeypatch.setenv("RECALL_REBASE_SUITE", str(where))
    suite_root.cache_clear()  # the root is cached per process: this test's variable must be read
    try:
        assert conformance_main(command) == 2
    finally:
        suite_root.cache_clear()
    captured = capsys.readouterr()
    assert captured.err.startswith("recall-rebase: suite-not-found: ") and captured.err.count("\n") == 1, captured.err
    assert str(where) in captured.err
    if "--json" in command:
        assert json.loads(captured.out)["code"] == "suite-not-found"
