"""Clauses of pi-session-model.md that describe Pi's own SessionManager, checked on the real Pi 0.84.3.

The port reads session files; it never writes Pi entries, migrates or moves a leaf of its own, so
no scenario can see these rules through the adapter protocol (issue 26 lists them unobservable
with this file as the place they are tested). ``pi_session_clauses.mjs`` runs Pi's
``SessionManager`` through the spec's experiments once and prints what Pi did; each test here
asserts one clause group against that output. Like ``tests/oracle/``, these tests need the
pi-oracle env (``tox -e pi-oracle``) and fail, never skip, without it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

pytestmark = pytest.mark.oracle

SCRIPT = Path(__file__).resolve().parent / "pi_session_clauses.mjs"
ENTRY_ID = re.compile(r"^[0-9a-f]{8}$")
UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture(scope="module")
def pi_did(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What Pi did in every experiment (one Node run for the module)."""
    return _pi.experiments(SCRIPT, tmp_path_factory.mktemp("pi-clauses"))


def _facts(pi_did: dict[str, Any], name: str) -> dict[str, Any]:
    return _pi.experiment(pi_did, name)


def test_a_new_session_is_written_whole_at_its_first_assistant_message(pi_did: dict[str, Any]) -> None:
    """P3.4-2, P3.4-4, P3.4-5, P3.4-6, P3.4-3, P3.2-4: nothing before the assistant; then 8 lines, 9..."""
    facts = _facts(pi_did, "deferredWrite")
    steps = facts["steps"]
    assert [s["name"] for s in steps][:6] == ["model_change", "thinking_level_change", "user", "custom",
                                             "custom_message", "session_info"]
    assert not any(s["fileExists"] for s in steps[:6])
    assert [(s["name"], s["lines"]) for s in steps[6:]] == [("assistant", 8), ("toolResult", 9), ("label", 10)]
    assert all(s["leafIsIt"] for s in steps), "every append, labels and session_info included, is the leaf"


def test_a_session_without_an_assistant_message_or_in_memory_is_never_written(pi_did: dict[str, Any]) -> None:
    """P3.4-1, P3.4-6 (a session that only ever gets a user message is discarded by newSession()), P6-8."""
    facts = _facts(pi_did, "neverWritten")
    assert facts["firstExists"] is False and facts["secondExists"] is False and facts["dirFiles"] == []
    assert facts["secondDiffers"] is True, "newSession() gives a new file name"
    assert facts["entriesAfterNew"] == 0 and facts["leafAfterNew"] is None, "newSession() replaces memory"
    assert facts["inMemoryPersisted"] is False and facts["inMemoryFile"] is None
    assert facts["inMemoryEntries"] == 2


def test_file_name_header_ids_and_timestamps(pi_did: dict[str, Any]) -> None:
    """P1.1-4, P1.1-5 (generated id), P6-3, P1.3-1, P1.3-2, P1.3-3, P1.3-5, P1.3-6, P1.4-1, P1.4-2, P1.4-3, P1.4-4."""
    facts = _facts(pi_did, "deferredWrite")
    header = facts["header"]
    assert facts["headerKeys"] == ["type", "version", "id", "timestamp", "cwd"]
    assert header["type"] == "session" and header["version"] == 3
    assert UUID7.match(header["id"]) and header["id"] == facts["sessionId"]
    assert ISO_MS.match(header["timestamp"])
    assert header["cwd"] == facts["projectCwd"], "the resolved cwd (create got <cwd>/sub/..)"
    assert facts["dirExistsAtCreate"] is True, "P6-3: create() makes the session dir, writes no file"
    stamp = header["timestamp"].replace(":", "-").replace(".", "-")
    assert facts["fileName"] == f"{stamp}_{header['id']}.jsonl"
    entries = facts["entries"]
    assert all(ENTRY_ID.match(e["id"]) and ISO_MS.match(e["timestamp"]) for e in entries)
    assert [e["parentId"] for e in entries] == [None] + [e["id"] for e in entries[:-1]]


def test_bytes_on_disk_and_appends(pi_did: dict[str, Any]) -> None:
    """P1.2-1 (compact JSON.stringify lines, each ending in LF), P1.2-3 (an append touches only the new line)."""
    facts = _facts(pi_did, "deferredWrite")
    assert facts["endsWithLf"] is True and facts["compact"] is True
    assert facts["prefixKept"] is True


def test_a_supplied_session_id_must_match_the_pattern(pi_did: dict[str, Any]) -> None:
    """P1.1-5."""
    facts = _facts(pi_did, "sessionIds")
    assert UUID7.match(facts["made"])
    assert facts["supplied"] == "My.id-1_x"
    assert all(r["refused"] for r in facts["refused"]), facts["refused"]


def test_field_orders_of_every_entry_type(pi_did: dict[str, Any]) -> None:
    """P1.5-1 to P1.5-11, P4.6-3: the keys in the order SessionManager builds them, optional ones omitted."""
    keys = _facts(pi_did, "fieldOrders")["keys"]
    lines = [json.loads(line) for line in _facts(pi_did, "fieldOrders")["lines"]]
    common = ["type", "id", "parentId", "timestamp"]
    assert keys[1] == keys[2] == [*common, "message"]
    assert keys[3] == [*common, "thinkingLevel"]
    assert keys[4] == [*common, "provider", "modelId"]
    assert keys[5] == [*common, "summary", "firstKeptEntryId", "tokensBefore", "details", "usage", "fromHook"]
    assert lines[5]["fromHook"] is False and lines[5]["details"] == {"readFiles": [], "modifiedFiles": []}
    assert keys[6] == [*common, "summary", "firstKeptEntryId", "tokensBefore"]
    assert keys[7] == [*common, "fromId", "summary", "details", "usage", "fromHook"]
    assert keys[8] == ["type", "customType", "data", "id", "parentId", "timestamp"]
    assert keys[9] == ["type", "customType", "id", "parentId", "timestamp"]
    assert keys[10] == ["type", "customType", "content", "display", "details", "id", "parentId", "timestamp"]
    assert keys[11] == ["type", "customType", "content", "display", "id", "parentId", "timestamp"]
    assert keys[12] == [*common, "targetId", "label"]
    assert keys[13] == [*common, "targetId"], "a label cleared with undefined has no label key"
    assert keys[14] == [*common, "name"]
    assert lines[14]["name"] == "first line second third", "each run of CR/LF is one space, then trimmed"


def test_labels_and_the_session_name_are_resolved_over_the_whole_file(pi_did: dict[str, Any]) -> None:
    """P1.5-13, P1.5-14: the last entry in file order wins, whatever the branch; empty clears."""
    facts = _facts(pi_did, "leafAndLabels")
    assert facts["labelAfterSide"] == facts["labelFromMain"] == facts["reopenedLabel"] == "on-side"
    assert facts["nameAfterSide"] == facts["nameFromMain"] == facts["reopenedName"] == "side name"
    assert facts["clearedLabel"] is None and facts["labelAfterClearAndReopen"] is None
    assert facts["lastLabelHasLabelKey"] is True
    assert facts["clearedName"] is None


def test_leaf_moves_write_nothing_and_are_lost_on_reopen(pi_did: dict[str, Any]) -> None:
    """P3.1-1, P3.2-1, P3.2-2, P3.3-1: branch() and resetLeaf() change memory only; a reopen's
    leaf is the last line; an unknown id throws; after resetLeaf the next append is a root."""
    facts = _facts(pi_did, "leafAndLabels")
    assert facts["unchangedByBranch"] is True and facts["unchangedByReset"] is True
    assert facts["unknown"] == "Entry nope not found"
    assert facts["reopenedLeaf"] == facts["lastLineId"] == facts["sideLast"] != facts["side"]
    assert facts["resetLeaf"] is None and facts["rootParent"] is None


def test_branch_with_summary_records_the_old_leaf_or_root(pi_did: dict[str, Any]) -> None:
    """P3.2-3, P1.5-12: fromId is the leaf before the move, "root" from a null leaf; parentId is the
    target (null makes a second root); the summary is appended, written and the new leaf."""
    facts = _facts(pi_did, "branchWithSummary")
    assert facts["written"] == {"id": facts["bs"], "parentId": facts["u1"], "fromId": facts["oldLeaf"]}
    assert facts["root"] == {"parentId": None, "fromId": "root"}
    assert facts["leafIsSummary"] is True and facts["linesAdded"] == 2


def test_open_of_an_empty_a_blank_and_a_missing_file(pi_did: dict[str, Any]) -> None:
    """P1.7-4, P3.4-7: a 0-byte file gets a fresh header at once (cwd = process cwd); a non-empty
    file with no entries throws and stays; a missing path is created there at the first assistant."""
    facts = _facts(pi_did, "openOdd")
    [header] = facts["emptyHeader"]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == facts["processCwd"]
    assert UUID7.match(header["id"]) and header["id"] == facts["emptySessionId"]
    for name in ("blank", "junk"):
        refused = facts["refused"][name]
        assert refused["thrown"].startswith("Session file is not a valid pi session: "), refused
        assert refused["unchanged"] is True
    assert facts["missingSame"] is True
    assert facts["existsAfterUser"] is False and facts["existsAfterAssistant"] is True
    assert facts["missingLines"] == 3


def test_migration_rewrites_a_legacy_file_on_open(pi_did: dict[str, Any]) -> None:
    """P2-6, P2-7, P2-8, P2-9, P2-17, P2-18, P1.3-8: v1 ids chained (present ones overwritten),
    firstKeptEntryIndex mapped into the parsed array (index 0 gives none) and deleted, new keys
    appended, legacy header keys kept, blank and malformed lines dropped, every line re-serialized;
    hookMessage renamed; a v2 file with no hookMessage is rewritten too."""
    facts = _facts(pi_did, "migration")
    assert facts["v1"]["rewritten"] and facts["v2"]["rewritten"] and facts["v2plain"]["rewritten"]
    v1 = facts["v1"]["after"].splitlines()
    assert len(v1) == 5, "the blank and the malformed line are gone"
    assert v1[0].endswith(',"branchedFrom":"x","version":3}') and '"provider":"a","modelId":"b"' in v1[0]
    header, user, reply, kept, at_header = (json.loads(line) for line in v1)
    assert list(header)[-1] == "version"
    assert list(user)[-2:] == ["id", "parentId"] and user["id"] != "keep-me" and user["parentId"] is None
    assert reply["parentId"] == user["id"] and v1[2].count('"timestamp":1}') == 1, "1.0 is written 1"
    assert kept["firstKeptEntryId"] == user["id"] and "firstKeptEntryIndex" not in kept
    assert list(kept)[-1] == "firstKeptEntryId"
    assert "firstKeptEntryId" not in at_header and "firstKeptEntryIndex" not in at_header
    v2 = [json.loads(line) for line in facts["v2"]["after"].splitlines()]
    assert v2[0]["version"] == 3 and v2[1]["message"]["role"] == "custom"
    assert json.loads(facts["v2plain"]["after"].splitlines()[0])["version"] == 3


def test_a_migrated_file_is_current_and_each_migration_draws_new_ids(pi_did: dict[str, Any]) -> None:
    """P2-14, P2-20 (open, continueRecent and setSessionFile rewrite), P6-4 (open: dir of the file,
    cwd of the header unless overridden)."""
    facts = _facts(pi_did, "migration")
    assert facts["reopenUnchanged"] is True and facts["freshCopyDiffers"] is True
    assert facts["continueRecentRewrote"] is True and facts["setSessionFileRewrote"] is True
    assert facts["openDir"] is True and facts["openCwd"] is True
    assert facts["overriddenCwd"] == "/somewhere/else"


def test_a_current_version_is_never_rewritten(pi_did: dict[str, Any]) -> None:
    """P2-5 (3, 4 and the string "3" are current), P2-17 (a v3 file keeps its malformed lines)."""
    facts = _facts(pi_did, "migration")
    for name in ("v3junk", "v4", "vs3"):
        assert facts[name]["rewritten"] is False, name
        assert "\njunk\n" in facts[name]["after"]


def test_listing_and_forking_leave_a_legacy_source_alone(pi_did: dict[str, Any]) -> None:
    """P2-19, P3.4-9, P1.3-7 (forkFrom): list() and forkFrom() never rewrite the source; the fork is
    written at once, an unmigrated copy under a version 3 header naming the source."""
    facts = _facts(pi_did, "readOnly")
    assert facts["listed"] == 1 and facts["afterList"] is True and facts["sourceAfterFork"] is True
    assert facts["forkExists"] is True
    header, *copied = facts["forkLines"]
    assert header["version"] == 3 and header["parentSession"].endswith("/listed/v1.jsonl")
    assert [e.get("id") for e in copied] == ["keep-me", None, None, None]
    assert "firstKeptEntryIndex" in copied[2]


def test_continue_recent_picks_the_newest_by_mtime_in_the_current_cwd(pi_did: dict[str, Any]) -> None:
    """P6-5, P1.1-3 (a custom dir lists only the current cwd's files), P1.7-7 (a corrupt file is skipped)."""
    facts = _facts(pi_did, "recent")
    assert facts["picked"] == facts["newer"] == "a-newer.jsonl"
    assert facts["listed"] == ["a-newer.jsonl", "z-older.jsonl"]
    assert "path" in facts["listedKeys"] and "file" not in facts["listedKeys"], "P4.6-4: SessionInfo has path"


def test_create_branched_session(pi_did: dict[str, Any]) -> None:
    """P3.4-8, P1.5-16, P1.3-7: written at once only with an assistant on the path; labels dropped
    from the path and appended at the end with their original timestamps; parentSession is the
    previous file (and newSession({parentSession}) puts it in the header)."""
    facts = _facts(pi_did, "branched")
    assert facts["withAssistantExists"] is True and facts["noAssistantExists"] is False
    header, *entries = facts["written"]
    assert header["parentSession"] == facts["source"]
    assert [(e["type"], e["id"], e["parentId"]) for e in entries[:3]] == [
        ("message", facts["u1"], None), ("message", facts["a1"], facts["u1"]), ("message", facts["u2"], facts["a1"])]
    label = entries[3]
    assert label["type"] == "label" and label["targetId"] == facts["u1"] and label["parentId"] == facts["u2"]
    assert label["timestamp"] == facts["labelTs"]
    assert facts["childHeader"]["parentSession"] == facts["source"]


def test_the_context_functions_and_the_session_manager_api(pi_did: dict[str, Any]) -> None:
    """P4-1 (three exported functions), P4.1-1, P4.1-2 (a leaf not found falls back to the last
    entry), P6-6, P6-11 (the API listed), P1.6-7 (appendMessage does not refuse a summary role)."""
    facts = _facts(pi_did, "pureContext")
    assert facts["exported"] == ["buildContextEntries", "buildSessionContext", "sessionEntryToContextMessages"]
    assert facts["missingMethods"] == [] and facts["missingStatics"] == []
    assert facts["notFound"] == facts["undefinedLeaf"] == ["c"]
    assert facts["nullLeaf"] == []
    assert facts["acceptsSummaryMessage"] is True
