"""The projection audit on sessions the real Pi 0.84.3 wrote, indexed and rebased by the reference.

Pi's ``SessionManager`` (``oracle/gen-sessions.mjs``, seeded, header ``cwd`` = a temp project) writes
``--recall`` sessions (compactions, branches, a second root, custom entries, tool traffic) and
ordinary random sessions (every scripted shape: odd numbers and strings, incomplete tool exchanges,
branch summaries). The reference's history host catches each one up into its default index
(``<agent dir>/recall-rebase/index.sqlite``, the mapping's ``default_index``), its rebase host
rebases each recall session at Pi's default leaf, and a ``current-lineage`` recall from each target
projects the lineage. Pi then continues one target in place (``pi-open-target.mjs`` with
``continue``: a user and an assistant message appended by ``SessionManager.appendMessage``).

Claims: the audit through the reference's mapping has no finding, both before the reference has
caught up with Pi's appended lines (a file that grew past its cursor is not a finding) and after;
it reads every session file and journal; no byte of a session file, a journal or the index changes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

from conformance.audit.engine import AuditResult, run_audit
from conformance.audit.inputs import AuditInputs
from conformance.audit.mapping import reference_mapping

pytestmark = pytest.mark.oracle

SEED = 20260601
RECALL_SESSIONS = 6
RANDOM_SESSIONS = 16


def _files(folders: list[Path]) -> dict[str, str]:
    return {str(path): hashlib.sha256(path.read_bytes()).hexdigest()
            for folder in folders for path in sorted(folder.rglob("*")) if path.is_file()}


def _audit(folders: list[Path], index: Path) -> AuditResult:
    before = _files([*folders, index.parent])
    result = run_audit(AuditInputs.of(folders, index), reference_mapping())
    assert _files([*folders, index.parent]) == before, "the audit changed a file"
    return result


def _findings(result: AuditResult) -> list[dict[str, Any]]:
    return [finding.to_json() for finding in result.findings]


def test_pi_sessions_indexed_and_rebased_by_the_reference_have_no_finding(tmp_path: Path) -> None:
    from reference.rebase.adapter_state import RebaseHostState
    from reference.recall.host import HistoryHostState, HistoryOpening

    project, agent = (tmp_path / "project").resolve(), tmp_path / "home" / "agent"
    for folder in (project, agent):
        folder.mkdir(parents=True)
    recall_dir, random_dir = tmp_path / "recall-sessions", tmp_path / "random-sessions"
    cwd = ["--cwd", str(project)]
    _pi.run_node(_pi.GEN_SCRIPT, [str(recall_dir), "--seed", str(SEED), "--count", str(RECALL_SESSIONS),
                                  "--recall", *cwd])
    # Another seed: the same seed gives the first session of both sets the same id.
    _pi.run_node(_pi.GEN_SCRIPT, [str(random_dir), "--seed", str(SEED + 1), "--count", str(RANDOM_SESSIONS), *cwd])
    recall = [s["file"] for s in json.loads((recall_dir / "manifest.json").read_text(encoding="utf-8"))["recall"]]
    random_files = [s["file"] for s in
                    json.loads((random_dir / "manifest.json").read_text(encoding="utf-8"))["sessions"]]

    def host(session_file: str) -> dict[str, Any]:
        return {"home": str(tmp_path / "home"), "cwd": str(project), "env": {"PI_CODING_AGENT_DIR": str(agent)},
                "argv": ["--approve"], "sessionFile": session_file}

    def recall_in(session_file: str, scope: str) -> dict[str, Any]:
        state = HistoryHostState()
        state.open(HistoryOpening.from_params(host(session_file)))
        result: dict[str, Any] = state.require().recall({"query": "pelican the", "scope": scope}).as_json()
        return result

    for session_file in [*recall, *random_files]:
        assert recall_in(session_file, "current-session")["status"] == "complete", session_file
    targets: list[tuple[str, dict[str, Any]]] = []
    for source in recall:
        state = RebaseHostState()
        state.open(host(source))
        ran = state.run({})
        if ran["result"].get("status") == "verified":
            journal = next((Path(source).parent / ".ds4-rebase" / "operations").glob(
                f"{ran['result']['operationId']}.json"))
            targets.append((ran["currentSession"], json.loads(journal.read_text(encoding="utf-8"))))
    assert targets, "no rebase of a Pi recall session verified"
    for target, _ in targets:
        assert recall_in(target, "current-lineage")["status"] == "complete", target

    mapping = reference_mapping()
    assert mapping.default_index is not None
    index = agent / mapping.default_index
    folders = [recall_dir, random_dir]
    with closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as connection:
        indexed = {row[0] for row in connection.execute("SELECT session_file FROM session_index_state")}
    every = {str(path) for folder in folders for path in folder.glob("*.jsonl")}
    assert indexed == every, {"not indexed": sorted(every - indexed)}
    first = _audit(folders, index)
    assert first.clean, _findings(first)
    assert first.session_files == RECALL_SESSIONS + RANDOM_SESSIONS + len(targets)
    assert first.journals == len(targets)

    target, journal = targets[0]
    answers, code = _pi.open_targets([{"target": target, "source": journal["sourceSessionFile"],
                                       "sourceLeafId": journal["sourceLeafId"], "continue": True}])
    assert code in (0, 3) and answers[0].get("continued", {}).get("prefixIntact") is True, answers
    grown = _audit(folders, index)
    assert grown.clean, _findings(grown)  # Pi appended past the cursor: the next catch-up reads on
    assert recall_in(target, "current-lineage")["status"] == "complete"
    caught_up = _audit(folders, index)
    assert caught_up.clean, _findings(caught_up)
