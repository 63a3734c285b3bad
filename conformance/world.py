"""The typed state one scenario passes between its steps, one world object per concern.

Each world is a dataclass provided as a function-scoped pytest fixture (this module is loaded
by the plugin), so a step names in its signature which worlds it reads and writes, and every
scenario starts from empty ones.  Worlds hold state and the small accessors over it; steps
that call the implementation live in the step modules and their shared helper modules.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance import interop_layout
from conformance.protocol import Adapter, ContractError, JsonObject


@dataclass
class Response:
    """The response to a scenario's last generic request: its result, or the contract error that refused it."""

    result: JsonObject | None = None
    error: ContractError | None = None

    def call(self, adapter: Adapter, op: str, params: dict[str, Any]) -> None:
        """Run one operation; keep its result or its contract error for the Then steps."""
        self.result, self.error = None, None
        try:
            self.result = adapter.request(op, params)
        except ContractError as exc:
            self.error = exc

    def value(self) -> JsonObject:
        """The result; a refusal fails the step that expected one."""
        if self.error is not None:
            raise AssertionError(f"the implementation refused the request: {self.error.code}: {self.error.message}")
        assert self.result is not None, "no request was made"
        return self.result


@dataclass
class SessionFile:
    """The session file a READER, TREE, CONTEXT or TOOLX scenario wrote (or a path with none)."""

    path: Path | None = None
    bytes_before: bytes | None = None

    @property
    def file(self) -> Path:
        assert self.path is not None, "the scenario has no session file"
        return self.path

    @property
    def data(self) -> bytes:
        assert self.bytes_before is not None, "the scenario wrote no session bytes"
        return self.bytes_before


@dataclass
class LinkedFolder:
    """A project folder and the symbolic link a PRIM scenario reaches it through."""

    real: Path | None = None
    link: Path | None = None


@dataclass
class HostWorld:
    """The Pi sandbox of a HOST scenario and the last ``host.facts`` answer or refusal."""

    home: str | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    argv: list[str] = field(default_factory=list)
    trust: dict[str, bool | None] = field(default_factory=dict)
    facts: JsonObject | None = None
    error: ContractError | None = None


@dataclass
class ConfigWorld:
    """The CONFIG sandbox: host facts, the two files, what was written and the last answers."""

    host: JsonObject = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    before: dict[str, bytes] = field(default_factory=dict)
    contents: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    shown: JsonObject | None = None
    result: JsonObject | None = None
    error: ContractError | None = None

    @property
    def show(self) -> JsonObject:
        assert self.shown is not None, "the DS4 config was not loaded"
        return self.shown

    @property
    def reply(self) -> JsonObject:
        assert self.result is not None, "no DS4 config command succeeded"
        return self.result


@dataclass(frozen=True)
class HistoryProject:
    """The folders of a history scenario: Pi home, agent dir, project (real path) and sessions."""

    home: Path
    agent: Path
    cwd: Path
    folder: Path
    trusted: bool

    @property
    def index_path(self) -> Path:
        return self.agent / "index" / "history.sqlite"

    def host_params(self) -> JsonObject:
        """The host facts of ``history.open`` and ``rebase.open``."""
        return {
            "home": str(self.home),
            "cwd": str(self.cwd),
            "env": {"PI_CODING_AGENT_DIR": str(self.agent)},
            "argv": ["--approve"] if self.trusted else ["--no-approve"],
        }


@dataclass
class HistoryWorld:
    """A history scenario: its project, the session files it wrote and the tool results it got."""

    setup: HistoryProject | None = None
    sessions: dict[str, Path] = field(default_factory=dict)
    #: The session bytes remembered before the host touched them (None: not yet remembered).
    remembered_bytes: dict[str, bytes] | None = None
    results: list[JsonObject] = field(default_factory=list)
    last_result: JsonObject | None = None
    last_recall: JsonObject | None = None
    #: Message texts the scope steps appended, by entry id.
    texts: dict[str, str] = field(default_factory=dict)
    #: Message lines the read steps appended, by entry id.
    messages: dict[str, list[str]] = field(default_factory=dict)
    kept_refs: dict[str, str] = field(default_factory=dict)
    remembered_hits: list[tuple[str, str, str, str]] | None = None
    #: The answer to the last request sent as it is (``history host is sent``), or its refusal.
    last_answer: JsonObject | None = None
    last_refusal: ContractError | None = None

    @property
    def project(self) -> HistoryProject:
        assert self.setup is not None, "the scenario has no history project"
        return self.setup

    @property
    def current(self) -> Path:
        return self.sessions["current"]

    @property
    def last(self) -> JsonObject:
        assert self.last_result is not None, "no history tool was called"
        return self.last_result

    @property
    def recall(self) -> JsonObject:
        assert self.last_recall is not None, "recall was not asked"
        return self.last_recall

    def record(self, name: str, path: Path, data: bytes) -> None:
        """Write a session file and know it by ``name``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.sessions[name] = path

    def remember(self) -> None:
        self.remembered_bytes = {name: Path(path).read_bytes() for name, path in self.sessions.items()}

    def session_id(self, name: str) -> str:
        header = json.loads(self.sessions[name].read_bytes().split(b"\n", 1)[0])
        session_id: str = header["id"]
        return session_id

    def refs_issued(self) -> list[str]:
        """Every sourceRef the recalls of this scenario returned, in the order they were returned."""
        refs: list[str] = []
        for result in self.results:
            for hit in result.get("hits") or []:
                if hit["sourceRef"] not in refs:
                    refs.append(hit["sourceRef"])
        return refs

    def first_ref(self) -> str:
        recall = self.recall
        assert recall.get("hits"), f"recall returned no hits: {recall}"
        ref: str = recall["hits"][0]["sourceRef"]
        return ref


@dataclass
class RebaseWorld:
    """A rebase scenario, on top of its history world: source bytes, answers and held files.

    The paths of the operation's files are derived as the interop format fixes them
    (:mod:`conformance.interop_layout`), from the source bytes the harness wrote.
    """

    history: HistoryWorld
    results: list[JsonObject] = field(default_factory=list)
    #: The source bytes when the rebase host first opened it.
    source_bytes: bytes | None = None
    #: The leaf the host facts named, if any.
    leaf: str | None = None
    #: The operation id the last rebase result reported.
    reported_operation: str | None = None
    last_response: JsonObject | None = None
    last_result: JsonObject | None = None
    last_crash: JsonObject | None = None
    target_bytes: bytes | None = None
    remembered_operation: str | None = None
    appended_target: bytes | None = None
    held_lock: sqlite3.Connection | None = None

    @property
    def response(self) -> JsonObject:
        assert self.last_response is not None, "rebase.run was not called"
        return self.last_response

    @property
    def last(self) -> JsonObject:
        assert self.last_result is not None, "rebase.run was not called"
        return self.last_result

    @property
    def crash(self) -> JsonObject:
        assert self.last_crash is not None, "rebase.crash was not called"
        return self.last_crash

    @property
    def opened_bytes(self) -> bytes:
        assert self.source_bytes is not None, "the rebase host was not opened"
        return self.source_bytes

    @property
    def source(self) -> Path:
        return self.history.current

    @property
    def canonical_source(self) -> str:
        return os.path.realpath(self.source)

    @property
    def source_dir(self) -> Path:
        return Path(self.canonical_source).parent

    def expected_operation_id(self) -> str:
        """The operation id of §6.5, from the source bytes, its header id and the leaf."""
        data = self.source_bytes or self.source.read_bytes()
        records = [json.loads(line) for line in data.split(b"\n") if line.strip()]
        leaf = self.leaf or records[-1]["id"]
        return interop_layout.operation_id(records[0]["id"], leaf, data)

    @property
    def operation_id(self) -> str:
        """The reported operation id, or else the expected one."""
        return self.reported_operation or self.expected_operation_id()

    @property
    def target(self) -> Path:
        return interop_layout.target_path(self.source_dir, self.operation_id)

    @property
    def journal(self) -> Path:
        return interop_layout.journal_path(self.source_dir, self.operation_id)

    @property
    def lock_file(self) -> Path:
        return interop_layout.lock_path(self.canonical_source)


@pytest.fixture
def response() -> Response:
    return Response()


@pytest.fixture
def session_file() -> SessionFile:
    return SessionFile()


@pytest.fixture
def linked_folder() -> LinkedFolder:
    return LinkedFolder()


@pytest.fixture
def host_world() -> HostWorld:
    return HostWorld()


@pytest.fixture
def config_world() -> ConfigWorld:
    return ConfigWorld()


@pytest.fixture
def history() -> HistoryWorld:
    return HistoryWorld()


@pytest.fixture
def rebase(history: HistoryWorld) -> RebaseWorld:
    return RebaseWorld(history=history)
