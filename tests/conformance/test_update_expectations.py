"""``conformance update-expectations REPORT --write FILE``: the round trip, comments kept, ids sorted."""

from __future__ import annotations

import json
from pathlib import Path

from testkit.conformance_runs import conformance, run_partial_port

from conformance.reports import summary_line

BROKEN = ("--break", "text.slice,path.canonical")  # PRIM-005, PRIM-007 and PRIM-008 fail

BEFORE = """\
# The partial port's expectations.
implementation = "partial-port"  # as its hello says

# a real bug, tracked elsewhere
[[expectation]]
id = "TREE-001"
status = "xfail"
reason = "leaf rule"  # not in this run's report

# fixed since: the update removes it
[[expectation]]
id = "PRIM-002"
status = "xfail"
reason = "old bug"

[[expectation]]
# paths on this platform
id = "PRIM-006"
status = "skip"
reason = "no cwd rules yet"
# the end
"""

AFTER_FAILURES = """\
# The partial port's expectations.
implementation = "partial-port"  # as its hello says

[[expectation]]
# checks {checks_5}
id = "PRIM-005"
status = "xfail"
reason = "{reason_5}"

[[expectation]]
# paths on this platform
id = "PRIM-006"
status = "skip"
reason = "no cwd rules yet"

[[expectation]]
# checks {checks_7}
id = "PRIM-007"
status = "xfail"
reason = "{reason_7}"

[[expectation]]
# checks {checks_8}
id = "PRIM-008"
status = "xfail"
reason = "{reason_8}"

[[expectation]]
# a real bug, tracked elsewhere
id = "TREE-001"
status = "xfail"
reason = "leaf rule"  # not in this run's report

# the end
"""


def test_failures_become_xfail_entries_and_fixed_ones_go_comments_kept_ids_sorted(tmp_path: Path) -> None:
    manifest = tmp_path / "partial-port.toml"
    manifest.write_text(BEFORE, encoding="utf-8")
    broken = run_partial_port(tmp_path, *BROKEN, only="PRIM-*", manifest=manifest)
    assert broken.code == 1
    assert {k: v for k, v in broken.statuses().items() if v != "PASS"} == {
        "PRIM-002": "XPASS", "PRIM-005": "FAIL", "PRIM-006[colon]": "SKIP", "PRIM-006[dots-kept]": "SKIP",
        "PRIM-006[plain]": "SKIP", "PRIM-006[root]": "SKIP", "PRIM-006[windows]": "SKIP",
        "PRIM-007": "FAIL", "PRIM-008": "FAIL"}
    report = tmp_path / "broken.ndjson"
    (tmp_path / "report.ndjson").rename(report)

    update = conformance("update-expectations", report, "--write", manifest, timeout=60)
    assert update.code == 0, update.stderr
    assert update.stdout == f"{manifest}: 3 added, 1 removed\n"
    reasons = {f"reason_{n}": _last_line(broken.result(f"PRIM-00{n}")["message"]) for n in (5, 7, 8)}
    reasons |= {f"checks_{n}": ", ".join(c["id"] for c in broken.result(f"PRIM-00{n}")["clauses"]) for n in (5, 7, 8)}
    assert all(reasons[f"checks_{n}"] for n in (5, 7, 8))  # every scenario cites a clause
    assert manifest.read_text(encoding="utf-8") == AFTER_FAILURES.format(**reasons)

    again = conformance("update-expectations", report, "--write", manifest, timeout=60)
    assert again.stdout == f"{manifest}: 0 added, 0 removed\n"
    assert manifest.read_text(encoding="utf-8") == AFTER_FAILURES.format(**reasons)  # a fixed point

    assert run_partial_port(tmp_path, *BROKEN, only="PRIM-*", manifest=manifest).code == 0  # conformant now
    fixed = run_partial_port(tmp_path, only="PRIM-*", manifest=manifest)
    assert fixed.code == 1  # the fixed scenarios are XPASS until the manifest catches up
    assert conformance("update-expectations", tmp_path / "report.ndjson", "--write", manifest, timeout=60).code == 0
    text = manifest.read_text(encoding="utf-8")
    assert "PRIM-005" not in text and "PRIM-007" not in text and "PRIM-008" not in text
    assert '# paths on this platform\nid = "PRIM-006"' in text and "# a real bug" in text and "# the end" in text
    assert run_partial_port(tmp_path, only="PRIM-*", manifest=manifest).code == 0


def _last_line(message: str) -> str:
    last = [line.strip() for line in message.splitlines() if line.strip()][-1].removeprefix("E ").strip()
    return last[:200].replace('"', '\\"')


def synthetic_report(path: Path, **statuses: str) -> Path:
    """A valid report of rows ``ROW=STATUS`` (``PRIM_003__cjk`` stands for ``PRIM-003[cjk]``)."""
    header = ('{"type":"header","suite_version":"0.1.0","protocol_version":1,"implementation":{"name":"p",'
              '"version":"1","language":"go"},"run_info":{"os":"x","python":"x","adapter":"x"},'
              '"started":"2026-01-01T00:00:00Z"}')
    rows = [f'{{"type":"result","id":"{_row(key)}","feature":"f","title":"t","status":"{status}",'
            f'"message":"","duration_ms":1}}' for key, status in statuses.items()]
    summary = json.dumps(summary_line({}, [{"status": status} for status in statuses.values()]))
    path.write_text("\n".join([header, *rows, summary]) + "\n", encoding="utf-8")
    return path


def _row(key: str) -> str:
    scenario, _, case = key.partition("__")
    return scenario.replace("_", "-") + (f"[{case}]" if case else "")


SCENARIO_ENTRY = 'implementation = "p"\n\n[[expectation]]\n# units\nid = "PRIM-003"\nstatus = "xfail"\nreason = "utf-16"\n'


def test_a_scenario_entry_is_narrowed_to_the_rows_that_do_not_pass(tmp_path: Path) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text(SCENARIO_ENTRY, encoding="utf-8")
    report = synthetic_report(tmp_path / "r.ndjson", PRIM_003__ascii="XPASS", PRIM_003__cjk="XFAIL",
                              PRIM_003__astral="UNSUPPORTED")
    assert conformance("update-expectations", report, "--write", manifest, timeout=60).code == 0
    assert manifest.read_text(encoding="utf-8") == (
        'implementation = "p"\n\n[[expectation]]\n# units\nid = "PRIM-003[astral]"\nstatus = "xfail"\n'
        'reason = "utf-16"\n\n[[expectation]]\nid = "PRIM-003[cjk]"\nstatus = "xfail"\nreason = "utf-16"\n')


def test_an_entry_whose_rows_do_not_pass_for_any_reason_is_kept(tmp_path: Path) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text(SCENARIO_ENTRY, encoding="utf-8")
    report = synthetic_report(tmp_path / "r.ndjson", PRIM_003__ascii="UNSUPPORTED", PRIM_003__cjk="XFAIL")
    outcome = conformance("update-expectations", report, "--write", manifest, timeout=60)
    assert outcome.stdout == f"{manifest}: 0 added, 0 removed\n"
    assert manifest.read_text(encoding="utf-8") == SCENARIO_ENTRY


def test_a_new_manifest_is_named_after_the_reports_implementation(tmp_path: Path) -> None:
    broken = run_partial_port(tmp_path, "--break", "text.slice", only="PRIM-005")
    manifest = tmp_path / "new.toml"
    assert conformance("update-expectations", tmp_path / "report.ndjson", "--write", manifest, timeout=60).code == 0
    checks = ", ".join(clause["id"] for clause in broken.result("PRIM-005")["clauses"])
    assert manifest.read_text(encoding="utf-8").startswith(
        f'implementation = "partial-port"\n\n[[expectation]]\n# checks {checks}\nid = "PRIM-005"\nstatus = "xfail"\n')
    assert broken.code == 1


def test_a_report_that_is_not_one_is_one_line_and_exit_2(tmp_path: Path) -> None:
    report = tmp_path / "r.ndjson"
    report.write_text('{"type": "result"}\n', encoding="utf-8")
    outcome = conformance("update-expectations", report, "--write", tmp_path / "m.toml", timeout=60)
    assert outcome.code == 2
    assert outcome.stderr.startswith("recall-rebase: expectations-report: ") and outcome.stderr.count("\n") == 1
    assert not (tmp_path / "m.toml").exists()
