"""The rebase journals as rows: every ``*.json`` of an operations folder, readable or not.

Read with Python's json, one file at a time, so that a file that is too large, not UTF-8, not
JSON or not an object still appears as a row naming its problem instead of vanishing (DuckDB's
JSON reader would refuse the whole folder).  Fields of the wrong JSON type are NULL; the raw
text is kept for schema validation against ``schemas/rebase/journal.schema.json``.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from conformance import schemas

#: What a journal must be valid against (AUDIT-012).
JOURNAL_SCHEMA: Final = "rebase/journal.schema.json"
#: Contract §6.5: a journal is at most this many bytes.
JOURNAL_LIMIT_BYTES: Final = 32_000
#: Where the journals of the sessions in one folder live.
OPERATIONS_SUBDIR: Final = Path(".ds4-rebase") / "operations"
_BIGINT: Final = range(-(2**63), 2**63)

#: Journal key, view column, JSON type (``int`` excludes booleans).
JOURNAL_FIELDS: Final[tuple[tuple[str, str, type], ...]] = (
    ("schemaVersion", "schema_version", int), ("id", "operation_id", str), ("phase", "phase", str),
    ("projectPath", "project_path", str), ("sourceSessionId", "source_session_id", str),
    ("sourceSessionFile", "source_session_file", str), ("sourceLeafId", "source_leaf_id", str),
    ("sourceSize", "source_size", int), ("sourceHash", "source_hash", str),
    ("targetSessionId", "target_session_id", str), ("targetSessionFile", "target_session_file", str),
    ("targetHash", "target_hash", str), ("targetSize", "target_size", int),
    ("createdAt", "created_at", int), ("updatedAt", "updated_at", int), ("errorCode", "error_code", str),
)


class JournalProblem(StrEnum):
    """Why a journal file is not a usable journal (schema validity is a check of its own)."""

    NOT_A_FILE = "not-a-file"
    UNREADABLE = "unreadable"
    TOO_LARGE = "too-large"
    NOT_UTF8 = "not-utf-8"
    NOT_JSON = "not-json"
    NOT_AN_OBJECT = "not-an-object"


def operations_dir(sessions_dir: Path) -> Path:
    """``<sessions dir>/.ds4-rebase/operations``."""
    return sessions_dir / OPERATIONS_SUBDIR


def _field(document: dict[str, Any], key: str, kind: type) -> Any:
    value = document.get(key)
    if kind is int:
        return value if type(value) is int and value in _BIGINT else None
    return value if isinstance(value, kind) else None


def _parse(data: bytes) -> tuple[JournalProblem | None, str | None, dict[str, Any]]:
    """The problem (if any), the text and the parsed object of a journal's bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return JournalProblem.NOT_UTF8, None, {}
    try:
        document = json.loads(text)
    except ValueError:
        return JournalProblem.NOT_JSON, text, {}
    if not isinstance(document, dict):
        return JournalProblem.NOT_AN_OBJECT, text, {}
    return (JournalProblem.TOO_LARGE if len(data) > JOURNAL_LIMIT_BYTES else None), text, document


def _read(path: Path) -> tuple[os.stat_result, bytes | None]:
    """The file's own status and bytes (``None`` when it is not a regular file)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return info, None
    with os.fdopen(fd, "rb") as handle:
        return info, handle.read()


def journal_row(path: Path, folder: Path) -> dict[str, Any]:
    """One ``journals`` row for the file at ``path``."""
    row: dict[str, Any] = {"file": str(path.absolute()), "operations_dir": str(folder.absolute()),
                           "size_bytes": None, "mode": None}
    try:
        info, data = _read(path)
    except OSError:
        return {**row, "problem": JournalProblem.UNREADABLE.value}
    row.update(size_bytes=info.st_size, mode=stat.S_IMODE(info.st_mode))
    if data is None:
        return {**row, "problem": JournalProblem.NOT_A_FILE.value}
    problem, text, document = _parse(data)
    fields = {column: _field(document, key, kind) for key, column, kind in JOURNAL_FIELDS}
    invalid = schemas.errors(document, JOURNAL_SCHEMA) if problem is None else []
    return {**row, "problem": problem.value if problem else None, **fields, "raw_text": text,
            "schema_error": schemas.describe(invalid[0])[:300] if invalid else None}


def journal_rows(folders: Sequence[Path]) -> Iterator[dict[str, Any]]:
    """The rows of every ``*.json`` in ``folders`` (a folder that does not exist has none)."""
    for folder in folders:
        if folder.is_dir():
            for path in sorted(folder.glob("*.json")):
                yield journal_row(path, folder)
