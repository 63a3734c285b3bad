"""Tool registration and activation (contract §0.3 names and labels, §1.6): the three history
tools' registration records, and the sync of the host's active-tool list at session start.

The adapter protocol drives a port as a history host, with no host tool registry: these rules are
checked here, on the reference's pure model of them (``reference.recall.tool_registry``).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.config.defaults import default_config
from reference.privacy.egress import HISTORY_TOOL_NAMES
from reference.recall.tool_registry import (
    HISTORY_TOOLS,
    HostToolList,
    ToolRegistration,
    ToolSwitches,
    history_tool_names,
    sync_active_tools,
)

RECALL, READ, STATUS = "context_history_recall", "context_history_read", "context_history_status"
ON = ToolSwitches(enabled=True, history_tools_enabled=True)


def test_the_three_registrations_in_order_with_their_labels() -> None:
    # C0.3-1 (registration order), C0.3-2 (labels)
    assert (
        ToolRegistration(name=RECALL, label="History recall"),
        ToolRegistration(name=READ, label="History source read"),
        ToolRegistration(name=STATUS, label="History status"),
    ) == HISTORY_TOOLS
    assert history_tool_names() == (RECALL, READ, STATUS)


def test_the_egress_sanitizer_knows_the_same_three_names() -> None:
    # privacy sits below recall, so it keeps its own set: it must be the registered one.
    assert frozenset(history_tool_names()) == HISTORY_TOOL_NAMES


def test_removed_then_appended_in_order_when_both_switches_are_on() -> None:
    host = HostToolList(active=(STATUS, "bash", READ, "edit", RECALL, "read"))
    assert sync_active_tools(host, ON).active == ("bash", "edit", "read", RECALL, READ, STATUS)


def test_appended_to_an_empty_list() -> None:
    assert sync_active_tools(HostToolList(active=()), ON).active == (RECALL, READ, STATUS)


def test_either_switch_off_removes_all_three() -> None:
    host = HostToolList(active=(RECALL, "bash", READ, STATUS, "edit"))
    for switches in (ToolSwitches(enabled=False, history_tools_enabled=True),
                     ToolSwitches(enabled=True, history_tools_enabled=False),
                     ToolSwitches(enabled=False, history_tools_enabled=False)):
        assert sync_active_tools(host, switches).active == ("bash", "edit")


def test_only_the_boolean_true_switches_on() -> None:
    # ``enabled === true``: a truthy value that is not the boolean true keeps the tools off.
    host = HostToolList(active=("bash",))
    for value in (1, "true", [True], 1.0):
        assert sync_active_tools(host, ToolSwitches(enabled=value, history_tools_enabled=True)).active == ("bash",)
        assert sync_active_tools(host, ToolSwitches(enabled=True, history_tools_enabled=value)).active == ("bash",)


def test_duplicates_of_the_three_are_all_removed_and_others_kept_as_they_are() -> None:
    host = HostToolList(active=(READ, "bash", READ, "bash", RECALL, RECALL, "grep"))
    assert sync_active_tools(host, ON).active == ("bash", "bash", "grep", RECALL, READ, STATUS)


def test_a_host_without_set_active_tools_is_left_alone() -> None:
    host = HostToolList(active=(STATUS, "bash"), settable=False)
    assert sync_active_tools(host, ON) is host
    assert sync_active_tools(host, ToolSwitches(enabled=False, history_tools_enabled=False)) is host


def test_switches_are_read_from_the_effective_configuration() -> None:
    config = default_config()
    assert ToolSwitches.from_config(config).activate
    config["historyTools"]["enabled"] = False
    assert not ToolSwitches.from_config(config).activate
    config["historyTools"]["enabled"] = True
    config["enabled"] = False
    assert not ToolSwitches.from_config(config).activate


OTHER_TOOLS = st.sampled_from(("bash", "read", "edit", "write", "grep", "context_history", "History recall"))
HOST_LISTS = st.lists(st.one_of(OTHER_TOOLS, st.sampled_from((RECALL, READ, STATUS)), st.text(max_size=8)),
                      max_size=16)
SWITCH_VALUES = st.one_of(st.booleans(), st.none(), st.integers(-1, 2), st.sampled_from(("true", "")))


@examples(deep=500, ci=200)
@given(active=HOST_LISTS, enabled=SWITCH_VALUES, history_enabled=SWITCH_VALUES, settable=st.booleans())
def test_sync_is_idempotent_keeps_the_others_and_appends_the_three_iff_both_are_true(
        active: list[str], enabled: object, history_enabled: object, settable: bool) -> None:
    host = HostToolList(active=tuple(active), settable=settable)
    switches = ToolSwitches(enabled=enabled, history_tools_enabled=history_enabled)
    once = sync_active_tools(host, switches)
    assert sync_active_tools(once, switches) == once
    if not settable:
        assert once == host
        return
    names = (RECALL, READ, STATUS)
    others = tuple(name for name in active if name not in names)
    if enabled is True and history_enabled is True:
        assert once.active == others + names
    else:
        assert once.active == others
    assert once.settable
