"""Rebase identities and file locations (contract §6.5, §0.3; decisions D1).

An operation is named by its source alone (session id, captured leaf, full-source hash), never by
a path, so a rerun on an unchanged source, or through a symlink alias, finds the same journal.
The checkpoint id shares the operation id's 32-hex suffix.  Strings are hashed as Node hashes a
JavaScript string (:func:`reference.primitives.textunits.sha256_text`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.paths import canonical_path, resolve_like_node
from reference.primitives.textunits import sha256_text

OPERATION_PREFIX: Final = "rebase_"
CHECKPOINT_PREFIX: Final = "checkpoint_"
#: Whole-string grammars: use ``fullmatch`` (Python's ``$`` would accept a trailing newline).
OPERATION_ID_PATTERN: Final = re.compile(r"rebase_[a-f0-9]{32}")
REBASE_DIR: Final = ".ds4-rebase"
OPERATIONS_DIR: Final = "operations"
TARGET_PREFIX: Final = "ds4-"
TARGET_SUFFIX: Final = ".jsonl"
JOURNAL_SUFFIX: Final = ".json"


def identity_suffix(source_session_id: str, leaf_id: str, source_hash: str) -> str:
    """The first 32 hex of SHA-256(``"<sourceSessionId>:<leafId>:<sourceHash>"``)."""
    return sha256_text(f"{source_session_id}:{leaf_id}:{source_hash}")[:32]


def operation_id(source_session_id: str, leaf_id: str, source_hash: str) -> str:
    """``rebase_`` + the identity suffix."""
    return OPERATION_PREFIX + identity_suffix(source_session_id, leaf_id, source_hash)


def checkpoint_id(source_session_id: str, leaf_id: str, source_hash: str) -> str:
    """``checkpoint_`` + the identity suffix (the same suffix as the operation id)."""
    return CHECKPOINT_PREFIX + identity_suffix(source_session_id, leaf_id, source_hash)


@dataclass(frozen=True)
class RebaseSource:
    """The source a rebase captures: the session, its leaf, and the first ``size`` bytes of its
    file with their SHA-256 (the ``source*`` fields of the journal, checkpoint and link)."""

    session_id: str
    leaf_id: str
    size: int
    sha256: str

    @property
    def operation_id(self) -> str:
        return operation_id(self.session_id, self.leaf_id, self.sha256)

    @property
    def checkpoint_id(self) -> str:
        return checkpoint_id(self.session_id, self.leaf_id, self.sha256)


@dataclass(frozen=True)
class ProjectPaths:
    """The project a rebase runs for, and how the paths its files name are compared: projects by
    their canonical path, folders as Node's ``path.resolve`` from ``cwd`` (the process's own when
    ``None``) makes them.  Tests pass their own ``canonical`` and ``cwd``."""

    project_path: str
    canonical: Callable[[str], str] = canonical_path
    cwd: str | None = None

    def is_project(self, path: str) -> bool:
        return self.canonical(path) == self.canonical(self.project_path)

    def same_folder(self, path: str, other: str) -> bool:
        base = os.getcwd() if self.cwd is None else self.cwd
        return os.path.dirname(resolve_like_node(path, base)) == os.path.dirname(resolve_like_node(other, base))


def is_operation_id(value: Any) -> bool:
    return isinstance(value, str) and OPERATION_ID_PATTERN.fullmatch(value) is not None


def require_operation_id(value: Any) -> str:
    """The id itself, or ``invalid-operation`` (§6.2 step 11) before any path is built from it."""
    if not is_operation_id(value):
        raise ContractViolation(Code.INVALID_OPERATION, "an operation id is rebase_ followed by 32 lower-case hex")
    return str(value)


def target_file_name(operation: str) -> str:
    """``ds4-<operationId>.jsonl``."""
    return f"{TARGET_PREFIX}{require_operation_id(operation)}{TARGET_SUFFIX}"


def target_file_path(source_file: str, operation: str) -> str:
    """The target next to the canonical source (a string, as it is stored in the journal)."""
    return os.path.join(os.path.dirname(source_file), target_file_name(operation))


def operations_dir(source_file: str | os.PathLike[str]) -> Path:
    """``<source dir>/.ds4-rebase/operations``: the journals of every source in that folder."""
    return Path(os.path.dirname(os.fspath(source_file))) / REBASE_DIR / OPERATIONS_DIR


def journal_path(source_file: str | os.PathLike[str], operation: str) -> Path:
    """``<source dir>/.ds4-rebase/operations/<operationId>.json``; a bad id never becomes a path."""
    return operations_dir(source_file) / (require_operation_id(operation) + JOURNAL_SUFFIX)
