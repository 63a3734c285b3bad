"""Canonical source verification (contract §3.5): every check on one file descriptor.

The reader is handed what the index resolved at recall time (file, session id, project path,
entry id, expected raw hash) plus the current locator, never a path from the model.  Doing all
reads on one descriptor protects against the file being renamed or replaced between the checks;
the descriptor is opened without following a symbolic link where the platform can say so.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from collections.abc import Callable
from typing import IO, Any, Final

from reference.pi.exact.reader import HEADER_SCAN_LIMIT_BYTES, RECORD_LIMIT_BYTES, decode_value
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonParseError
from reference.primitives.platform_ops.paths import canonical_path
from reference.primitives.platform_ops.reads import NO_FOLLOW_READ_FLAGS, link_open_would_follow, read_at

SAFE_INTEGER: Final = 2**53 - 1
#: The header is looked for in this first read; only a file whose first line is longer is read
#: again up to ``HEADER_SCAN_LIMIT_BYTES`` (a recall verifies a thousand hits: 64 KiB, not 1 MiB, each).
HEADER_FIRST_READ_BYTES: Final = 64 * 1024


def _unavailable(message: str) -> ContractViolation:
    return ContractViolation(Code.SOURCE_UNAVAILABLE, message)


def _header_head(fd: int, limit: int) -> bytes:
    """The first ``limit`` bytes as one read of them would give wherever they hold a newline: the
    first 64 KiB, and all ``limit`` bytes only when those hold none."""
    head = read_at(fd, 0, min(limit, HEADER_FIRST_READ_BYTES))
    if b"\n" in head or len(head) >= limit:
        return head
    return read_at(fd, 0, limit)


def entry_locator(conn: sqlite3.Connection, entry_key: str) -> tuple[Any, Any] | None:
    """The byte range the index recorded for ``entry_key`` (what ``verify_source`` checks); None
    when the entry has no locator."""
    row = conn.execute(
        "SELECT start_offset, end_offset FROM entry_source_locations WHERE entry_key = ?", (entry_key,)
    ).fetchone()
    return None if row is None else (row[0], row[1])


class SourceFiles:
    """The session files one recall verifies its hits in: each opened once (without following a
    link), every hit's checks then read by ``pread`` on that one descriptor.  Closed with the recall."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}

    def descriptor(self, session_file: str) -> int:
        fd = self._open.get(session_file)
        if fd is None:
            fd = self._open[session_file] = _open_source(session_file)
        return fd

    def reader(self, session_file: str) -> IO[bytes] | None:
        """The file's descriptor as a reader from byte 0 (closing the reader leaves the descriptor
        open), so the catch-up proves the cursor on the descriptor the hits are then read from;
        None when it cannot be opened so (a link, say): the caller opens the file its own way."""
        try:
            fd = self.descriptor(session_file)
        except ContractViolation:
            return None
        os.lseek(fd, 0, os.SEEK_SET)
        return os.fdopen(fd, "rb", closefd=False)

    def close(self) -> None:
        for fd in self._open.values():
            os.close(fd)
        self._open.clear()

    def __enter__(self) -> SourceFiles:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _open_source(session_file: str) -> int:
    if link_open_would_follow(session_file):  # no O_NOFOLLOW there
        raise _unavailable("the session file is now a symbolic link")
    try:
        return os.open(session_file, NO_FOLLOW_READ_FLAGS)
    except FileNotFoundError:
        raise _unavailable("the session file no longer exists") from None
    except OSError as exc:
        raise _unavailable(f"the session file cannot be opened ({exc.strerror})") from None


def verify_source(
    *,
    session_file: str,
    session_id: str,
    project_path: str,
    entry_id: str,
    content_hash: str,
    start: Any,
    end: Any,
    canonical: Callable[[str], str] = canonical_path,
    files: SourceFiles | None = None,
) -> dict[str, Any]:
    """The entry whose bytes still hash to what the index recorded: check the locator, open
    once, check header and record on that descriptor, parse.

    ``canonical``: ``canonical_path``, or a memo of it that a recall shares among its hits (the
    header's cwd and the project path are the same strings for every hit of a source).
    ``files``: the descriptors a recall shares among its hits (every check is still made for
    each hit, on the one descriptor of its file); without it the file is opened for this check.
    """
    if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= SAFE_INTEGER for v in (start, end)):
        raise _unavailable("the stored locator is not a pair of safe integers")
    if end <= start or end - start > RECORD_LIMIT_BYTES:
        raise _unavailable("the stored locator is empty, reversed or longer than 4 MiB")
    fd = files.descriptor(session_file) if files is not None else _open_source(session_file)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or end > info.st_size:
            raise _unavailable("the session file is not a regular file holding the located record")
        head = _header_head(fd, min(info.st_size, HEADER_SCAN_LIMIT_BYTES))
        newline = head.find(b"\n")
        if newline < 0:
            raise _unavailable("no complete header line in the first 1 MiB")
        try:
            header = decode_value(head[:newline])
        except JsonParseError:
            header = None
        if (
            not isinstance(header, dict)
            or header.get("type") != "session"
            or header.get("id") != session_id
            or not isinstance(header.get("cwd"), str)
            or canonical(header["cwd"]) != canonical(project_path)
        ):
            raise ContractViolation(Code.SOURCE_SCOPE_MISMATCH, "the session header no longer names this session and project")
        raw = read_at(fd, start, end - start)
    finally:
        if files is None:
            os.close(fd)
    if len(raw) != end - start:
        raise _unavailable("short read of the located record")
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if hashlib.sha256(raw).hexdigest() != content_hash:
        raise ContractViolation(Code.SOURCE_CHANGED, "the record's bytes changed since it was indexed")
    try:
        entry = decode_value(raw)
    except JsonParseError:
        raise ContractViolation(Code.SOURCE_CHANGED, "the record no longer parses") from None
    if not isinstance(entry, dict) or entry.get("id") != entry_id:
        raise ContractViolation(Code.SOURCE_CHANGED, "the record no longer holds the indexed entry")
    return entry
