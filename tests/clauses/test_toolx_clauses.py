"""Clauses of pi-session-model.md §3.5, §5 and §6 about Pi's agent loop, AgentSession and runtime.

The port never runs an agent turn, a tool or a session switch of its own: the host does (D9), so no
scenario can see these rules through the adapter protocol (issue 26 lists them unobservable with
this file as the place they are tested). ``pi_agent_clauses.mjs`` drives the real Pi 0.84.3 with
pi-ai's scripted faux provider (no network, no key) once and prints what Pi did; each test asserts
one clause group. Like ``tests/oracle/``, these tests need the pi-oracle env (``tox -e pi-oracle``)
and fail, never skip, without it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

pytestmark = pytest.mark.oracle

AGENT_SCRIPT = Path(__file__).resolve().parent / "pi_agent_clauses.mjs"


@pytest.fixture(scope="module")
def agent_did(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What Pi's agent loop, AgentSession and runtime did with pi-ai's scripted faux model."""
    return _pi.experiments(AGENT_SCRIPT, tmp_path_factory.mktemp("pi-agent"))


def _facts(did: dict[str, Any], name: str) -> dict[str, Any]:
    return _pi.experiment(did, name)


def _loop(agent_did: dict[str, Any], name: str) -> list[tuple[Any, ...]]:
    facts = _facts(agent_did, f"loop_{name}")
    return [(m["role"], m.get("toolCallId"), m.get("isError")) for m in facts["messages"]]


def test_tool_results_follow_the_call_order_in_both_modes(agent_did: dict[str, Any]) -> None:
    """P5-2 (call order even when a parallel call finishes first), P5-3 (a tool not found: an error
    result with text content and details {}), P1.6-4 (the toolResult's key order)."""
    for mode in ("parallel", "sequential"):
        assert _loop(agent_did, mode) == [("user", None, None), ("assistant", None, None), ("toolResult", "c1", False),
                                         ("toolResult", "c2", False), ("toolResult", "c3", True),
                                         ("assistant", None, None)], mode
    parallel = _facts(agent_did, "loop_parallel")
    assert parallel["ran"] == ["c2", "c1"], "the slow call finished last, its result still comes first"
    missing = parallel["messages"][4]
    assert missing["details"] == {} and [b["type"] for b in missing["content"]] == ["text"]
    assert missing["keys"] == ["role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"]


def test_a_length_stop_answers_every_call_with_an_error_and_runs_none(agent_did: dict[str, Any]) -> None:
    """P5-4."""
    assert _facts(agent_did, "loop_length")["ran"] == []
    assert [row for row in _loop(agent_did, "length") if row[0] == "toolResult"] == [
        ("toolResult", "c1", True), ("toolResult", "c2", True), ("toolResult", "c3", True)]


def test_an_error_or_aborted_stop_runs_no_tool_and_writes_no_result(agent_did: dict[str, Any]) -> None:
    """P5-5, P1.6-3 (stopReason error and aborted end the turn)."""
    for name in ("error", "aborted"):
        assert _facts(agent_did, f"loop_{name}")["ran"] == []
        assert _loop(agent_did, name) == [("user", None, None), ("assistant", None, None)], name
        assert _facts(agent_did, f"loop_{name}")["messages"][1]["stopReason"] == name


def test_an_agent_session_starts_with_its_settings_and_persists_a_prompt_in_order(agent_did: dict[str, Any]) -> None:
    """P3.5-1, P3.5-3, P1.6-2 (the prompt's user message is a block array), P1.6-3 (assistant key
    order), P5-2 (results chained under the assistant)."""
    facts = _facts(agent_did, "session")
    assert facts["before"] == {"types": ["model_change", "thinking_level_change"], "written": False}
    written = facts["written"]
    assert [(e["type"], e.get("role")) for e in written] == [
        ("session", None), ("model_change", None), ("thinking_level_change", None), ("message", "user"),
        ("message", "assistant"), ("message", "toolResult"), ("message", "toolResult"), ("message", "assistant")]
    assert written[3]["content"] == [{"type": "text", "text": "hi"}]
    assert written[4]["keys"][:2] == ["role", "content"] and "stopReason" in written[4]["keys"]
    assert [e["parentId"] for e in written[5:8]] == [written[4]["id"], written[5]["id"], written[6]["id"]]
    assert [e["toolCallId"] for e in written[5:7]] == ["p1", "p2"]


def test_the_extension_api_writes_these_entries_at_once_when_idle(agent_did: dict[str, Any]) -> None:
    """P6-29 (appendEntry: a custom entry), P6-30 (sendMessage, idle and not triggering: a
    custom_message written at once), P6-31 (setSessionName, setLabel), P6-21."""
    facts = _facts(agent_did, "session")
    assert facts["appendEntry"]["added"] == 1 and facts["appendEntry"]["entry"]["type"] == "custom"
    assert facts["appendEntry"]["entry"]["data"] == {"k": 1}
    message = facts["sendMessage"]["entry"]
    assert facts["sendMessage"]["added"] == 1 and message["type"] == "custom_message"
    assert (message["customType"], message["content"], message["display"], message["details"]) == ("note", "remember", True,
                                                                                                   {"d": 1})
    assert [(e["type"], e.get("name"), e.get("label")) for e in facts["nameAndLabel"]["entries"]] == [
        ("session_info", "my name", None), ("label", None, "start")]


def test_active_tools_ignore_unknown_names_and_write_nothing(agent_did: dict[str, Any]) -> None:
    """P6-25, P6-27, P6-28 (getAllTools: name, description, parameters, promptGuidelines, sourceInfo)."""
    tools = _facts(agent_did, "session")["tools"]
    assert tools["active"] == ["probe"] and tools["addedBySetActive"] == 0
    assert tools["allKeys"] and all(k == ["description", "name", "parameters", "promptGuidelines", "sourceInfo"]
                                    for k in tools["allKeys"])


def test_a_user_bash_run_is_a_bash_execution_message(agent_did: dict[str, Any]) -> None:
    """P1.6-5: appended with appendMessage, in its key order."""
    [entry] = _facts(agent_did, "session")["bash"]
    assert entry["type"] == "message" and entry["role"] == "bashExecution"
    assert entry["keys"] == ["role", "command", "output", "exitCode", "cancelled", "truncated", "timestamp"]


def test_resuming_a_branch_without_a_thinking_level_appends_one_to_disk(agent_did: dict[str, Any]) -> None:
    """P3.5-2."""
    facts = _facts(agent_did, "resume")
    assert [e["type"] for e in facts["after"]] == ["session", "message", "message", "thinking_level_change"]
    assert facts["after"][3]["parentId"] == "r2"


def test_runtime_new_session_and_switch_session(agent_did: dict[str, Any]) -> None:
    """P6-14 (setup runs after model_change and thinking_level_change, nothing is written before an
    assistant message, parentSession in the header), P6-13 (switchSession migrates and rewrites the
    file, then throws on a missing cwd), P6-15 (fork, importFromJsonl, dispose), P2-20 (switchSession)."""
    facts = _facts(agent_did, "runtime")
    assert facts["setupSaw"] == ["model_change", "thinking_level_change"]
    assert facts["writtenAfterNew"] is False
    assert facts["order"] == ["session", "model_change", "thinking_level_change", "custom", "message:user",
                              "message:user", "message:assistant"]
    assert facts["header"]["parentSession"] == facts["parent"]
    assert facts["switchError"].startswith("Stored session working directory does not exist")
    assert facts["switchRewrote"] is True and facts["switchVersion"] == 3
    assert facts["methods"] == []


def test_navigate_tree_moves_the_leaf_as_tree_does(agent_did: dict[str, Any]) -> None:
    """P3.2-5: a user message moves the leaf to its parent and gives its text to the editor; another
    entry is the leaf itself; a label appends a label entry, which is the new leaf."""
    facts = _facts(agent_did, "session")["navigated"]
    assert facts["leafAfterUser"] == facts["userParent"] and facts["editorText"] == "hi"
    assert facts["leafAtAssistant"] == facts["lastAssistant"] and facts["assistantEditorText"] is None
    assert facts["leafAfterAssistant"] != facts["assistant"]
    assert facts["labelEntry"] == {"type": "label", "targetId": facts["assistant"]}


def test_the_next_turn_sees_the_active_tools(agent_did: dict[str, Any]) -> None:
    """P6-26 (the change applies from the next turn: the tools of the next request)."""
    tools = _facts(agent_did, "session")["tools"]
    assert len(tools["allKeys"]) > 1 and tools["nextTurnTools"] == ["probe"] == tools["active"]


def test_a_replaced_session_gets_a_fresh_context_and_the_old_one_is_stale(agent_did: dict[str, Any]) -> None:
    """P6-17 (the command context's session methods), P6-18 (sendMessage and sendUserMessage on the
    context withSession gets), P6-19 (the old pi throws after a replacement)."""
    facts = _facts(agent_did, "runtime")
    assert set(facts["replaced"].values()) == {"function"}
    assert set(facts["replaced"]) == {"sendMessage", "sendUserMessage", "newSession", "switchSession", "fork",
                                      "navigateTree", "waitForIdle", "reload"}
    assert facts["oldApiError"].startswith("This extension ctx is stale after session replacement")


# --------------------------------------------------------------------------- declarations of the pinned Pi

TYPES = _pi.ORACLE_DIR / "node_modules" / "@earendil-works"
MEMBER = re.compile(r"^    (?P<name>[A-Za-z]+)(?P<optional>\??)[:(<]", re.MULTILINE)


def _members(package: str, relative: str, interface: str) -> dict[str, bool]:
    """The members of one exported interface of an installed ``.d.ts``: name -> optional."""
    problem = _pi.problem()
    if problem:
        pytest.fail(f"the Pi oracle is not available: {problem}; {_pi.HOW_TO_FIX}", pytrace=False)
    text = (TYPES / package / "dist" / relative).read_text(encoding="utf-8")
    start = text.index(f"export interface {interface}")
    body = text[start:text.index("\n}\n", start)]
    return {m["name"]: bool(m["optional"]) for m in MEMBER.finditer(body)}


def test_a_tool_definition_has_these_required_and_optional_fields() -> None:
    """P6-22, P6-23."""
    members = _members("pi-coding-agent", "core/extensions/types.d.ts", "ToolDefinition")
    assert {n for n, optional in members.items() if not optional} == {"name", "label", "description", "parameters",
                                                                     "execute"}
    assert {n for n, optional in members.items() if optional} == {
        "promptSnippet", "promptGuidelines", "prepareArguments", "executionMode", "renderCall", "renderResult",
        "renderShell", "constrainedSampling"}
    result = _members("pi-agent-core", "types.d.ts", "AgentToolResult")
    assert result == {"content": False, "details": False, "usage": True, "addedToolNames": True, "terminate": True}


def test_a_command_and_its_context_are_declared_as_the_spec_says() -> None:
    """P6-24 (registerCommand's options), P6-17 (switchSession takes no cwdOverride), P6-20."""
    command = _members("pi-coding-agent", "core/extensions/types.d.ts", "RegisteredCommand")
    assert command == {"name": False, "sourceInfo": False, "description": True, "getArgumentCompletions": True,
                       "handler": False}
    text = (TYPES / "pi-coding-agent" / "dist" / "core" / "extensions" / "types.d.ts").read_text(encoding="utf-8")
    start = text.index("export interface ExtensionCommandContext ")
    body = text[start:text.index("\n}\n", start)]
    switch = body[body.index("switchSession("):body.index("reload(")]
    assert "withSession" in switch and "cwdOverride" not in switch
    context = text[text.index("export interface ExtensionContext "):]
    assert "    sessionManager: ReadonlySessionManager;" in context[:context.index("\n}\n")]
