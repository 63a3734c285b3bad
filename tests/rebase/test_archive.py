"""The block read of ordinary session files (``reference.pi.model.blocks``) gives exactly the exact
reader's scan, for any file: generated lines mix what Pi writes with what it never does.  The
tool-exchange facts it reads on the way give the plain analysis of every branch through the
archive's exchange read (``reference.rebase.archive.exchange_issues_of``; contract §6.4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples
from testkit.scanlines import HEADER, entry

from reference.pi.exact.context import UnbuildableContext, context_entries, entry_to_messages
from reference.pi.exact.toolexchange import exchange_issues
from reference.pi.model import session as scan_module
from reference.pi.model.blocks import NotOrdinary
from reference.pi.model.session import SourceScan, scan_source
from reference.primitives.errors import ContractViolation
from reference.rebase.archive import capture_source, exchange_issues_of

ODD_LINES = [
    b"", b"   ", b"null", b"[1,2]", b"{", b'"text"', b"0",
    b'{"type":"message","id":"x1","parentId":null}',  # no timestamp
    b'{"type":"session","version":3,"id":"again","timestamp":"t","cwd":"/p"}',  # a later header
    b'{"a":[{}', b'{}]},{"c":1}',  # two halves that would pair up inside one JSON array
    b'{"type":"message","id":"sur","parentId":null,"timestamp":"t","message":{"content":"\\ud800"}}',
    b'{"type":"message","id":"crlf","parentId":null,"timestamp":"t"}\r',
    b'{"type":"message","id":"dup","parentId":null,"timestamp":"t"}',
    b'{"type":"message","id":"dup","parentId":null,"timestamp":"t"}',
    b'{"type":7,"id":"num","parentId":null,"timestamp":"t"}',
    b'{"type":"message","id":"e","parentId":"","timestamp":"t"}',
    b'\xff\xfe{"type":"message"}',
]


# message parts: what Pi writes (tool calls, results) and shapes the typed read refuses or skips
MESSAGES: list[Any] = [
    {"role": "user", "content": "hi"},
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "toolCall", "id": "c1", "name": "read"}]},
    {"role": "assistant", "content": [{"type": "toolCall", "id": "c2"}, {"type": "toolCall", "id": "c3"}]},
    {"role": "assistant", "content": [{"type": "toolCall", "id": "c1"}, {"type": "toolCall"}]},
    {"role": "assistant", "content": [{"type": "toolCall", "id": 7}, {"type": "toolCall", "id": None}]},
    {"role": "assistant", "content": [{"type": "toolCall", "id": {"a": [1]}}, "toolCall", 3, None]},
    {"role": "assistant", "content": "toolCall"},
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": {"type": "toolCall", "id": "c9"}},
    {"role": "assistant", "content": [{"type": "toolCall", "id": "c4\ud800"}]},
    {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "ok"}]},
    {"role": "toolResult", "toolCallId": "c2", "content": [{"type": "text", "text": "\udc00 lone"}]},
    {"role": "toolResult", "toolCallId": "c3"},
    {"role": "toolResult", "toolCallId": 7},
    {"role": "toolResult"},
    {"role": "toolResult", "toolCallId": "c5", "content": [1, "two"]},
    {"role": 5, "content": [{"type": "toolCall", "id": "c6"}]},
    None, "text", 12, [{"role": "toolResult", "toolCallId": "c1"}],
]
ABSENT = object()  # a message entry without a "message" member


def message_entry(entry_id: str, parent: str | None, message: Any) -> bytes:
    value: dict[str, Any] = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z"}
    if message is not ABSENT:
        value["message"] = message
    return json.dumps(value, separators=(",", ":")).encode()  # a lone surrogate is written escaped


def fields(scan: SourceScan) -> dict[str, Any]:
    return {
        "size": scan.size, "sha256": scan.sha256, "header": scan.header, "entries": scan.entry_count,
        "extra": scan.extra_headers, "incomplete": scan.incomplete, "invalid": scan.invalid_line,
        "last": scan.last_id, "ids": dict(scan.ids.items()), "parents": list(scan.parents), "empty": scan.empty_parents,
        "types": list(scan.types), "starts": list(scan.starts), "ends": list(scan.ends),
    }


def exact_scan(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | str:
    with monkeypatch.context() as patch:
        def refuse(stream: Any, path: str) -> Any:
            raise NotOrdinary

        patch.setattr(scan_module, "ordinary_table", refuse)
        return outcome(path)


def outcome(path: Path) -> dict[str, Any] | str:
    try:
        return fields(scan_source(str(path)))
    except ContractViolation as exc:
        return exc.code


@st.composite
def session_files(draw: st.DrawFn) -> bytes:
    count = draw(st.integers(0, 40))
    lines = [HEADER] if draw(st.booleans()) or count == 0 else []
    for number in range(count):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(ODD_LINES)))
        else:
            parent = draw(st.sampled_from([None, f"e{number - 1}", f"e{number + 1}", "missing"]))
            lines.append(entry(f"e{number}", parent))
    body = b"\n".join(lines)
    return body + (b"\n" if draw(st.booleans()) else b"")


def issues_outcome(compute: Any) -> Any:
    try:
        return sorted(compute())
    except UnbuildableContext:
        return "unbuildable"


def plain_issues(scan: SourceScan, numbers: Any) -> Any:
    """``exchange_issues`` of the decoded entries' messages: the analysis itself."""
    entries = scan.decode_many(numbers)
    return issues_outcome(lambda: exchange_issues([m for e in entries for m in entry_to_messages(e)]))


def branch_issues(scan: SourceScan) -> dict[Any, Any]:
    """The issues of every entry's branch and of the whole file, from the scan's own read."""
    found: dict[Any, Any] = {"all": issues_outcome(lambda: exchange_issues_of(scan, range(scan.entry_count)))}
    for leaf in range(scan.entry_count):
        found[leaf] = issues_outcome(lambda leaf=leaf: exchange_issues_of(scan, scan.ancestry(leaf)))
    return found


def exact_branch_issues(path: Path) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """The branch issues of the exact reader's scan (read from the lines), and the plain ones."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan_module, "ordinary_table", lambda stream, path: (_ for _ in ()).throw(NotOrdinary()))
        scan = scan_source(str(path))
    assert scan.exchanges is None
    plain: dict[Any, Any] = {"all": plain_issues(scan, range(scan.entry_count))}
    for leaf in range(scan.entry_count):
        plain[leaf] = plain_issues(scan, scan.ancestry(leaf))
    return branch_issues(scan), plain


@st.composite
def exchange_files(draw: st.DrawFn) -> bytes:
    """Files Pi could write (so the block read keeps them) with messages of every shape."""
    count = draw(st.integers(1, 30))
    lines = [HEADER]
    for number in range(count):
        parent = draw(st.sampled_from([None, *(f"e{n}" for n in range(max(0, number - 3), number))]))
        if draw(st.integers(0, 3)) == 0:
            lines.append(entry(f"e{number}", parent, type=draw(st.sampled_from(["custom", "compaction", "label"]))))
        else:
            message = draw(st.sampled_from([*MESSAGES, ABSENT]))
            lines.append(message_entry(f"e{number}", parent, message))
    return b"\n".join(lines) + b"\n"


@examples(deep=200, ci=200, deadline=None)
@given(data=exchange_files())
def test_the_exchanges_of_the_block_read_equal_the_plain_analysis(tmp_path_factory: pytest.TempPathFactory,
                                                                   data: bytes) -> None:
    path = tmp_path_factory.mktemp("exchanges") / "s.jsonl"
    path.write_bytes(data)
    scan = scan_source(str(path))
    assert scan.exchanges is not None  # read by blocks
    from_lines, plain = exact_branch_issues(path)
    assert branch_issues(scan) == from_lines == plain


@examples(deep=300, ci=230, deadline=None)
@given(data=session_files())
def test_the_block_read_equals_the_exact_reader(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("scan") / "s.jsonl"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        assert outcome(path) == exact_scan(path, patch)
    try:
        scan = scan_source(str(path))
    except ContractViolation:
        return
    from_lines, plain = exact_branch_issues(path)
    assert branch_issues(scan) == from_lines == plain


def test_a_block_with_a_lone_surrogate_keeps_the_exchanges(tmp_path: Path) -> None:
    lines = [HEADER, message_entry("a", None, MESSAGES[3]), message_entry("b", "a", MESSAGES[12]),
             message_entry("c", "b", MESSAGES[10]), message_entry("d", "c", ABSENT)]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    scan = scan_source(str(path))
    assert scan.exchanges is not None
    assert sorted(exchange_issues_of(scan, scan.ancestry(2))) == ["missing-result:c3", "missing-result:c4\ud800"]
    with pytest.raises(UnbuildableContext):
        exchange_issues_of(scan, scan.ancestry(3))


@st.composite
def compacted_files(draw: st.DrawFn) -> bytes:
    """A chain Pi could write with compactions whose ``firstKeptEntryId`` is on the branch, off it,
    unknown, of another type or absent, some sharing no id with the entries before them."""
    count = draw(st.integers(1, 25))
    lines = [HEADER]
    for number in range(count):
        parent = f"e{number - 1}" if number else None
        if draw(st.integers(0, 3)):
            lines.append(entry(f"e{number}", parent))
            continue
        kept = draw(st.sampled_from([f"e{max(0, number - 3)}", f"e{number + 2}", "gone", 7, None, ABSENT]))
        extra = {} if kept is ABSENT else {"firstKeptEntryId": kept}
        lines.append(entry(f"e{number}", parent, type="compaction", summary="s", **extra))
    return b"\n".join(lines) + b"\n"


@examples(deep=200, ci=100, deadline=None)
@given(data=compacted_files(), leaf=st.integers(0, 24))
def test_the_captured_context_is_pis_context_of_the_branch(tmp_path_factory: pytest.TempPathFactory, data: bytes,
                                                           leaf: int) -> None:
    path = tmp_path_factory.mktemp("context") / "s.jsonl"
    path.write_bytes(data)
    scan = scan_source(str(path))
    leaf_id = scan.ids.id_of(min(leaf, scan.entry_count - 1))
    archive = capture_source(str(path), "/p", leaf_id, [scan])
    assert archive.context == context_entries(scan.decode_many(scan.branch(leaf_id)))
