"""The session model of a file: one compact read that a rebase, lineage verification and ``session inspect`` share.

Read-only: the file is opened through :func:`reference.pi.exact.reader.open_session_file` and never
through anything that could migrate it.  One streaming pass (:func:`scan_source`) validates
every record the way contract §6.2 steps 17-18 look at it, hashes the whole file and keeps only
a compact id/parent/offset/type table (:mod:`reference.pi.model.entry_table`); only the records
a step needs are decoded again, by offset (docs/benchmarks.md, "Rebase").  Pi's own tree over the
model is :mod:`reference.pi.model.tree`.  A run hands its scans on as values (:mod:`reference.lineage.proof`).
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass, field
from typing import IO, Any, Final

from reference.pi.exact.context import context_layout
from reference.pi.exact.entries import has_entry_fields
from reference.pi.exact.reader import Record, RecordKind, decode_value, open_session_file
from reference.pi.exact.session import (
    HashingStream,
    accept_header,
    decode_path,
    iter_loaded_records,
    load_session,
    no_header,
    open_checked,
)
from reference.pi.exact.tree import SessionTree, walk_to_root
from reference.pi.leaf import DEFAULT_LEAF
from reference.pi.model.blocks import NotOrdinary, Row
from reference.pi.model.entry_ids import EntryIds
from reference.pi.model.entry_table import NO_ENTRY, ROOT, ScanTable, SpanEnds
from reference.pi.model.entry_types import EntryTypes
from reference.pi.model.exchanges import CompactExchanges
from reference.pi.model.split_read import ordinary_table
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonParseError
from reference.primitives.jsvalues import get, strict_equal
from reference.primitives.platform_ops.identity import stat_identity

_BRANCH_KINDS: Final = frozenset({"custom", "custom_message", "compaction"})
_LINK_KINDS: Final = ("custom", "custom_message")  # where checkpoint, link and handoff entries live


@dataclass
class SourceScan:
    """What one streaming read of a session file found, kept compact instead of one
    :class:`Record` per entry: the whole-file SHA-256, the header, whether steps 17-18 pass, and
    per entry its id, parent (as an entry number), type and byte span, in a few bytes each
    (docs/rebase.md, "Memory").

    Built by the same reader loop as :func:`reference.pi.exact.session.load_session` (the same refusals,
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
    ids: EntryIds  # entry id -> entry number (the last one, as Pi's index, when ids repeat)
    parents: array[int]  # entry number of the parent; ROOT for null, MISSING when unresolved
    empty_parents: set[int]  # entries whose parentId is "" (a root to Pi, a lookup to step 20)
    types: EntryTypes  # the entry type
    starts: array[int]
    ends: SpanEnds
    exchanges: CompactExchanges | None = None  # read with the entries by the block read, else None
    stamp: tuple[int, ...] | None = None  # stat_identity() when the scan began
    pi_entries: bool = False  # every entry line is a Pi entry (duplicate ids aside)
    assistants: array[int] = field(default_factory=lambda: array("i"))  # assistant message entries (block read)
    crlf_lines: int = 0  # lines whose last byte before the LF (or the end) is a CR
    unterminated_tail: bool = False  # the last line has no LF
    memo: dict[str, Any] = field(default_factory=dict)  # what later steps derived from it

    @property
    def valid(self) -> bool:
        """Steps 17-18 pass: every entry is a Pi entry with a unique string id, no bad line."""
        return not self.incomplete and self.invalid_line is None

    def decode(self, stream: IO[bytes], number: int) -> Any:
        try:
            return decode_value(_read_span(stream, self.starts[number], self.ends[number]))
        except JsonParseError as exc:  # the file changed under us
            raise ContractViolation(Code.SESSION_CHANGED, f"entry {number} no longer parses: {exc}") from None

    def decode_many(self, numbers: Iterable[int]) -> list[Any]:
        return list(self.decode_each(numbers))

    def decode_each(self, numbers: Iterable[int]) -> Iterator[Any]:
        """:meth:`decode_many` one entry at a time (nothing kept)."""
        with open_session_file(self.path) as stream:
            for number in numbers:
                yield self.decode(stream, number)

    def context_numbers(self, stream: IO[bytes], path: array[int]) -> list[int]:
        """Pi's ``buildContextEntries`` over ``path`` (entry numbers root -> leaf), as entry
        numbers: only a compaction's ``firstKeptEntryId`` is decoded (from ``stream``)."""
        ids: list[Any] = []  # the path's ids, written once a compaction asks for them

        def id_at(position: int) -> Any:
            if not ids:
                ids.extend(self.ids.ids_of(path))
            return ids[position]

        def locate(entry_id: Any, stop: int) -> int:
            if not ids:
                ids.extend(self.ids.ids_of(path))
            if entry_id.__class__ is not str:
                return next((i for i in range(stop) if strict_equal(ids[i], entry_id)), -1)
            try:
                return ids.index(entry_id, 0, stop)
            except ValueError:
                return -1

        types = self.types
        layout = context_layout(len(path), lambda i: types[path[i]], id_at,
                                lambda i: get(self.decode(stream, path[i]), "firstKeptEntryId"), locate)
        if layout is None:
            return list(path)
        kept = layout.kept
        return [path[layout.compaction], *path[kept.start:kept.stop], *path[layout.resume + 1:]]

    def ancestry(self, leaf: int) -> array[int]:
        """Entry numbers root -> leaf, walked as :meth:`SessionTree.ancestry` walks a valid scan
        (a falsy or missing parent ends the walk, a repeated entry too)."""
        return walk_to_root(leaf, self.parents, self.empty_parents)[0]

    def branch(self, leaf_id: Any) -> array[int]:
        """Pi's ``getBranch(leafId)`` on a valid scan: empty for a falsy or unknown leaf.  Walked
        once per leaf and scan (the array is shared: never change it)."""
        number = self.ids.get(leaf_id) if isinstance(leaf_id, str) and leaf_id else None
        if number is None:
            return array("i")
        key = f"branch:{leaf_id}"
        path: array[int] | None = self.memo.get(key)
        if path is None:
            path = self.memo[key] = self.ancestry(number)
        return path

    def marks(self, *paths: Iterable[int]) -> bytearray:
        """One byte per entry, 1 on the entries of ``paths``."""
        marks = bytearray(self.entry_count)
        for path in paths:
            for number in path:
                marks[number] = 1
        return marks

    def branch_marks(self, leaf_id: Any) -> bytearray:
        """One byte per entry, 1 on :meth:`branch` (shared: never change it)."""
        key = f"branch-marks:{leaf_id}"
        marks: bytearray | None = self.memo.get(key) if isinstance(leaf_id, str) else None
        if marks is None:
            marks = self.marks(self.branch(leaf_id))
            if isinstance(leaf_id, str):
                self.memo[key] = marks
        return marks

    def branch_subset(self, leaf_id: Any, custom_types: frozenset[str] | None = None) -> dict[int, Any]:
        """The decoded ``compaction`` entries of :meth:`branch` and its ``custom`` and
        ``custom_message`` entries (only those whose ``customType`` is one of ``custom_types``,
        when given: what the capture and each lineage step look at) by entry number, root ->
        leaf; decoded once per leaf and scan (shared: never change them)."""
        key = f"branch-subset:{leaf_id}:{sorted(custom_types) if custom_types is not None else ''}"
        subset: dict[int, Any] | None = self.memo.get(key) if isinstance(leaf_id, str) else None
        if subset is None:
            wanted = [n for n in self.branch(leaf_id) if self.types[n] in _BRANCH_KINDS]
            subset = {number: value for number, value in zip(wanted, self.decode_each(wanted), strict=True)
                      if custom_types is None or self.types[number] == "compaction"
                      or get(value, "customType") in custom_types}
            if isinstance(leaf_id, str):
                self.memo[key] = subset
        return subset

    def custom_entries(self) -> Iterator[Any]:
        """Every ``custom`` entry decoded, in file order, one at a time (pin and memory
        mutations live there)."""
        return self.decode_each(self.types.numbers_of("custom"))

    def branch_customs(self, leaf_id: Any, custom_types: frozenset[str] | None = None) -> list[Any]:
        """The decoded ``custom`` and ``custom_message`` entries of :meth:`branch` (of
        ``custom_types`` only, when given): where a checkpoint, link and handoff live."""
        return [value for number, value in self.branch_subset(leaf_id, custom_types).items()
                if self.types[number] in _LINK_KINDS]

    def validate_branch(self, leaf_id: str) -> None:
        """Step 20 on a valid scan (every entry a Pi entry), as :func:`validate_branch` does it: the
        walk of :func:`reference.pi.exact.tree.walk_to_root` without Pi's roots (a ``""`` parent is
        looked up like any other id: on a valid scan its parent number is that entry's) must end at
        a null parent.  A leaf that passed once passes again without a walk (the scan never changes)."""
        key = f"valid-branch:{leaf_id}"
        if key in self.memo:
            return
        leaf = self.ids.get(leaf_id)
        path, cycle = walk_to_root(leaf, self.parents) if leaf is not None else (array("i"), True)
        if cycle or self.parents[path[0]] != ROOT:
            raise ContractViolation(Code.ARCHIVE_BRANCH_INVALID, "the leaf's ancestry is broken or cyclic")
        self.memo[key] = True


class BranchIds(Set[str]):
    """The ids of a branch of a scan, answered from the scan (no set of a million strings)."""

    def __init__(self, scan: SourceScan, leaf_id: Any) -> None:
        self._scan = scan
        self._leaf_id = leaf_id

    def __contains__(self, entry_id: object) -> bool:
        number = self._scan.ids.get(entry_id)
        return number is not None and bool(self._scan.branch_marks(self._leaf_id)[number])

    def __iter__(self) -> Iterator[str]:
        marks = self._scan.branch_marks(self._leaf_id)
        return (entry_id for entry_id, number in self._scan.ids.items() if marks[number])

    def __len__(self) -> int:
        return len(self._scan.branch(self._leaf_id))


def _exact_table(stream: HashingStream, path: str) -> tuple[ScanTable, Record | None]:
    """The table from the exact reader: every kind of line classified as Pi does."""
    table = ScanTable()
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


def _read_span(raw: IO[bytes], start: int, end: int) -> bytes:
    raw.seek(start)
    data = raw.read(end - start)
    return data[:-1] if data.endswith(b"\n") else data


def scan_source(path: str, *, ordinary_only: bool = False) -> SourceScan:
    """Read ``path`` once, read-only, with the refusals of :func:`reference.pi.exact.session.load_session`
    and the facts of steps 17-18, keeping a compact table of the entries.

    An ordinary file (what Pi writes) is read by blocks (:mod:`reference.pi.model.blocks`); any other
    file is read again, from the start, by the exact reader, or with ``ordinary_only`` refused
    (:class:`NotOrdinary`: the caller reads it its own exact way)."""
    path = os.fspath(path)
    with open_checked(path) as raw:
        stamp = stat_identity(os.fstat(raw.fileno()))
        stream = HashingStream(raw)
        try:
            table, first = ordinary_table(stream, path)
            span: tuple[int, int] | None = (first.start, first.end)
        except NotOrdinary:
            if ordinary_only:
                raise
            raw.seek(0)
            stream = HashingStream(raw)
            table, record = _exact_table(stream, path)
            span = (record.start, record.end) if record is not None else None
        header_value = decode_value(_read_span(raw, *span)) if span is not None else None
        if span is not None and isinstance(header_value, dict):
            table.resolve(raw)
    if span is None or not isinstance(header_value, dict):
        raise no_header(path)
    scan = SourceScan(
        path=path, size=stream.size, sha256=stream.digest.hexdigest(), header=header_value,
        entry_count=len(table.types), extra_headers=table.extra_headers, incomplete=table.incomplete,
        invalid_line=table.invalid_line, last_id=None if table.last_id is NO_ENTRY else table.last_id,
        ids=table.ids, parents=table.parents,
        empty_parents=table.empty_parents, types=table.types, starts=table.starts, ends=SpanEnds(table.starts, table.lengths),
        exchanges=table.exchanges, stamp=stamp, pi_entries=table.first_invalid_line is None,
        assistants=table.assistants, crlf_lines=stream.crlf_lines, unterminated_tail=stream.unterminated_tail,
    )
    return scan


def branch_customs(session_file: str, leaf: Any, custom_types: frozenset[str] | None = None,
                   scan: SourceScan | None = None) -> list[Any]:
    """The ``custom`` and ``custom_message`` entries on the active branch at ``leaf`` (DEFAULT_LEAF:
    Pi's leaf on load): all that lineage verification looks at in the current session.  From
    the compact scan (``scan``, the caller's of this file, or a new one) when the file is a
    valid one (of ``custom_types`` only, when given), else from the exact reader's tree."""
    if scan is None:
        scan = scan_source(session_file)
    if scan.valid:
        leaf_id = scan.last_id if leaf is DEFAULT_LEAF else leaf
        return scan.branch_customs(leaf_id, custom_types)
    session = load_session(session_file)
    tree = session.tree()
    leaf_id = tree.default_leaf_id if leaf is DEFAULT_LEAF else leaf
    return decode_path(session, [r for r in tree.branch(leaf_id).path if r.type in _LINK_KINDS])


def validate_branch(tree: SessionTree, leaf_id: str) -> None:
    """Step 20: from the leaf, ``parentId`` links reach a root through valid entries, no cycle."""
    seen: set[str] = set()
    current: Any = leaf_id
    while current is not None:
        record = tree.by_id.get(current) if isinstance(current, str) else None
        if (record is None or not record.is_object
                or not has_entry_fields(record.type, record.id, record.parent_id, record.timestamped) or current in seen):
            raise ContractViolation(Code.ARCHIVE_BRANCH_INVALID, "the leaf's ancestry is broken or cyclic")
        seen.add(current)
        current = record.parent_id

