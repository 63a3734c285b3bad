"""The rebase operation journal and the ``RebaseResult`` shapes (contract §6.1, §6.2 steps 11-13
and 25, §6.5, §6.10; decisions D1, D2).

The journal is the durable authority of a rebase: one compact ``JSON.stringify`` object, no
trailing newline, at most 32,000 bytes when read back.  Everything here is pure; its one writer,
which keeps the key order of the bytes (D1), is :class:`reference.rebase.operation_journal.OperationJournal`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from reference.artifacts.ids import (
    ProjectPaths,
    RebaseSource,
    require_operation_id,
    target_file_path,
)
from reference.artifacts.phases import PHASES, Phase
from reference.pi.exact.toolexchange import ToolExchangeDiagnostics
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonObject, JsonParseError, js_parse, js_stringify_bytes
from reference.primitives.jsvalues import get, strict_equal
from reference.primitives.textunits import chars_v1_tokens

SCHEMA_VERSION: Final = 1
MAX_JOURNAL_BYTES: Final = 32_000
#: The fields of upstream's ``RebaseOperation`` in the order a new operation's keys reach disk:
#: the fingerprint and the error code are added later.
WRITE_ORDER: Final = (
    "schemaVersion", "id", "phase", "projectPath", "sourceSessionId", "sourceSessionFile", "sourceLeafId",
    "sourceSize", "sourceHash", "targetSessionId", "targetSessionFile", "createdAt", "updatedAt",
    "targetHash", "targetSize", "errorCode",
)
FALLBACK_CODE: Final = Code.REBASE_UNAVAILABLE
_CODE: Final = re.compile(r"[a-z-]{1,64}")

def failure_code(message: str) -> str:
    """The code a failure reports: its message when it looks like a code, else the fallback."""
    return message if _CODE.fullmatch(message) else FALLBACK_CODE


# ----------------------------------------------------------------------------------------------
# the record


def new_operation(
    source: RebaseSource, *, project_path: str, source_session_file: str, target_session_id: str, now_ms: int
) -> JsonObject:
    """A new operation record, phase ``Prepared``, held in memory until its first phase write.

    ``target_session_id`` comes from the caller's id source (a random UUID in the product), so a
    rebuilt target keeps the identity the journal promised.
    """
    op_id = source.operation_id
    return {
        "schemaVersion": SCHEMA_VERSION,
        "id": op_id,
        "phase": str(PHASES[0]),
        "projectPath": project_path,
        "sourceSessionId": source.session_id,
        "sourceSessionFile": source_session_file,
        "sourceLeafId": source.leaf_id,
        "sourceSize": source.size,
        "sourceHash": source.sha256,
        "targetSessionId": target_session_id,
        "targetSessionFile": target_file_path(source_session_file, op_id),
        "createdAt": now_ms,
        "updatedAt": now_ms,
    }


def encode_journal(operation: Mapping[str, Any]) -> bytes:
    """The journal bytes: compact ``JSON.stringify``, no newline.

    A record that no reader would accept (over 32,000 bytes) is refused here instead of being
    written; upstream writes it and then fails to read it back.
    """
    data = js_stringify_bytes(operation)
    if len(data) > MAX_JOURNAL_BYTES:
        raise ContractViolation(FALLBACK_CODE, f"the journal would be {len(data)} bytes, over {MAX_JOURNAL_BYTES}")
    return data


#: ``"sourceSessionFile":"…"`` as :func:`encode_journal` writes it, found in whole or torn bytes.
_SOURCE_FIELD: Final = re.compile(rb'"sourceSessionFile":("(?:[^"\\]|\\.)*")')


def journal_source_file(data: bytes) -> str | None:
    """The ``sourceSessionFile`` a journal's bytes name, even when they were torn after that field
    (it is the sixth key, so a journal temporary a kill left names its source); else ``None``."""
    match = _SOURCE_FIELD.search(data[:MAX_JOURNAL_BYTES])
    if match is None:
        return None
    try:
        value = js_parse(match.group(1).decode("utf-8", "replace"))
    except JsonParseError:
        return None
    return value if isinstance(value, str) else None


# ----------------------------------------------------------------------------------------------
# reading a journal back (recovery)


def parse_journal(data: bytes | None) -> Any:
    """§6.2 step 12: ``None`` (missing) or over 32,000 bytes is ``operation-unavailable``; text
    that ``JSON.parse`` refuses is ``rebase-unavailable``. Bytes decode as Node's ``utf8`` does."""
    if data is None or len(data) > MAX_JOURNAL_BYTES:
        raise ContractViolation(Code.OPERATION_UNAVAILABLE, "the operation journal is missing or too large")
    try:
        return js_parse(data.decode("utf-8", "replace"), deep=False)
    except (JsonParseError, RecursionError):
        raise ContractViolation(FALLBACK_CODE, "the operation journal is not JSON") from None


def check_journal(operation: Any, *, requested_id: str, source_file: str, project: ProjectPaths) -> JsonObject:
    """§6.2 step 13, in upstream order: id, ``schemaVersion``, string-identical
    ``sourceSessionFile``, canonical ``projectPath``, target in the source's directory.

    A parsed ``null`` (property access throws upstream) and a non-string path (``path.resolve``
    throws) are ``rebase-unavailable``; any other mismatch is ``operation-integrity``.
    """
    if operation is None:
        raise ContractViolation(FALLBACK_CODE, "the operation journal is null")

    def integrity(what: str) -> ContractViolation:
        return ContractViolation(Code.OPERATION_INTEGRITY, f"the journal {what} does not match")

    if not strict_equal(get(operation, "id"), requested_id):
        raise integrity("id")
    if not strict_equal(get(operation, "schemaVersion"), SCHEMA_VERSION):
        raise integrity("schemaVersion")
    if not strict_equal(get(operation, "sourceSessionFile"), source_file):
        raise integrity("source file")
    journal_project = get(operation, "projectPath")
    if not isinstance(journal_project, str):
        raise ContractViolation(FALLBACK_CODE, "the journal project path is not a string")
    if not project.is_project(journal_project):
        raise integrity("project")
    target = get(operation, "targetSessionFile")
    if not isinstance(target, str):
        # Node's path.resolve throws a TypeError, whose message is not a code.
        raise ContractViolation(FALLBACK_CODE, "a journal path is not a string")
    if not project.same_folder(target, source_file):
        raise integrity("target directory")
    return dict(operation)


def load_journal(data: bytes | None, *, requested_id: str, source_file: str, project: ProjectPaths) -> JsonObject:
    """§6.2 steps 11-13 together: the id grammar, then the bytes, then the record."""
    require_operation_id(requested_id)
    return check_journal(parse_journal(data), requested_id=requested_id, source_file=source_file, project=project)


def check_source_session(operation: Mapping[str, Any], header_id: Any) -> None:
    """§6.2 step 25: the journal's source session must be the source header's id."""
    if not strict_equal(operation.get("sourceSessionId"), header_id):
        raise ContractViolation(Code.OPERATION_INTEGRITY, "the journal names another source session")


# ----------------------------------------------------------------------------------------------
# RebaseResult (never paths, tool ids or bodies)


class ResultStatus(StrEnum):
    """A ``RebaseResult``'s ``status``."""

    PREVIEW = "preview"
    VERIFIED = "verified"
    RECOVERABLE = "recoverable"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class CheckpointSummary:
    """What a ``preview`` or ``verified`` result says of the run's checkpoint and source."""

    checkpoint_id: str
    source_entries: int
    source_bytes: int
    checkpoint_tokens: int
    preserved_pins: int
    preserved_memories: int


@dataclass(frozen=True)
class RebaseResult:
    """The ``RebaseResult`` of contract §6.1 (never paths, tool ids or bodies) as a typed value;
    :meth:`to_json` is its wire form, keys in upstream's order."""

    status: ResultStatus
    warnings: tuple[str, ...]
    operation_id: str | None = None
    summary: CheckpointSummary | None = None  # preview and verified
    session_replaced: bool = False
    tool_exchange: ToolExchangeDiagnostics | None = None

    def to_json(self) -> JsonObject:
        status = self.status
        head: JsonObject = {"status": str(status)}
        if status is ResultStatus.RECOVERABLE:
            head.update(operationId=self.operation_id, phase=str(Phase.RECOVERABLE),
                        sessionReplaced=self.session_replaced)
        elif status in (ResultStatus.PREVIEW, ResultStatus.VERIFIED):
            summary = self.summary
            assert summary is not None
            head.update(operationId=self.operation_id, checkpointId=summary.checkpoint_id,
                        sourceEntries=summary.source_entries, sourceBytes=summary.source_bytes,
                        checkpointTokens=summary.checkpoint_tokens, preservedPins=summary.preserved_pins,
                        preservedMemories=summary.preserved_memories)
        head["warnings"] = list(self.warnings)
        if self.tool_exchange is not None:
            head["toolExchangeDiagnostics"] = self.tool_exchange.to_json()
        if status is ResultStatus.VERIFIED:
            head.update(phase=str(PHASES[-1]), sessionReplaced=True)
        return head


def preview_result(operation_id: str, checkpoint: Mapping[str, Any], *, source_entries: int, source_bytes: int,
                   tool_exchange: ToolExchangeDiagnostics | None) -> RebaseResult:
    """The ``preview`` result of a dry run, and of a run before its activation (:func:`verified_result`)."""
    summary = CheckpointSummary(checkpoint["id"], source_entries, source_bytes, chars_v1_tokens(checkpoint["handoff"]),
                                len(checkpoint["pins"]), len(checkpoint["memories"]))
    return RebaseResult(ResultStatus.PREVIEW, tuple(checkpoint["limitations"]), operation_id, summary,
                        tool_exchange=tool_exchange)


def verified_result(result: RebaseResult) -> RebaseResult:
    """A successful activation: the run's preview, ``verified``, plus ``phase`` and ``sessionReplaced``."""
    return replace(result, status=ResultStatus.VERIFIED, session_replaced=True)


def recoverable_result(
    operation_id: str, code: str, *, session_replaced: bool, tool_exchange: ToolExchangeDiagnostics | None = None
) -> RebaseResult:
    """A failure after the journal exists and the lock is held, outside dry run."""
    return RebaseResult(ResultStatus.RECOVERABLE, (code,), operation_id, session_replaced=session_replaced,
                        tool_exchange=tool_exchange)


def unavailable_result(code: str, *, tool_exchange: ToolExchangeDiagnostics | None = None) -> RebaseResult:
    """Any other failure: the code only, plus the counts when they were computed."""
    return RebaseResult(ResultStatus.UNAVAILABLE, (code,), tool_exchange=tool_exchange)
