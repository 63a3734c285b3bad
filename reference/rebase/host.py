"""The rebase's host (decision D9): what a rebase needs from the Pi runtime, the host's facts
about the current session, its session switch and the session context Pi opens from disk; and
the host built from Pi's files and flags as loaded at session start (the one-shot command, the
interactive host and the adapter alike)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference.artifacts.checkpoint import LINEAGE_CUSTOM_TYPES
from reference.artifacts.memory import MEMORY_TYPE, PIN_TYPE
from reference.config.layering import load_host_config
from reference.lineage.chain import header_id
from reference.pi.exact.session import decode_path, load_session
from reference.pi.host.facts import resolve_host
from reference.pi.leaf import DEFAULT_LEAF, Leaf
from reference.pi.model.session import SourceScan, branch_customs
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsvalues import get
from reference.recall.index_schema import default_index_path

#: What a host may do when asked to switch sessions (D9); the adapter sets the others.
ACTIVATIONS: Final = ("switch", "cancel", "foreign-session")


@dataclass(frozen=True)
class OpenedSession:
    """A session context opened from disk: its header id, file and active branch entries."""

    session_id: Any
    session_file: str
    branch: list[Any]


def open_from_disk(session_file: str) -> OpenedSession:
    """What Pi's ``SessionManager.open`` gives: the header id and the branch at the default leaf
    (the last entry in file order).  The caller has checked the header version first."""
    session = load_session(session_file)
    tree = session.tree()
    records = tree.branch(tree.default_leaf_id).path
    return OpenedSession(session.header.get("id"), session_file, decode_path(session, records))


@dataclass
class RebaseHost:
    """The runtime facts a rebase needs from Pi (D9), and its session switch."""

    session_file: str | None
    project_path: str
    project_trusted: bool
    config: Mapping[str, Any]
    leaf: Leaf = DEFAULT_LEAF  # Pi's active leaf: DEFAULT_LEAF (the last entry in file order) or an entry id
    session_id: str | None = None  # Pi's current session id; None: the header's
    idle: bool = True
    pending_messages: bool = False
    compaction_active: bool = False
    memory_bridge: bool = True
    runtime_available: bool = True
    activation: str = "switch"
    notifications: list[tuple[str, str]] = field(default_factory=list)
    #: What Pi runs while its ``switchSession`` awaits (the conformance host asks the compaction
    #: hook there, contract §6.16); nothing in the product host.
    during_switch: list[Callable[[], None]] = field(default_factory=list)

    def current_session_id(self) -> Any:
        if self.session_id is not None:
            return self.session_id
        return header_id(self.session_file) if self.session_file else None

    def switch_session(self, target_file: str) -> OpenedSession | None:
        """Pi's ``switchSession``: the fresh context opened from the target on disk, after which
        the host's current session is the target.  None when the switch was cancelled."""
        for event in list(self.during_switch):
            event()
        if self.activation == "cancel":
            return None
        fresh = open_from_disk(target_file)
        if self.activation == "foreign-session":
            fresh = OpenedSession(f"{fresh.session_id}-other", fresh.session_file, fresh.branch)
        self.session_file, self.session_id, self.leaf = target_file, None, DEFAULT_LEAF
        return fresh

    def notify(self, level: str, message: str) -> None:
        self.notifications.append((level, message))


def current_branch(host: RebaseHost, scan: SourceScan | None = None) -> list[Any]:
    """What lineage verification reads of the host's active branch (nothing without a file),
    from ``scan`` when the caller has read the file."""
    if not host.session_file or not os.path.isfile(host.session_file):
        return []
    return branch_customs(host.session_file, host.leaf, LINEAGE_CUSTOM_TYPES, scan)


def holds_memory(customs: Iterable[Any]) -> bool:
    """Whether any of these ``custom`` entries is a pin or memory mutation.  Every one is read
    (one at a time: nothing is kept), so an entry that no longer parses is refused wherever it is."""
    return any([get(value, "customType") in (PIN_TYPE, MEMORY_TYPE) for value in customs])  # a list: read all


#: Host facts a caller may set, by protocol name.
FACTS: Final = {
    "leaf": "leaf",
    "idle": "idle",
    "pendingMessages": "pending_messages",
    "compactionActive": "compaction_active",
    "memoryBridge": "memory_bridge",
    "runtimeAvailable": "runtime_available",
    "activation": "activation",
    "sessionId": "session_id",
}


def build_rebase_host(
    *, home: str, cwd: str, env: Mapping[str, str], argv: Sequence[str], session_file: str | None, leaf: Leaf = DEFAULT_LEAF,
) -> tuple[RebaseHost, str]:
    """Host facts and configuration as loaded at session start; the default projection index."""
    facts = resolve_host(home=home, cwd=cwd, env=env, argv=argv)
    host = RebaseHost(session_file=session_file, project_path=cwd, project_trusted=facts.project_trusted,
                      config=load_host_config(facts).config, leaf=leaf)
    return host, default_index_path(facts.agent_dir)


def apply_facts(host: RebaseHost, params: Mapping[str, Any]) -> None:
    for name, attribute in FACTS.items():
        if name in params:
            setattr(host, attribute, params[name])
    if host.activation not in ACTIVATIONS:
        raise ContractViolation(Code.INVALID_PARAMS, f"activation must be one of {', '.join(ACTIVATIONS)}")
