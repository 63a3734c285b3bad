"""The rebase files as the interop format fixes them: operation id, journal, lock and target paths.

Targets, journals and locks must interoperate with the TypeScript implementation (decision D1),
so their names and places are part of the contract (§0.3, §6.5-§6.8; docs/rebase-artifacts.md):

- operation id: ``rebase_`` + the first 32 hex of SHA-256(``"<sourceSessionId>:<leafId>:<sourceHash>"``);
  the checkpoint id is ``checkpoint_`` + the same suffix;
- journal: ``<dir of canonical source>/.ds4-rebase/operations/<operationId>.json``;
- lock: ``<dir of canonical source>/.ds4-rebase/locks/<sha256(canonical source path)>.sqlite``;
- target: ``<dir of canonical source>/ds4-<operationId>.jsonl``.

The steps derive every expected name from here, from bytes the harness wrote, never from the
implementation.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Final

OPERATION_PREFIX: Final = "rebase_"
CHECKPOINT_PREFIX: Final = "checkpoint_"
OPERATION_ID: Final = re.compile(r"rebase_[a-f0-9]{32}")
REBASE_FOLDER: Final = ".ds4-rebase"
TARGET_PREFIX: Final = "ds4-"
#: Matches every target file name in a source folder (``ds4-rebase_<32 hex>.jsonl``).
TARGET_GLOB: Final = f"{TARGET_PREFIX}{OPERATION_PREFIX}*"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def operation_id(source_session_id: str, leaf_id: str, source: bytes) -> str:
    """``rebase_`` + SHA-256(``"<header id>:<leaf>:<SHA-256 of the source>"``)[:32] (§6.5)."""
    suffix = sha256_hex(f"{source_session_id}:{leaf_id}:{sha256_hex(source)}".encode())[:32]
    return OPERATION_PREFIX + suffix


def checkpoint_id(operation: str) -> str:
    """The checkpoint id sharing the operation id's suffix (§6.5)."""
    return CHECKPOINT_PREFIX + operation.removeprefix(OPERATION_PREFIX)


def operations_folder(source_dir: Path) -> Path:
    return source_dir / REBASE_FOLDER / "operations"


def journal_path(source_dir: Path, operation: str) -> Path:
    return operations_folder(source_dir) / f"{operation}.json"


def lock_path(canonical_source: str) -> Path:
    return Path(canonical_source).parent / REBASE_FOLDER / "locks" / f"{sha256_hex(canonical_source.encode())}.sqlite"


def target_name(operation: str) -> str:
    return f"{TARGET_PREFIX}{operation}.jsonl"


def target_path(source_dir: Path, operation: str) -> Path:
    return source_dir / target_name(operation)
