"""The source archive a rebase starts from: one read of the source, checked the way contract §6.2
steps 15-21 and §6.3 require, and the prefix check that every later step repeats (step 24, §6.9).

Read-only: the file is opened through :func:`reference.pi.reader.open_session_file` and never
through anything that could migrate it, so a version 1 or 2 file is refused before any other
check looks at it (``unsupported-source-version``).

How the source is read (docs/benchmarks.md, "Rebase"): one streaming pass (:func:`scan_source`)
validates every record, hashes the whole file and keeps only a compact id/parent/offset table;
only the records a step needs are decoded again, by offset.  Within one run (:func:`scan_scope`)
the scan of a file is shared: a later step that has just hashed the same bytes (the same size and
SHA-256) reuses it instead of parsing the file again, and a prefix hash computed for one contract
check is handed to the check that immediately follows it on the same bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import repeat
from types import NoneType
from typing import IO, Any, Final

import msgspec

from reference.pi.blockscan import Block, Message, NotOrdinary, Row, line_fields, ordinary_blocks
from reference.pi.context import UnbuildableContext, context_entries
from reference.pi.reader import (
    CURRENT_VERSION,
    Record,
    RecordKind,
    decode_value,
    open_session_file,
)
from reference.pi.session import (
    HashingStream,
    SessionFile,
    accept_header,
    check_session_path,
    iter_loaded_records,
    load_session,
    no_header,
)
from reference.pi.tree import SessionTree
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import UNDEFINED, JsonParseError, js_stringify
from reference.primitives.jsvalues import is_safe_integer
from reference.primitives.paths import canonical_path

_HEX64: Final = re.compile(r"[a-f0-9]{64}")
_CHUNK: Final = 1024 * 1024
ROOT: Final = -1  # parentId null
MISSING: Final = -2  # parentId names no entry
_BRANCH_KINDS: Final = frozenset({"custom", "custom_message", "compaction"})
_LINK_KINDS: Final = ("custom", "custom_message")  # where checkpoint, link and handoff entries live


# ----------------------------------------------------------------------------------------------
# prefix checks


def sha256_prefix(path: str, size: int) -> str | None:
    """SHA-256 of bytes ``[0, size)`` of ``path``; None when the file is shorter."""
    digest = hashlib.sha256()
    remaining = size
    with open_session_file(path) as stream:
        while remaining > 0:
            chunk = stream.read(min(_CHUNK, remaining))
            if not chunk:
                return None
            digest.update(chunk)
            remaining -= len(chunk)
    return digest.hexdigest()


def prefix_shape_ok(size: Any, expected: Any) -> bool:
    return bool(is_safe_integer(size) and size >= 1 and isinstance(expected, str) and _HEX64.fullmatch(expected))


def prefix_matches(path: str, size: Any, expected: Any) -> bool:
    """Upstream ``checkPrefix``: a safe size of at least 1, 64 lower-case hex, a file at least
    that long whose first ``size`` bytes hash to ``expected``."""
    if not prefix_shape_ok(size, expected):
        return False
    try:
        if os.stat(path).st_size < size:
            return False
        return bool(sha256_prefix(path, int(size)) == expected)
    except OSError:
        return False


def check_prefix(path: str, size: Any, expected: Any, code: str = "archive-changed") -> None:
    """:func:`prefix_matches` or ``code`` (``archive-changed`` for a source, ``target-integrity``
    for a target)."""
    if not prefix_matches(path, size, expected):
        raise ContractViolation(code, "the captured prefix of the session file no longer matches its fingerprint")


# ----------------------------------------------------------------------------------------------
# the per-run scope: scans and hand-over prefix checks


@dataclass
class ScanScope:
    """What one rebase run has read: the scan of each file (by real path) and prefix checks
    handed from one contract check to the next."""

    scans: dict[str, SourceScan] = field(default_factory=dict)
    handed: set[tuple[str, int, str]] = field(default_factory=set)
    remember: bool = False  # the next verified source prefix is handed to the following check


_SCOPE: ContextVar[ScanScope | None] = ContextVar("rebase_scan_scope", default=None)


@contextlib.contextmanager
def scan_scope() -> Iterator[ScanScope]:
    """The scope of one run; nested calls share the outer one.  Everything is dropped at exit."""
    current = _SCOPE.get()
    if current is not None:
        yield current
        return
    scope = ScanScope()
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def current_scope() -> ScanScope | None:
    return _SCOPE.get()


def _key(path: str, size: Any, expected: Any) -> tuple[str, int, str] | None:
    if not prefix_shape_ok(size, expected):
        return None
    return os.path.realpath(path), int(size), str(expected)


def hand_over(path: str, size: Any, expected: Any) -> None:
    """Hand a prefix just verified to the check that immediately follows on the same bytes."""
    scope, key = _SCOPE.get(), _key(path, size, expected)
    if scope is not None and key is not None:
        scope.handed.add(key)


def take_over(path: str, size: Any, expected: Any) -> bool:
    """Whether the check just before verified this prefix (and then it is used up)."""
    scope, key = _SCOPE.get(), _key(path, size, expected)
    if scope is None or key is None or key not in scope.handed:
        return False
    scope.handed.discard(key)
    return True


def shared_prefix_matches(path: str, size: Any, expected: Any) -> bool:
    """:func:`prefix_matches`, or the hand-over of the check just before it; a real check hands
    its result on when the scope asks for it (:attr:`ScanScope.remember`)."""
    if take_over(path, size, expected):
        return True
    matched = prefix_matches(path, size, expected)
    scope = _SCOPE.get()
    if matched and scope is not None and scope.remember:
        scope.remember = False
        hand_over(path, size, expected)
    return matched


def cached_scan(path: str, size: int, sha256: str) -> SourceScan | None:
    """The run's scan of ``path`` when it read exactly ``size`` bytes hashing to ``sha256`` and
    the file still has that size (the caller has just verified that prefix)."""
    scope = _SCOPE.get()
    if scope is None:
        return None
    real = os.path.realpath(path)
    scan = scope.scans.get(real)
    if scan is None or scan.size != size or scan.sha256 != sha256:
        return None
    try:
        if os.stat(real).st_size != size:
            return None
    except OSError:
        return None
    return scan


# ----------------------------------------------------------------------------------------------
# the source scan


@dataclass
class SourceScan:
    """What one streaming read of a session file found, kept compact instead of one
    :class:`Record` per entry: the whole-file SHA-256, the header, whether steps 17-18 pass, and
    per entry its id, parent (as an entry number), type and byte span.

    Built by the same reader loop as :func:`reference.pi.session.load_session` (the same refusals,
    the same classification), without the per-line SHA-256 that only index locators need.
    """

    path: str
    size: int
    sha256: str
    header: dict[str, Any]
    entry_count: int
    extra_headers: int
    incomplete: bool  # step 17 fails: archive-incomplete
    invalid_line: int | None  # step 18 fails first at this line: archive-invalid-ids
    last_id: Any  # the id of the last entry in file order (Pi's leaf on load)
    ids: dict[str, int]  # entry id -> entry number (the last one, as Pi's index, when ids repeat)
    parents: array[int]  # entry number of the parent; ROOT for null, MISSING when unresolved
    empty_parents: set[int]  # entries whose parentId is "" (a root to Pi, a lookup to step 20)
    types: list[Any]  # the entry type (shared str objects)
    starts: array[int]
    ends: array[int]
    exchanges: Exchanges | None = None  # read with the entries by the block read, else None
    stamp: tuple[int, int, int, int] | None = None  # file_stamp() when the scan began
    memo: dict[str, Any] = field(default_factory=dict)  # what later steps derived from it

    @property
    def valid(self) -> bool:
        """Steps 17-18 pass: every entry is a Pi entry with a unique string id, no bad line."""
        return not self.incomplete and self.invalid_line is None

    def decode(self, stream: IO[bytes], number: int) -> Any:
        stream.seek(self.starts[number])
        data = stream.read(self.ends[number] - self.starts[number])
        try:
            return decode_value(data[:-1] if data.endswith(b"\n") else data)
        except JsonParseError as exc:  # the file changed under us
            raise ContractViolation("session-changed", f"entry {number} no longer parses: {exc}") from None

    def decode_many(self, numbers: Iterable[int]) -> list[Any]:
        with open_session_file(self.path) as stream:
            return [self.decode(stream, number) for number in numbers]

    def ancestry(self, leaf: int) -> array[int]:
        """Entry numbers root -> leaf, walked as :meth:`SessionTree.ancestry` walks a valid scan
        (a falsy or missing parent ends the walk, a repeated entry too)."""
        path = array("q")
        append, parents, empty_parents = path.append, self.parents, self.empty_parents
        seen = bytearray(self.entry_count)
        current = leaf
        while current >= 0 and not seen[current]:
            seen[current] = 1
            append(current)
            if current in empty_parents:
                break
            current = parents[current]
        path.reverse()
        return path

    def branch(self, leaf_id: Any) -> array[int]:
        """Pi's ``getBranch(leafId)`` on a valid scan: empty for a falsy or unknown leaf.  Walked
        once per leaf and scan (the array is shared: never change it)."""
        number = self.ids.get(leaf_id) if isinstance(leaf_id, str) and leaf_id else None
        if number is None:
            return array("q")
        key = f"branch:{leaf_id}"
        path: array[int] | None = self.memo.get(key)
        if path is None:
            path = self.memo[key] = self.ancestry(number)
        return path

    def branch_subset(self, leaf_id: Any) -> dict[int, Any]:
        """The decoded ``custom``, ``custom_message`` and ``compaction`` entries of
        :meth:`branch` by entry number, root -> leaf: what the capture and each lineage step
        look at, decoded once per leaf and scan (shared: never change them)."""
        key = f"branch-subset:{leaf_id}"
        subset: dict[int, Any] | None = self.memo.get(key) if isinstance(leaf_id, str) else None
        if subset is None:
            wanted = [n for n in self.branch(leaf_id) if self.types[n] in _BRANCH_KINDS]
            subset = dict(zip(wanted, self.decode_many(wanted), strict=True))
            if isinstance(leaf_id, str):
                self.memo[key] = subset
        return subset

    def custom_entries(self) -> list[Any]:
        """Every ``custom`` entry decoded, in file order (pin and memory mutations live there)."""
        return self.decode_many(n for n, kind in enumerate(self.types) if kind == "custom")

    def branch_customs(self, leaf_id: Any) -> list[Any]:
        """The decoded ``custom`` and ``custom_message`` entries of :meth:`branch`: where a
        checkpoint, link and handoff live."""
        return [value for number, value in self.branch_subset(leaf_id).items() if self.types[number] in _LINK_KINDS]

    def validate_branch(self, leaf_id: str) -> None:
        """Step 20 on a valid scan (every entry a Pi entry), as :func:`validate_branch` does it;
        a leaf that passed once passes again without a walk (the scan never changes)."""
        key = f"valid-branch:{leaf_id}"
        if key in self.memo:
            return
        self._validate_branch(leaf_id)
        self.memo[key] = True

    def _validate_branch(self, leaf_id: str) -> None:
        seen = bytearray(self.entry_count)
        current = self.ids.get(leaf_id, MISSING)
        while True:
            if current < 0 or seen[current]:
                raise ContractViolation("archive-branch-invalid", "the leaf's ancestry is broken or cyclic")
            seen[current] = 1
            parent = self.parents[current]
            if parent == ROOT:
                return
            current = self.ids.get("", MISSING) if current in self.empty_parents else parent


def file_stamp(info: os.stat_result) -> tuple[int, int, int, int]:
    """What changes whenever a file's bytes do: inode, size, modification and change times."""
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _incomplete(record: Record) -> bool:
    """Upstream ``parseLine`` calls a line malformed unless it is an object with a string type."""
    return record.kind in (RecordKind.MALFORMED, RecordKind.FALSY, RecordKind.OVERSIZE) or (
        record.kind is RecordKind.ENTRY and not (record.is_object and isinstance(record.type, str)))


class _Table:
    """The compact entry table a scan builds, one entry line at a time."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.parents = array("q")
        self.starts = array("q")
        self.ends = array("q")
        self.types: list[Any] = []
        self.shared_types: dict[str, str] = {}
        self.empty_parents: set[int] = set()
        self.pending: dict[int, str] = {}  # parentIds that name a later line
        self.incomplete = False
        self.invalid_line: int | None = None
        self.extra_headers = 0
        self.last_id: Any = None
        self.exchanges: Exchanges | None = Exchanges()

    def add_block(self, block: Block) -> None:
        """:meth:`add` for each line of ``block``, list by list when every line is a Pi entry
        with a new id (what Pi writes); line by line otherwise, so the first bad line is named."""
        fields = block.fields
        count = len(fields)
        ids = [f.id for f in fields]
        types = [f.type for f in fields]
        parent_ids = [f.parentId for f in fields]
        if (not count or not block.terminated or self.invalid_line is not None
                or not all(map(isinstance, types, repeat(str))) or not all(map(isinstance, ids, repeat(str)))
                or not all(map(isinstance, parent_ids, repeat((str, NoneType))))
                or not all(map(isinstance, [f.timestamp for f in fields], repeat(str)))
                or "session" in types or len(set(ids)) != count or not self.ids.keys().isdisjoint(ids)):
            for index in range(count):
                row = block.row(index)
                if row.type == "session":
                    self.incomplete |= not row.terminated
                    self.extra_headers += 1
                else:
                    self.add(row, message=fields[index].message)
            return
        first = len(self.types)
        if self.exchanges is not None:
            self.exchanges.add([(number, entry.message) for number, kind, entry
                                in zip(range(first, first + count), types, fields, strict=True) if kind == "message"])
        self.ids.update(zip(ids, range(first, first + count), strict=True))
        lookup = self.ids.get
        for offset, parent_id in enumerate(parent_ids):
            if parent_id is None:
                self.parents.append(ROOT)
                continue
            if not parent_id:
                self.empty_parents.add(first + offset)
            parent = lookup(parent_id, MISSING)
            if parent == MISSING or parent >= first + offset:  # named by a later line
                self.pending[first + offset] = parent_id
                parent = MISSING
            self.parents.append(parent)
        shared = self.shared_types.setdefault
        self.types.extend([shared(t, t) for t in types])
        self.starts.extend(block.starts)
        self.ends.extend(block.ends)
        self.last_id = ids[-1]

    def add(self, row: Row, is_object: bool = True, message: Any = msgspec.UNSET) -> None:
        """One entry line (``message``: its typed message, when the exchanges are kept)."""
        number = len(self.types)
        if self.exchanges is not None and row.type == "message":
            self.exchanges.add([(number, message)])
        entry_id, parent_id, entry_type = row.id, row.parent_id, row.type
        if not row.terminated:
            self.incomplete = True
        if not (is_object and isinstance(entry_type, str)):
            self.incomplete = True
        pi_entry = (is_object and isinstance(entry_type, str) and isinstance(entry_id, str)
                    and (parent_id is None or isinstance(parent_id, str)) and row.timestamped)
        if self.invalid_line is None and (not pi_entry or entry_id in self.ids):
            self.invalid_line = row.line
        if isinstance(entry_id, str):
            self.ids[entry_id] = number
        if isinstance(parent_id, str) and pi_entry:
            parent = self.ids.get(parent_id)
            if parent is None:
                self.pending[number] = parent_id
                parent = MISSING
            if not parent_id:
                self.empty_parents.add(number)
            self.parents.append(parent)
        else:
            self.parents.append(ROOT)
        self.types.append(self.shared_types.setdefault(entry_type, entry_type)
                          if isinstance(entry_type, str) else entry_type)
        self.starts.append(row.start)
        self.ends.append(row.end)
        self.last_id = entry_id


def _exact_table(stream: HashingStream, path: str) -> tuple[_Table, Record | None]:
    """The table from the exact reader: every kind of line classified as Pi does."""
    table = _Table()
    table.exchanges = None  # read from the branch's lines when asked (exchange_issues_of)
    header: Record | None = None
    for record in iter_loaded_records(stream, path, hashed=False):  # type: ignore[arg-type]
        kind = record.kind
        if kind is RecordKind.BLANK:
            table.incomplete |= not record.terminated
        elif kind is RecordKind.MALFORMED or kind is RecordKind.FALSY or kind is RecordKind.OVERSIZE:
            table.incomplete = True
        elif kind is RecordKind.EXTRA_HEADER:
            table.incomplete |= not record.terminated
            table.extra_headers += 1
        elif kind is RecordKind.HEADER or header is None:
            table.incomplete |= not record.terminated
            header = accept_header(record, header, path)
        else:
            table.add(Row(record.line, record.start, record.end, record.terminated, record.type, record.id,
                          record.parent_id, record.timestamped), record.is_object)
    return table, header


def _ordinary_table(stream: HashingStream) -> tuple[_Table, Row]:
    """The table from :func:`reference.pi.blockscan.ordinary_blocks`, or :class:`NotOrdinary`."""
    table = _Table()
    header: Row | None = None
    for block in ordinary_blocks(stream):  # type: ignore[arg-type]
        if header is None:
            header = block.row(0)
            table.incomplete |= not header.terminated
            block = Block(block.first_line + 1, block.starts[1:], block.ends[1:], block.fields[1:], block.terminated)
        table.add_block(block)
    if header is None:
        raise NotOrdinary
    return table, header


def _read_span(raw: IO[bytes], start: int, end: int) -> bytes:
    raw.seek(start)
    data = raw.read(end - start)
    return data[:-1] if data.endswith(b"\n") else data


def scan_source(path: str) -> SourceScan:
    """Read ``path`` once, read-only, with the refusals of :func:`reference.pi.session.load_session`
    and the facts of steps 17-18, keeping a compact table of the entries.

    An ordinary file (what Pi writes) is read by blocks (:mod:`reference.pi.blockscan`); any other
    file is read again, from the start, by the exact reader."""
    path = os.fspath(path)
    check_session_path(path)
    scope = _SCOPE.get()
    try:
        raw = open_session_file(path)
    except OSError as exc:
        raise ContractViolation("session-unreadable", f"cannot read {path}: {exc.strerror}") from None
    with raw:
        stamp = file_stamp(os.fstat(raw.fileno()))
        stream = HashingStream(raw)
        try:
            table, first = _ordinary_table(stream)
            span: tuple[int, int] | None = (first.start, first.end)
        except NotOrdinary:
            raw.seek(0)
            stream = HashingStream(raw)
            table, record = _exact_table(stream, path)
            span = (record.start, record.end) if record is not None else None
        header_value = decode_value(_read_span(raw, *span)) if span is not None else None
    if span is None or not isinstance(header_value, dict):
        raise no_header(path)
    for entry, parent_id in table.pending.items():
        table.parents[entry] = table.ids.get(parent_id, MISSING)
    scan = SourceScan(
        path=path, size=stream.size, sha256=stream.digest.hexdigest(), header=header_value,
        entry_count=len(table.types), extra_headers=table.extra_headers, incomplete=table.incomplete,
        invalid_line=table.invalid_line, last_id=table.last_id, ids=table.ids, parents=table.parents,
        empty_parents=table.empty_parents, types=table.types, starts=table.starts, ends=table.ends,
        exchanges=table.exchanges, stamp=stamp,
    )
    if scope is not None:
        scope.scans[os.path.realpath(path)] = scan
    return scan


def branch_customs(session_file: str, leaf: Any) -> list[Any]:
    """The ``custom`` and ``custom_message`` entries on the active branch at ``leaf`` ("default":
    Pi's leaf on load): all that lineage verification looks at in the current session.  From
    the run's compact scan when the file is a valid one, else from the exact reader's tree."""
    scan = scan_for_run(session_file)
    if scan.valid:
        leaf_id = scan.last_id if leaf == "default" else leaf
        return scan.branch_customs(leaf_id)
    session = load_session(session_file)
    tree = session.tree()
    leaf_id = tree.default_leaf_id if leaf == "default" else leaf
    return decode_path(session, [r for r in tree.branch(leaf_id).path if r.type in _LINK_KINDS])


def scan_for_run(path: str) -> SourceScan:
    """The run's scan of ``path`` while the file's stamp is unchanged, else a new scan.

    A rebase scans the source for the runtime's lineage check (§6.2 step 2) and needs the same
    records after the lock (step 17): an unchanged inode, size, modification and change time say
    the bytes are the ones scanned.  Any change the stamp could miss is still caught, because the
    prefix check of step 24 hashes the file again against the scan's SHA-256.
    """
    scope = _SCOPE.get()
    cached = scope.scans.get(os.path.realpath(path)) if scope is not None else None
    if cached is not None:
        try:
            if file_stamp(os.stat(path)) == cached.stamp:
                return cached
        except OSError:
            pass
    return scan_source(path)


# ----------------------------------------------------------------------------------------------
# checks


def same_project(cwd: Any, project_path: str) -> bool:
    """The header ``cwd`` is a string naming the project (compared as canonical paths)."""
    return isinstance(cwd, str) and canonical_path(cwd) == canonical_path(project_path)


def is_pi_entry(record: Record) -> bool:
    """Upstream ``isPiSessionEntryRecord``: string ``type``, ``id`` and ``timestamp``, and a
    ``parentId`` that is a string or null."""
    return (record.is_object and isinstance(record.type, str) and isinstance(record.id, str)
            and (record.parent_id is None or isinstance(record.parent_id, str)) and record.timestamped)


def check_header(header: dict[str, Any], project_path: str) -> None:
    """Steps 15-16: version 3 before anything else is looked at, then the project."""
    version = header.get("version")
    if isinstance(version, bool) or version != CURRENT_VERSION:
        raise ContractViolation("unsupported-source-version",
                                f"session version {version!r} is not 3; Pi would rewrite the file on open")
    if not same_project(header.get("cwd"), project_path):
        raise ContractViolation("source-scope-mismatch", "the session header cwd is not this project")


def validate_branch(tree: SessionTree, leaf_id: str) -> None:
    """Step 20: from the leaf, ``parentId`` links reach a root through valid entries, no cycle."""
    seen: set[str] = set()
    current: Any = leaf_id
    while current is not None:
        record = tree.by_id.get(current) if isinstance(current, str) else None
        if record is None or not is_pi_entry(record) or current in seen:
            raise ContractViolation("archive-branch-invalid", "the leaf's ancestry is broken or cyclic")
        seen.add(current)
        current = record.parent_id


def check_records(session: SessionFile) -> SessionTree:
    """Steps 17-18: no malformed, oversize or unterminated line; every entry a valid Pi entry
    with a unique id (later ``session`` records are skipped)."""
    diagnostics = session.diagnostics
    if (diagnostics.malformed.count or diagnostics.falsy.count or diagnostics.oversize.count
            or diagnostics.unterminated_tail or any(_incomplete(record) for record in session.entries)):
        raise ContractViolation("archive-incomplete",
                                "the source has a malformed, oversize or unterminated line; it is reported, never repaired")
    ids: set[str] = set()
    for record in session.entries:
        if not is_pi_entry(record) or record.id in ids:
            raise ContractViolation("archive-invalid-ids", f"line {record.line} is not a Pi entry with a unique id")
        ids.add(record.id)
    return SessionTree(session.entries)


def check_scan(scan: SourceScan) -> None:
    """Steps 17-18 on a scan: the codes of :func:`check_records`."""
    if scan.incomplete:
        raise ContractViolation("archive-incomplete",
                                "the source has a malformed, oversize or unterminated line; it is reported, never repaired")
    if scan.invalid_line is not None:
        raise ContractViolation("archive-invalid-ids", f"line {scan.invalid_line} is not a Pi entry with a unique id")


def decode_path(session: SessionFile, records: Sequence[Record]) -> list[Any]:
    with open_session_file(session.path) as stream:
        return [session.decode(stream, record) for record in records]


# ----------------------------------------------------------------------------------------------
# tool exchanges over a whole branch (contract §6.4), without keeping the branch decoded


def _exchange_key(value: Any) -> str:
    """``toolexchange._key``: a comparable key for a tool-call id of any JSON type."""
    return value if isinstance(value, str) else "json:" + js_stringify(value)


def _defined(value: Any) -> Any:
    return UNDEFINED if value is msgspec.UNSET else value


def _issues(calls: set[str], results: set[str]) -> set[str]:
    issues = {f"missing-result:{call}" for call in calls - results}
    issues |= {f"orphan-result:{result}" for result in results - calls}
    return issues


@dataclass
class Exchanges:
    """The tool-exchange facts of a file's ``message`` entries, read with its entries, kept only
    for the entries that have one: the keys of assistant tool calls and of tool results by entry
    number, and the message entries without a message (Pi cannot build a context over them)."""

    call_numbers: array[int] = field(default_factory=lambda: array("q"))
    call_keys: list[str] = field(default_factory=list)
    result_numbers: array[int] = field(default_factory=lambda: array("q"))
    result_keys: list[str] = field(default_factory=list)
    messageless: array[int] = field(default_factory=lambda: array("q"))

    def add(self, messages: Iterable[tuple[int, Message | msgspec.UnsetType | None]]) -> None:
        """What ``exchange_issues`` collects from the messages of ``message`` entries, given as
        (entry number, typed message) pairs."""
        for number, message in messages:
            if message.__class__ is not Message:  # null or absent
                self.messageless.append(number)
                continue
            role = message.role
            if role == "assistant":
                content = message.content
                if content.__class__ is list:
                    for block in content:
                        if block.type == "toolCall":
                            self.call_numbers.append(number)
                            self.call_keys.append(_exchange_key(_defined(block.id)))
            elif role == "toolResult":
                self.result_numbers.append(number)
                self.result_keys.append(_exchange_key(_defined(message.toolCallId)))

    def issues(self, marks: bytearray) -> set[str]:
        """``exchange_issues`` of the entries marked in ``marks`` (by entry number)."""
        if any(marks[number] for number in self.messageless):
            raise UnbuildableContext("a message entry has no message")
        calls = {key for number, key in zip(self.call_numbers, self.call_keys, strict=True) if marks[number]}
        results = {key for number, key in zip(self.result_numbers, self.result_keys, strict=True) if marks[number]}
        return _issues(calls, results)


def exchange_issues_of(scan: SourceScan, numbers: Iterable[int]) -> set[str]:
    """``exchange_issues(context_messages(entries))`` for the entries ``numbers`` of a scan:
    from the exchanges the block read kept, else by reading only their ``message`` lines (the
    same typed fields, the plain decode where that read refuses a line).  Raises
    :class:`UnbuildableContext` as the plain form does for a message entry without a message."""
    marks = bytearray(scan.entry_count)
    for number in numbers:
        marks[number] = 1
    if scan.exchanges is not None:
        return scan.exchanges.issues(marks)
    exchanges = Exchanges()
    types = scan.types
    with open_session_file(scan.path) as stream:
        for number in numbers:
            if types[number] != "message":
                continue
            stream.seek(scan.starts[number])
            data = stream.read(scan.ends[number] - scan.starts[number])
            try:
                fields = line_fields(data[:-1] if data.endswith(b"\n") else data)
            except (JsonParseError, NotOrdinary) as exc:
                raise ContractViolation("session-changed", f"entry {number} no longer parses: {exc}") from None
            exchanges.add([(number, fields.message)])
            if exchanges.messageless:
                raise UnbuildableContext("a message entry has no message")
    return exchanges.issues(marks)


# ----------------------------------------------------------------------------------------------
# the archive


class BranchIds(Collection[str]):
    """The ids of a captured branch, answered from the scan (no set of a million strings)."""

    def __init__(self, scan: SourceScan, branch: array[int]) -> None:
        self._scan = scan
        self._branch = branch
        self._marks: bytearray | None = None

    def _on_branch(self) -> bytearray:
        if self._marks is None:
            self._marks = bytearray(self._scan.entry_count)
            for number in self._branch:
                self._marks[number] = 1
        return self._marks

    def __contains__(self, entry_id: object) -> bool:
        number = self._scan.ids.get(entry_id)  # type: ignore[call-overload]
        return number is not None and bool(self._on_branch()[number])

    def __iter__(self) -> Iterator[str]:
        marks = self._on_branch()
        return (entry_id for entry_id, number in self._scan.ids.items() if marks[number])

    def __len__(self) -> int:
        return len(self._branch)


@dataclass
class SourceArchive:
    """A complete canonical source (§6.3) captured at one leaf."""

    scan: SourceScan
    leaf_id: str
    branch_numbers: array[int]  # entry numbers root -> leaf
    branch_subset: list[Any]  # the decoded custom, custom_message and compaction entries of the branch
    context: list[Any]  # Pi's compaction-aware context entries at the leaf

    @property
    def path(self) -> str:
        return self.scan.path

    @property
    def session_id(self) -> str:
        return str(self.scan.header["id"])

    @property
    def size(self) -> int:
        return self.scan.size

    @property
    def sha256(self) -> str:
        return self.scan.sha256

    @property
    def default_leaf_id(self) -> Any:
        """Pi's leaf on load: the id of the last entry in file order."""
        return self.scan.last_id

    @property
    def record_count(self) -> int:
        """Parsed records, header included (upstream ``archive.records.length``)."""
        return self.scan.entry_count + 1 + self.scan.extra_headers

    @property
    def branch(self) -> list[Any]:
        """Every entry of the branch decoded, root -> leaf (reads the whole branch: the rebase
        itself uses :attr:`branch_subset`, :meth:`branch_issues` and :meth:`branch_ids`)."""
        return self.scan.decode_many(self.branch_numbers)

    def branch_ids(self) -> Collection[str]:
        return BranchIds(self.scan, self.branch_numbers)

    def branch_issues(self) -> set[str]:
        """The tool-exchange issues of the whole branch (``exchange_issues`` of its messages)."""
        return exchange_issues_of(self.scan, self.branch_numbers)

    def custom_entries(self) -> list[Any]:
        """Every ``custom`` entry decoded, in file order."""
        return self.scan.custom_entries()

    def all_entries(self) -> list[Any]:
        """Every entry decoded, in file order (the pin and memory replay reads them all)."""
        return self.scan.decode_many(range(self.scan.entry_count))


def _context(scan: SourceScan, branch: array[int], subset: dict[int, Any]) -> list[Any]:
    """``context_entries`` of the decoded branch, decoding only the entries it keeps."""
    types = scan.types
    last = next((i for i in range(len(branch) - 1, -1, -1) if types[branch[i]] == "compaction"), None)
    if last is None:
        return context_entries(scan.decode_many(branch))
    compaction = subset[branch[last]]
    first_kept = compaction.get("firstKeptEntryId", UNDEFINED) if isinstance(compaction, dict) else UNDEFINED
    start = last + 1
    number = scan.ids.get(first_kept) if isinstance(first_kept, str) else None
    if number is not None:
        with contextlib.suppress(ValueError):
            start = branch.index(number, 0, last)
    kept = scan.decode_many(branch[start:last])
    later = scan.decode_many(branch[last + 1:])
    return [compaction, *kept, *later]


def capture_source(path: str, project_path: str, leaf_id: Any) -> SourceArchive:
    """Steps 15-21 on ``path`` at ``leaf_id`` (the host's active leaf, "default" for Pi's leaf on
    load, or the journal's)."""
    scan = scan_for_run(path)
    check_header(scan.header, project_path)
    check_scan(scan)
    if leaf_id == "default":
        leaf_id = scan.last_id
    if not isinstance(leaf_id, str) or not leaf_id:
        raise ContractViolation("source-empty", "the session has no leaf to rebase")
    scan.validate_branch(leaf_id)
    branch = scan.branch(leaf_id)
    if not branch or branch[-1] != scan.ids[leaf_id]:
        raise ContractViolation("source-leaf-unavailable", "Pi's branch does not end at the captured leaf")
    subset = scan.branch_subset(leaf_id)
    context = _context(scan, branch, subset)
    return SourceArchive(scan, leaf_id, branch, list(subset.values()), context)
