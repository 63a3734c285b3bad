"""Loading one session file: header checks, kept entries and bounded diagnostics.

Bad input (a missing file, a folder, an empty file, no header) is refused with a contract code
and a one-line message.  Legacy version 1 and 2 files are flagged and never treated as
version 3: Pi rewrites them on open, the reference only reads them.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Final

from reference.pi.exact.header import VersionStatus, legacy_version, version_status
from reference.pi.exact.reader import (
    HEADER_SCAN_LIMIT_BYTES,
    RECORD_LIMIT_BYTES,
    Record,
    RecordKind,
    decode_value,
    iter_records,
    open_session_file,
    read_line_bytes,
)
from reference.pi.exact.tree import SessionTree
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonParseError

DIAGNOSTIC_SAMPLE: Final = 16  # line numbers or ids kept per diagnostic; counts are exact
_SKIPPED_BEFORE_HEADER: Final = frozenset({RecordKind.BLANK, RecordKind.MALFORMED, RecordKind.FALSY})


@dataclass
class LineSample:
    """A count plus the first few examples, so diagnostics stay bounded on huge files."""

    count: int = 0
    sample: list[Any] = field(default_factory=list)

    def add(self, item: Any) -> None:
        self.count += 1
        if len(self.sample) < DIAGNOSTIC_SAMPLE:
            self.sample.append(item)

    def to_json(self, name: str = "lines") -> dict[str, Any]:
        return {"count": self.count, name: list(self.sample)}


@dataclass
class ReadDiagnostics:
    """What the reader saw that Pi would skip, tolerate or refuse."""

    blank: LineSample = field(default_factory=LineSample)
    malformed: LineSample = field(default_factory=LineSample)
    falsy: LineSample = field(default_factory=LineSample)
    oversize: LineSample = field(default_factory=LineSample)
    non_entries: LineSample = field(default_factory=LineSample)
    extra_headers: LineSample = field(default_factory=LineSample)
    crlf_lines: int = 0
    unterminated_tail: bool = False


class HashingStream:
    """Reads through to a file while hashing every byte, so one pass yields the file SHA-256, and
    counting the CR LF pairs (in a file of JSON lines a CR can only be whitespace, so each pair
    ends one CR LF line; :attr:`crlf_lines` adds an unterminated last line that ends in CR)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.digest = hashlib.sha256()
        self.size = 0
        self.crlf_pairs = 0
        self.last = b""  # the last byte read

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        if data:
            self.digest.update(data)
            self.size += len(data)
            if self.last == b"\r" or b"\r" in data:
                self.crlf_pairs += data.count(b"\r\n") + (self.last == b"\r" and data[:1] == b"\n")
            self.last = data[-1:]
        return data

    @property
    def unterminated_tail(self) -> bool:
        """The bytes read so far end without a LF (a torn last line)."""
        return self.size > 0 and self.last != b"\n"

    @property
    def crlf_lines(self) -> int:
        """Lines whose last byte before the LF (or the end) is a CR."""
        return self.crlf_pairs + (self.unterminated_tail and self.last == b"\r")


@dataclass
class SessionFile:
    """A loaded session: its header, its kept entries (file order) and the diagnostics."""

    path: str
    size: int
    sha256: str
    header: dict[str, Any]
    header_record: Record
    entries: list[Record]
    diagnostics: ReadDiagnostics
    legacy_version: int | None
    unsupported_version: Any
    invalid_header_fields: list[str]

    @property
    def session_id(self) -> str:
        return str(self.header["id"])

    def tree(self) -> SessionTree:
        return SessionTree(self.entries)

    def decode(self, stream: IO[bytes], record: Record) -> Any:
        """The full parsed value of a record, read again by its locator."""
        try:
            return decode_value(read_line_bytes(stream, record))
        except JsonParseError as exc:  # the file changed under us
            raise ContractViolation(
                Code.SESSION_CHANGED, f"line {record.line} no longer parses: {exc}"
            ) from None


def open_checked(path: str) -> IO[bytes]:
    """The session file at ``path``, past the refusals of :func:`check_session_path`, open to read."""
    check_session_path(path)
    try:
        return open_session_file(path)
    except OSError as exc:
        raise ContractViolation(Code.SESSION_UNREADABLE, f"cannot read {path}: {exc.strerror}") from None


def check_session_path(path: str, *, allow_empty: bool = False) -> None:
    """The bad-input refusals every reader of a session file shares (R1)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ContractViolation(Code.SESSION_FILE_MISSING, f"no such session file: {path}") from None
    except OSError as exc:
        raise ContractViolation(Code.SESSION_UNREADABLE, f"cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ContractViolation(Code.SESSION_NOT_A_FILE, f"not a regular file: {path}")
    if info.st_size == 0 and not allow_empty:
        raise ContractViolation(Code.SESSION_EMPTY, f"the session file is empty (0 bytes): {path}")


def _legacy_version(version: Any) -> tuple[int | None, Any]:
    """(legacy version 1 or 2, or None; an unsupported version value, or None)."""
    status = version_status(version)
    unsupported = status is VersionStatus.NEWER or status is VersionStatus.NOT_A_NUMBER
    return legacy_version(version), version if unsupported else None


def accept_header(record: Record, header_record: Record | None, path: str) -> Record:
    """The first parsed value must be a session header with a string id, and come only once."""
    if header_record is not None or record.kind is not RecordKind.HEADER or not isinstance(record.id, str):
        culprit = first_line_problem(path) if record.line > 1 and header_record is None else None
        raise ContractViolation(
            Code.SESSION_NO_HEADER,
            (f"line 1 {culprit}, so line {record.line} is the first JSON value, and it " if culprit
             else f"line {record.line} ")
            + "is not a Pi session header "
            '(the first JSON value must be an object with type "session" and a string id): '
            f"{path}",
        )
    return record


def first_line_problem(path: str) -> str | None:
    """Why line 1 was skipped (Pi skips what JSON.parse rejects), for the refusal's wording."""
    try:
        with open_session_file(path) as stream:
            first = stream.read(HEADER_SCAN_LIMIT_BYTES).split(b"\n", 1)[0]
    except OSError:
        return None
    if first.startswith(b"\xef\xbb\xbf"):
        return "starts with a UTF-8 byte-order mark, which JSON.parse rejects"
    nul = first.find(b"\x00")
    if nul >= 0:
        return f"holds a NUL byte (at byte {nul}), which JSON.parse rejects"
    if first.strip(b" \t\r"):
        return "is not JSON"
    return None


def no_header(path: str) -> ContractViolation:
    return ContractViolation(
        Code.SESSION_NO_HEADER, f"no Pi session header: the file holds no JSON value (binary or whitespace only?): {path}"
    )


def iter_loaded_records(stream: IO[bytes], path: str, *, hashed: bool = True) -> Iterator[Record]:
    """Records, with Pi's header scan limit: the first parsed value must end in the first 1 MiB.
    ``hashed=False``: no per-line SHA-256 (see :func:`reference.pi.exact.reader.iter_records`)."""
    scanning = True
    for record in iter_records(stream, limit=RECORD_LIMIT_BYTES, hashed=hashed):
        if scanning:
            if record.end > HEADER_SCAN_LIMIT_BYTES:
                raise ContractViolation(
                    Code.SESSION_HEADER_SCAN_LIMIT,
                    f"no session header within the first {HEADER_SCAN_LIMIT_BYTES} bytes of {path}",
                )
            scanning = record.kind in _SKIPPED_BEFORE_HEADER
        yield record


def load_session(path: str | os.PathLike[str]) -> SessionFile:
    """Read a session file once, read-only, keeping only what the tree needs."""
    path = os.fspath(path)
    diagnostics = ReadDiagnostics()
    entries: list[Record] = []
    header_record: Record | None = None
    with open_checked(path) as raw:
        stream = HashingStream(raw)
        for record in iter_loaded_records(stream, path):  # type: ignore[arg-type]
            if record.crlf:
                diagnostics.crlf_lines += 1
            if not record.terminated:
                diagnostics.unterminated_tail = True
            kind = record.kind
            if kind is RecordKind.BLANK:
                diagnostics.blank.add(record.line)
            elif kind is RecordKind.MALFORMED:
                diagnostics.malformed.add(record.line)
            elif kind is RecordKind.FALSY:
                diagnostics.falsy.add(record.line)
            elif kind is RecordKind.OVERSIZE:
                diagnostics.oversize.add(record.line)
            elif kind is RecordKind.EXTRA_HEADER:
                diagnostics.extra_headers.add(record.line)
            elif kind is RecordKind.HEADER or header_record is None:
                header_record = accept_header(record, header_record, path)
            else:
                if not record.is_object or not isinstance(record.id, str):
                    diagnostics.non_entries.add(record.line)
                entries.append(record)
        header_value = decode_value(read_line_bytes(raw, header_record)) if header_record else None
    if header_record is None or not isinstance(header_value, dict):
        raise no_header(path)
    legacy, unsupported = _legacy_version(header_value.get("version"))
    if legacy is not None:
        diagnostics.non_entries = LineSample()  # legacy entries have no ids by design, not by damage
    invalid_fields = [name for name in ("cwd", "timestamp") if not isinstance(header_value.get(name), str)]
    return SessionFile(
        path=path,
        size=stream.size,
        sha256=stream.digest.hexdigest(),
        header=header_value,
        header_record=header_record,
        entries=entries,
        diagnostics=diagnostics,
        legacy_version=legacy,
        unsupported_version=unsupported,
        invalid_header_fields=invalid_fields,
    )


def decode_path(session: SessionFile, records: Sequence[Record]) -> list[Any]:
    with open_session_file(session.path) as stream:
        return [session.decode(stream, record) for record in records]
