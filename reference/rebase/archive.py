"""The source archive a rebase starts from: one read of the source, checked the way contract §6.2
steps 15-21 and §6.3 require; the prefix check that every later step repeats (step 24, §6.9) is
:func:`reference.lineage.proof.prove_prefix`.

Read-only: the source is read by the compact scan of :mod:`reference.pi.model.session`, never through
anything that could migrate it, so a version 1 or 2 file is refused before any other check
looks at it (``unsupported-source-version``).
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from reference.artifacts.checkpoint import LINEAGE_CUSTOM_TYPES
from reference.lineage.proof import scan_once
from reference.pi.exact.context import UnbuildableContext
from reference.pi.exact.header import require_current_version, same_project
from reference.pi.exact.reader import open_session_file
from reference.pi.leaf import DEFAULT_LEAF
from reference.pi.model.blocks import NotOrdinary, line_fields
from reference.pi.model.exchanges import CompactExchanges
from reference.pi.model.session import BranchIds, SourceScan
from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import JsonParseError

# ----------------------------------------------------------------------------------------------
# checks


def check_header(header: dict[str, Any], project_path: str) -> None:
    """Steps 15-16: version 3 before anything else is looked at, then the project."""
    require_current_version(header.get("version"))
    if not same_project(header.get("cwd"), project_path):
        raise ContractViolation(Code.SOURCE_SCOPE_MISMATCH, "the session header cwd is not this project")



def check_scan(scan: SourceScan) -> None:
    """Steps 17-18 on the scan: a malformed, oversize or unterminated line, then the first line
    that is not a Pi entry with a unique id."""
    if scan.incomplete:
        raise ContractViolation(Code.ARCHIVE_INCOMPLETE,
                                "the source has a malformed, oversize or unterminated line; it is reported, never repaired")
    if scan.invalid_line is not None:
        raise ContractViolation(Code.ARCHIVE_INVALID_IDS, f"line {scan.invalid_line} is not a Pi entry with a unique id")



# ----------------------------------------------------------------------------------------------
# tool exchanges over a whole branch (contract §6.4), without keeping the branch decoded


def exchange_issues_of(scan: SourceScan, numbers: Iterable[int]) -> Iterator[str]:
    """The elements of ``exchange_issues(context_messages(entries))`` for the entries ``numbers``
    of a scan, one at a time: from the exchanges the block read kept, else by reading only their
    ``message`` lines (the same typed fields, the plain decode where that read refuses a line).
    Raises :class:`UnbuildableContext` at once, as the plain form does for a message entry
    without a message."""
    marks = scan.marks(numbers)
    if scan.exchanges is not None:
        return scan.exchanges.each_issue(marks)
    exchanges = CompactExchanges()
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
                raise ContractViolation(Code.SESSION_CHANGED, f"entry {number} no longer parses: {exc}") from None
            exchanges.add([(number, fields.message)])
            if exchanges.messageless:
                raise UnbuildableContext("a message entry has no message")
    return exchanges.each_issue(marks)


# ----------------------------------------------------------------------------------------------
# the archive


@dataclass
class SourceArchive:
    """A complete canonical source (§6.3) captured at one leaf."""

    scan: SourceScan
    leaf_id: str
    branch_numbers: array[int]  # entry numbers root -> leaf
    branch_subset: list[Any]  # the decoded custom, custom_message and compaction entries of the branch
    context: list[Any]  # Pi's compaction-aware context entries at the leaf

    @property
    def session_id(self) -> str:
        return str(self.scan.header["id"])

    @property
    def record_count(self) -> int:
        """Parsed records, header included (upstream ``archive.records.length``)."""
        return self.scan.entry_count + 1 + self.scan.extra_headers

    def branch_ids(self) -> Collection[str]:
        return BranchIds(self.scan, self.leaf_id)

    def historical_issue_count(self, active: Collection[str]) -> int:
        """The branch's tool-exchange issues not in ``active``, counted without holding them."""
        return sum(1 for issue in exchange_issues_of(self.scan, self.branch_numbers) if issue not in active)


def capture_source(path: str, project_path: str, leaf_id: Any, scans: Sequence[SourceScan] = ()) -> SourceArchive:
    """Steps 15-21 on ``path`` at ``leaf_id`` (the host's active leaf, DEFAULT_LEAF for Pi's leaf on
    load, or the journal's).  A scan of ``scans`` is taken while its file is unchanged (the
    runtime layer read the source for §6.2 step 2); step 24 hashes the file again against it."""
    scan = scan_once(path, scans)
    check_header(scan.header, project_path)
    check_scan(scan)
    if leaf_id is DEFAULT_LEAF:
        leaf_id = scan.last_id
    if not isinstance(leaf_id, str) or not leaf_id:
        raise ContractViolation(Code.SOURCE_EMPTY, "the session has no leaf to rebase")
    scan.validate_branch(leaf_id)
    branch = scan.branch(leaf_id)
    if not branch or branch[-1] != scan.ids[leaf_id]:
        raise ContractViolation(Code.SOURCE_LEAF_UNAVAILABLE, "Pi's branch does not end at the captured leaf")
    subset = scan.branch_subset(leaf_id, LINEAGE_CUSTOM_TYPES)
    with open_session_file(scan.path) as stream:
        context = scan.decode_many(scan.context_numbers(stream, branch))
    return SourceArchive(scan, leaf_id, branch, list(subset.values()), context)
