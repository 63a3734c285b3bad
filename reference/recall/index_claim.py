"""Whether a file is our index: the one owner of that question (issue 23, docs/index.md I14, D15).

The index is disposable, so a damaged one is set aside and rebuilt (``index_repair``); but only a
file this project made may be set aside, written or rebuilt.  A path is ours when nothing is
there, when it is a regular file (never followed or waited on) whose header carries our
``application_id`` or whose schema (read ``immutable``) holds the contract's ledger and state
table, or when it is shorter than a header in our own folder (our creation cut short): the rules
in full are docs/index.md, I14.  Anything else raises :class:`IndexNotOurs` (``index-not-ours``)
before SQLite ever opens it, so nothing is renamed, written or created beside it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Final

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.platform_ops.identity import file_identity
from reference.primitives.platform_ops.reads import (
    NO_FOLLOW_READ_FLAGS,
    NONBLOCKING_READ_FLAGS,
    link_open_would_follow,
)
from reference.primitives.textunits import printable

#: Ours, written by ``open_index`` into every index it creates (bytes 68-71 of the header,
#: big-endian): ``RR`` then ``C0DE``.  ``0xC0`` is never a byte of UTF-8 text.
APPLICATION_ID: Final = 0x5252C0DE
#: The SQLite database header: its magic, then the fields up to byte 100.
HEADER_BYTES: Final = 100
SQLITE_MAGIC: Final = b"SQLite format 3\x00"
_APPLICATION_ID_AT: Final = slice(68, 72)
#: The folder of the default index (``<agentDir>/recall-rebase/``): ours by name.
INDEX_DIR_NAME: Final = "recall-rebase"
#: The contract's migration ledger (§5.4) and index state (§5.1), as both implementations write them.
LEDGER_TABLE: Final = "schema_migrations"
LEDGER_COLUMNS: Final = ("version", "name", "checksum", "applied_at")
STATE_TABLE: Final = "session_index_state"
_WHAT_TO_DO: Final = "nothing was changed: pass another --index, or move it away"


class IndexClaim(Enum):
    """What the path holds, when it may be our index."""

    NEW = "new"  # nothing there (or ``:memory:``): ours to create
    OURS = "ours"  # our signature: opened, and set aside when SQLite finds it damaged (D15)
    INTERRUPTED = "interrupted"  # 1-99 bytes in our folder: our creation cut short, set aside


class IndexNotOurs(ContractViolation):
    """The path holds something this project did not make: ``index-not-ours``."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(Code.INDEX_NOT_OURS, f"the index {printable(path)} {what}; {_WHAT_TO_DO}")
        self.path = path


def claim_index(path: str) -> IndexClaim:
    """:class:`IndexClaim` of ``path``, or :class:`IndexNotOurs`; reads at most the header and,
    for an application id of 0, the schema through an ``immutable`` read-only connection."""
    if path == ":memory:" or path.startswith("file:"):
        return IndexClaim.NEW
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return IndexClaim.NEW
    _refuse_special(path, info.st_mode)
    header = _header(path, info)
    if len(header) < HEADER_BYTES:
        if in_our_folder(path):
            return IndexClaim.OURS if not header else IndexClaim.INTERRUPTED
        raise IndexNotOurs(path, f"holds {len(header)} bytes, less than an SQLite header: it is not an index "
                                 "recall-rebase made")
    application_id = int.from_bytes(header[_APPLICATION_ID_AT], "big")
    if application_id == APPLICATION_ID:
        return IndexClaim.OURS
    if not header.startswith(SQLITE_MAGIC):
        raise IndexNotOurs(path, "is not an SQLite database, so not an index recall-rebase made")
    if not _holds_contract_ledger(path):
        whose = f" (application id {application_id:#010x})" if application_id else ""
        raise IndexNotOurs(path, f"is an SQLite database without the index's {LEDGER_TABLE} and {STATE_TABLE}: "
                                 f"another program's{whose}")
    return IndexClaim.OURS


def may_set_aside(path: str) -> bool:
    """Whether a damaged file at ``path`` is ours to move away (D15): our signature, or our cut
    creation; never a file we did not make, never a path that is not a file."""
    try:
        return claim_index(path) in (IndexClaim.OURS, IndexClaim.INTERRUPTED)
    except (IndexNotOurs, OSError):
        return False


def in_our_folder(path: str) -> bool:
    """Whether ``path`` is in a folder named :data:`INDEX_DIR_NAME` (the default index's folder)."""
    return os.path.basename(os.path.dirname(os.path.abspath(path))) == INDEX_DIR_NAME


def refusal_hints(path: str, codes: Sequence[str]) -> dict[str, str]:
    """The command line's hint for ``index-not-ours``: why, with the path, and what to do."""
    if Code.INDEX_NOT_OURS not in codes:
        return {}
    try:
        claim_index(path)
    except IndexNotOurs as refusal:
        return {Code.INDEX_NOT_OURS: refusal.message}
    except OSError as exc:
        return {Code.INDEX_NOT_OURS: f"the index {printable(path)} cannot be read ({exc.strerror})"}
    return {}


def _refuse_special(path: str, mode: int) -> None:
    if stat.S_ISLNK(mode):
        raise IndexNotOurs(path, "is a symbolic link: recall-rebase never writes an index through a link")
    if stat.S_ISDIR(mode):
        raise IndexNotOurs(path, "is a folder, not an index recall-rebase made")
    if not stat.S_ISREG(mode):
        kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        raise IndexNotOurs(path, f"is {kind}, not an index recall-rebase made")


def _header(path: str, seen: os.stat_result) -> bytes:
    """The first :data:`HEADER_BYTES` bytes, read without following a link or waiting on a FIFO,
    from the very file ``lstat`` saw."""
    if link_open_would_follow(path):
        raise IndexNotOurs(path, "is a symbolic link: recall-rebase never writes an index through a link")
    with open(os.open(path, NO_FOLLOW_READ_FLAGS | NONBLOCKING_READ_FLAGS), "rb") as stream:
        info = os.fstat(stream.fileno())
        _refuse_special(path, info.st_mode)
        if file_identity(info) != file_identity(seen):
            raise IndexNotOurs(path, "was replaced while it was looked at")
        return stream.read(HEADER_BYTES)


def _holds_contract_ledger(path: str) -> bool:
    """The contract's ledger and state table, read from the file as it is (``immutable``: no
    lock, no ``-wal``/``-shm``/``-journal``, nothing written); a schema SQLite cannot read is
    not proof."""
    uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro&immutable=1"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True, isolation_level=None)) as conn:
            columns = tuple(row[0] for row in conn.execute("SELECT name FROM pragma_table_info(?)", (LEDGER_TABLE,)))
            state = conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?",
                                 (STATE_TABLE,)).fetchone()
    except (sqlite3.Error, UnicodeDecodeError):
        return False
    return columns == LEDGER_COLUMNS and state is not None
