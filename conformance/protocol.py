"""The adapter protocol: the only way the Gherkin steps reach an implementation.

Every operation is a named request with JSON parameters and a JSON result, so the same call
works in-process (the reference adapter) and across a process boundary (``--stdio``, one JSON
message per line; schemas under ``schemas/adapter/v1``).  An implementation answers a request
either with a result object or with a contract error ``{code, message}``, raised here as
:class:`ContractError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

PROTOCOL_VERSION: Final = 1

#: Operation names of protocol version 1 (see docs/INTERPRETING.md for each one's contract).
OPERATIONS: Final = (
    "session.inspect",
    "session.records",
    "session.node",
    "json.canonicalize",
    "text.measure",
    "text.slice",
    "path.canonical",
    "path.sessionDirName",
    "host.facts",
    "config.show",
    "config.set",
    "config.unset",
    "history.open",
    "history.recall",
    "history.read",
    "history.status",
    "history.setLeaf",
    "history.setProvider",
    "history.setAborted",
    "history.restart",
    "clock.set",
    "clock.advance",
    "rebase.open",
    "rebase.setFacts",
    "rebase.run",
    "rebase.crash",
    "rebase.beforeCompact",
    "egress.sanitize",
    "history.contextEvent",
    "history.providerRequest",
)

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class ImplInfo:
    """What an implementation says of itself in the handshake."""

    name: str
    version: str
    language: str
    protocol_version: int
    capabilities: tuple[str, ...] = ()
    #: The hello's ``auditMapping``: a shipped mapping's name or a mapping file's path (docs/audit.md).
    audit_mapping: str | None = None
    #: The hello's ``platform`` (``linux``, ``macos``, ``windows``, ``posix``): what ``@platform:``
    #: tags are judged against (:mod:`conformance.platforms`); None: the runner's own.
    platform: str | None = None


@dataclass(frozen=True)
class HostEnv:
    """The host facts a scenario gives an implementation instead of its own process state.

    ``env`` replaces the environment (``PI_CODING_AGENT_DIR`` and friends), ``argv`` carries Pi's
    command-line flags (``--approve``, ``--no-approve``), ``home`` is ``~`` and ``cwd`` the
    Pi working directory.
    """

    home: str
    cwd: str
    env: Mapping[str, str] = field(default_factory=dict)
    argv: tuple[str, ...] = ()

    def to_json(self) -> JsonObject:
        return {"home": self.home, "cwd": self.cwd, "env": dict(self.env), "argv": list(self.argv)}


class ContractError(Exception):
    """An implementation refused a request with a contract code (bad input, not a crash)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class AdapterCrashed(Exception):
    """The implementation failed outside the contract (traceback, dead process, bad message)."""


@runtime_checkable
class Adapter(Protocol):
    """One implementation under test. Steps call only these methods."""

    def start(self) -> ImplInfo: ...

    def stop(self) -> None: ...

    def request(self, op: str, params: Mapping[str, Any]) -> JsonObject:
        """Run one operation; raise :class:`ContractError` for a contract error."""
        ...
