"""The index is disposable (issue 12, docs/decisions.md D15): a damaged one is set aside and rebuilt.

Pi's JSONL is canonical and the SQLite index only a projection of it, so when SQLite says the
file is not a database or its image is malformed, or its rows break its own constraints
(``sqlite_errors.is_damage``), on open or in the middle of a call, the file is moved to
``<index>.corrupt`` (replacing an older one, kept for a post-mortem) with its ``-wal`` and
``-shm``, and a new index is built from the session files by the next catch-up.
Every other SQLite error (locked, read-only, full disk) is left to the caller: rebuilding would
not cure it.  Only a file that is ours (``index_claim``: our signature, or our creation cut short
in our folder) is ever set aside; anything else is ``index-not-ours`` and left as it is (I14).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from typing import Final, TypeVar

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops import steps
from reference.primitives.sqlite_errors import is_damage
from reference.recall.index_claim import HEADER_BYTES, IndexClaim, claim_index, may_set_aside
from reference.recall.index_schema import open_index

CORRUPT_SUFFIX: Final = ".corrupt"
Result = TypeVar("Result")


def set_aside(path: str, error: BaseException | str) -> str:
    """Move a damaged index out of the way; the one warning line that says so."""
    aside = path + CORRUPT_SUFFIX
    steps.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            steps.unlink(path + suffix)
    return (f"{Code.INDEX_REBUILT}: the index {path} was damaged ({error}); it was moved to {aside} "
            "and is rebuilt from the session files")


def open_repaired(path: str, repairs: list[str]) -> sqlite3.Connection:
    """``open_index``, setting a damaged file aside first (its warning appended to ``repairs``)."""
    claim = claim_index(path)  # the one look at the path before SQLite opens it (I14)
    if claim is IndexClaim.INTERRUPTED:  # SQLite may take a few bytes for an empty file
        repairs.append(set_aside(path, f"shorter than an SQLite header of {HEADER_BYTES} bytes: its creation was cut short"))
        claim = IndexClaim.NEW
    try:
        return open_index(path, claim=claim)
    except (sqlite3.DatabaseError, UnicodeDecodeError, ContractViolation) as error:
        if not (_damaged_at_open(error) and may_set_aside(path)):
            raise
        repairs.append(set_aside(path, error))
    return open_index(path)


def _damaged_at_open(error: BaseException) -> bool:
    """Opening reads only the index (its header, schema and ledger), so there damage also shows
    as a schema text that is not UTF-8 (Python's sqlite3 raises a ``UnicodeDecodeError``) or a
    ledger row that no longer matches its migration, whose message says to delete the index to
    rebuild it: this does just that.  A ledger from a *newer* version is left alone."""
    if isinstance(error, ContractViolation):
        return error.code == Code.INDEX_MIGRATION_CHANGED
    return isinstance(error, UnicodeDecodeError) or is_damage(error)


def run_repairing(path: str, repairs: list[str], work: Callable[[], Result]) -> Result:
    """Run ``work`` (which opens the index itself); once again after a damaged file met in the
    middle of it is set aside.  A second failure is the caller's error."""
    try:
        return work()
    except sqlite3.DatabaseError as error:
        if not (is_damage(error) and may_set_aside(path)):
            raise
        repairs.append(set_aside(path, error))
    return work()
