"""The compact structures of a rebase's scan (docs/rebase.md, "Memory") against the plain forms they
replace: the ids against a ``dict`` (the last entry wins), the types against a list, the tool
exchanges against :func:`reference.pi.exact.toolexchange.exchange_issues`, the int32 walks against
:func:`reference.pi.exact.tree.walk_to_root`, and the whole scan against a plain read of the same lines
(ids of Pi's 8-hex shape, other shapes, upper-case hex, 7 or 9 hex digits, repeated ids, missing
parents, cycles), by blocks and by the exact reader."""

from __future__ import annotations

import json
import os
import random
import signal
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.plain_scan import compact_facts, plain_ids, plain_scan
from testkit.profiles import examples
from testkit.scanlines import HEADER

from reference.fixturegen.generator import generate
from reference.fixturegen.options import GenOptions
from reference.pi.exact.context import UnbuildableContext
from reference.pi.exact.session import load_session
from reference.pi.exact.toolexchange import exchange_issues
from reference.pi.exact.tree import walk_to_root
from reference.pi.model import entry_table as scan_table
from reference.pi.model import exchanges as compact_exchanges
from reference.pi.model import session as scan_module
from reference.pi.model import split_read
from reference.pi.model.blocks import ContentBlock, Message, NotOrdinary
from reference.pi.model.entry_ids import EntryIds, is_pi_id
from reference.pi.model.entry_types import EntryTypes
from reference.pi.model.exchanges import CompactExchanges
from reference.pi.model.session import SourceScan, scan_source, validate_branch
from reference.primitives.errors import ContractViolation

ROOT, MISSING = scan_table.ROOT, scan_table.MISSING
PI_IDS = ["0000abcd", "ffffffff", "12345678", "00000000", "9abcdef0", "deadbeef"]
OTHER_IDS = ["ABCDEF12", "Deadbeef", "abcdef1", "abcdef123", "e1", "", "0x12ab34", " 1234567", "1234_678",
             "１２３４５６７８", "abcdefg1"]
ANY_IDS = st.one_of(st.sampled_from(PI_IDS), st.sampled_from(OTHER_IDS),
                    st.integers(0, 2**32 - 1).map(lambda value: f"{value:08x}"), st.none(), st.integers(0, 9))


# ----------------------------------------------------------------------------------------------
# the ids


def compact_ids(ids: list[Any], blocks: list[int]) -> EntryIds:
    """The ids added as the scan adds them: runs of strings by :meth:`EntryIds.extend`."""
    table = EntryIds()
    at = 0
    for size in [*blocks, len(ids)]:
        chunk = ids[at : at + size]
        if all(isinstance(entry_id, str) for entry_id in chunk) and chunk:
            table.extend(chunk)
        else:
            for entry_id in chunk:
                table.append(entry_id)
        at += len(chunk)
    table.freeze()
    return table


@examples(deep=300, ci=300, deadline=None)
@given(ids=st.lists(ANY_IDS, max_size=80), blocks=st.lists(st.integers(1, 9), max_size=8))
def test_entry_ids_answer_as_the_plain_dict(ids: list[Any], blocks: list[int]) -> None:
    table = compact_ids(ids, blocks)
    mapping, first_repeat = plain_ids(ids)
    assert dict(table.items()) == mapping and list(dict(table.items())) == list(mapping)  # the same order too
    assert table.first_repeat == first_repeat
    assert [table.id_of(number) for number in range(len(ids))] == ids
    assert table.ids_of(range(len(ids) - 1, -1, -1)) == ids[::-1]
    for probe in [*PI_IDS, *OTHER_IDS, *ids, None, 5, "00000001"]:
        assert table.get(probe, MISSING) == (mapping.get(probe, MISSING) if isinstance(probe, str) else MISSING)
        assert (probe in table) == (isinstance(probe, str) and probe in mapping)
    with pytest.raises(TypeError):
        table.get(["unhashable"])


def test_entry_ids_of_a_million_random_pi_ids() -> None:
    rng = random.Random(13)
    ids = [f"{rng.getrandbits(32):08x}" for _ in range(200_000)]
    table = compact_ids(ids, [512] * 400)
    mapping, first_repeat = plain_ids(ids)
    assert table.first_repeat == first_repeat
    assert all(table.get(entry_id) == number for entry_id, number in mapping.items())
    assert table.get("ABCDEF12") is None and table.get("abcdef1") is None


@pytest.mark.parametrize("value", ["0123abcd", "ABCDEF12", "abcdef1", "abcdef123", "0x12ab34", "+1234567", 12, None])
def test_is_pi_id(value: Any) -> None:
    expected = isinstance(value, str) and len(value) == 8 and all(c in "0123456789abcdef" for c in value)
    assert is_pi_id(value) is expected


# ----------------------------------------------------------------------------------------------
# the types


@examples(deep=200, ci=200, deadline=None)
@given(kinds=st.lists(st.one_of(st.sampled_from(["message", "custom", "compaction", "label", "session"]),
                                st.integers(0, 3), st.none(), st.text(max_size=3)), max_size=60))
def test_entry_types_answer_as_the_plain_list(kinds: list[Any]) -> None:
    types = EntryTypes()
    at = 0
    while at < len(kinds):
        chunk = kinds[at : at + 7]
        if all(isinstance(kind, str) for kind in chunk):
            types.extend(chunk)
        else:
            for kind in chunk:
                types.append(kind)
        at += 7
    assert len(types) == len(kinds) and list(types) == kinds
    assert [types[number] for number in range(len(kinds))] == kinds
    for kind in ("message", "custom", "x", ""):
        assert list(types.numbers_of(kind)) == [n for n, value in enumerate(kinds) if value == kind]


def test_entry_types_past_255_distinct_types() -> None:
    kinds = [f"t{number}" for number in range(300)] * 2
    types = EntryTypes()
    types.extend(kinds)
    assert list(types) == kinds
    assert list(types.numbers_of("t299")) == [299, 599]


# ----------------------------------------------------------------------------------------------
# the tool exchanges

KEYS = ["c1", "c2", "c3", "c4\ud800", "toolu_01Be0pm5OIzuLf7sUoUztI3u", 7, None, {"a": [1]}, msgspec.UNSET]


@st.composite
def typed_messages(draw: st.DrawFn) -> list[tuple[int, Any]]:
    messages: list[tuple[int, Any]] = []
    for number in range(draw(st.integers(0, 60))):
        kind = draw(st.integers(0, 4))
        if kind == 0:
            blocks = [ContentBlock(draw(st.sampled_from(["toolCall", "text"])), draw(st.sampled_from(KEYS)))
                      for _ in range(draw(st.integers(0, 3)))]
            messages.append((number, Message("assistant", blocks)))
        elif kind in (1, 2):
            messages.append((number, Message("toolResult", msgspec.UNSET, draw(st.sampled_from(KEYS)))))
        elif kind == 3:
            messages.append((number, Message("user", "hi")))
        elif draw(st.integers(0, 5)) == 0:
            messages.append((number, draw(st.sampled_from([None, msgspec.UNSET]))))
    return messages


def issues_of(exchanges: Any, marks: bytearray) -> Any:
    try:
        return sorted(exchanges.issues(marks))
    except UnbuildableContext:
        return "unbuildable"


class ExactExchanges:
    """The oracle: ``exchange_issues`` of the marked messages as plain values (the exact analysis)."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, Any]] = []

    def add(self, messages: list[tuple[int, Any]]) -> None:
        self.messages += messages

    def issues(self, marks: bytearray) -> set[str]:
        marked = [message for number, message in self.messages if marks[number]]
        if any(message is None or message is msgspec.UNSET for message in marked):
            raise UnbuildableContext("a message entry has no message")
        return exchange_issues([msgspec.to_builtins(message) for message in marked])


@examples(deep=200, ci=200, deadline=None)
@given(messages=typed_messages(), recent=st.integers(1, 4), seed=st.integers(0, 2**16), split=st.integers(1, 9))
def test_compact_exchanges_answer_as_the_plain_exchanges(messages: list[tuple[int, Any]], recent: int, seed: int,
                                                        split: int) -> None:
    plain = ExactExchanges()
    plain.add(messages)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compact_exchanges, "_RECENT_CALLS", recent)  # results that keep their own key too
        compact = CompactExchanges()
        for at in range(0, len(messages), split):
            compact.add(messages[at : at + split])
    rng = random.Random(seed)
    count = 61  # every entry number typed_messages draws
    for marks in (bytearray([1]) * count, bytearray(rng.randint(0, 1) for _ in range(count)), bytearray(count)):
        assert issues_of(compact, marks) == issues_of(plain, marks)
        if issues_of(plain, marks) != "unbuildable":
            each = list(compact.each_issue(marks))
            assert len(each) == len(set(each))


def test_compact_exchanges_with_a_key_repeated_far_apart() -> None:
    calls = [(number, Message("assistant", [ContentBlock("toolCall", f"k{number % 300}")])) for number in range(600)]
    results = [(600 + number, Message("toolResult", msgspec.UNSET, f"k{number}")) for number in range(0, 300, 7)]
    plain, compact = ExactExchanges(), CompactExchanges()
    plain.add(calls + results)
    compact.add(calls + results)
    for marks in (bytearray([1]) * 900, bytearray([1]) * 300 + bytearray(300) + bytearray([1]) * 300):
        assert compact.issues(marks) == plain.issues(marks)


# ----------------------------------------------------------------------------------------------
# the walks


@examples(deep=300, ci=300, deadline=None)
@given(parents=st.lists(st.integers(-2, 30), min_size=1, max_size=30), data=st.data())
def test_the_int32_walks_walk_as_walk_to_root(parents: list[int], data: st.DataObject) -> None:
    parents = [parent if parent < len(parents) else -2 for parent in parents]
    leaf = data.draw(st.integers(0, len(parents) - 1))
    roots = set(data.draw(st.lists(st.integers(0, len(parents) - 1), max_size=3)))
    path, cycle = walk_to_root(leaf, parents, roots)
    assert path.typecode == "i" and path[-1] == leaf and cycle in (True, False)
    assert all(number in range(len(parents)) for number in path)


@examples(deep=300, ci=200, deadline=None)
@given(parents=st.lists(st.sampled_from([None, "", "gone", *(f"e{n}" for n in range(12))]), min_size=1, max_size=12),
       empty_id=st.booleans())
def test_the_scans_step_20_walk_is_the_exact_trees(tmp_path_factory: pytest.TempPathFactory, parents: list[Any],
                                                   empty_id: bool) -> None:
    """Step 20 on a valid scan (unique ids; parents null, "", unknown, later or earlier)
    refuses exactly the leaves the exact tree's walk refuses."""
    ids = [f"e{number}" for number in range(len(parents))]
    if empty_id:
        ids[-1] = ""
    path = tmp_path_factory.mktemp("walk") / "s.jsonl"
    path.write_bytes(b"\n".join([HEADER, *map(line, ids, parents)]) + b"\n")
    scan, tree = scan_source(str(path)), load_session(path).tree()
    assert scan.valid
    for entry_id in [*ids, "gone"]:
        outcomes = []
        for validate in (scan.validate_branch, lambda leaf: validate_branch(tree, leaf)):
            try:
                validate(entry_id)
                outcomes.append("valid")
            except ContractViolation as exc:
                outcomes.append(exc.code)
        assert outcomes[0] == outcomes[1], entry_id


# ----------------------------------------------------------------------------------------------
# the whole scan against a plain read of the same lines


def line(entry_id: Any, parent: Any, kind: Any = "message", **extra: Any) -> bytes:
    value = {"type": kind, "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z", **extra}
    return json.dumps(value, separators=(",", ":")).encode()


@st.composite
def hex_session_files(draw: st.DrawFn) -> bytes:
    pool = draw(st.lists(st.one_of(st.sampled_from(PI_IDS), st.sampled_from(OTHER_IDS)), min_size=1, max_size=12))
    lines = [HEADER]
    previous: Any = None
    for _ in range(draw(st.integers(0, 40))):
        entry_id = draw(st.sampled_from(pool))
        parent = draw(st.sampled_from([previous, previous, None, "", "77777777", *pool]))
        choice = draw(st.integers(0, 12))
        if choice == 0:
            lines.append(line(entry_id, parent, kind=7))
        elif choice == 1:
            lines.append(b'{"type":"message","id":"x1","parentId":null}')  # no timestamp
        elif choice == 2:
            lines.append(HEADER)  # a later header
        else:
            lines.append(line(entry_id, parent, kind=draw(st.sampled_from(["message", "custom", "compaction"]))))
        previous = entry_id
    body = b"\n".join(lines)
    return body + (b"\n" if draw(st.booleans()) else b"")


def exact_only(path: Path) -> SourceScan:
    with pytest.MonkeyPatch.context() as patch:
        def refuse(stream: Any, path: str) -> Any:
            raise NotOrdinary

        patch.setattr(scan_module, "ordinary_table", refuse)
        return scan_source(str(path))


def in_two_halves(path: Path) -> SourceScan:
    """The scan with the block read split in two halves, the second read by a forked copy."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(split_read, "READ_IN_HALVES_BYTES", 1)
        return scan_source(str(path))



def test_a_forked_half_is_reaped_when_the_first_half_is_not_ordinary(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A first half that is not ordinary (a blank line) hands the file to the exact reader; the
    copy already reading the second half is reaped, not left blocked on a pipe nobody reads."""
    lines = [HEADER, b"", *(line(f"{number:08x}", f"{number - 1:08x}" if number else None) for number in range(4000))]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    started: list[int] = []
    fork_bytes = split_read.fork_bytes

    def recorded(make: Any) -> Any:
        forked = fork_bytes(make)
        if forked is not None:
            started.append(forked.pid)
        return forked

    monkeypatch.setattr(split_read, "READ_IN_HALVES_BYTES", 1)
    monkeypatch.setattr(split_read, "fork_bytes", recorded)
    scan = scan_source(str(path))
    assert compact_facts(scan) == plain_scan(path)
    assert started, "the second half was read by a forked copy"
    for pid in started:
        try:
            waited = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue  # reaped by the scan, as it should be
        if waited == (0, 0):  # still running (blocked on the pipe): do not leave it behind
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        pytest.fail(f"the forked copy {pid} was left unreaped ({waited})")

@examples(deep=150, ci=150, deadline=None)
@given(data=hex_session_files())
def test_the_compact_scan_equals_a_plain_read(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("hexscan") / "s.jsonl"
    path.write_bytes(data)
    try:
        scan = scan_source(str(path))
    except ContractViolation:
        return
    expected = plain_scan(path)
    assert compact_facts(scan) == expected
    assert compact_facts(exact_only(path)) == expected
    try:
        halves = in_two_halves(path)
    except ContractViolation:
        return
    assert compact_facts(halves) == expected


def test_a_cycle_and_a_missing_parent_in_pi_ids(tmp_path: Path) -> None:
    lines = [HEADER, line("0000000a", "0000000c"), line("0000000b", "0000000a"), line("0000000c", "0000000b"),
             line("0000000d", "0000abcd"), line("0000000e", "0000000d")]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    scan = scan_source(str(path))
    assert scan.valid and list(scan.parents) == [2, 0, 1, MISSING, 3]
    with pytest.raises(ContractViolation):
        scan.validate_branch("0000000c")
    with pytest.raises(ContractViolation):
        scan.validate_branch("0000000e")
    assert list(scan.branch("0000000e")) == [3, 4]


@pytest.mark.parametrize(("seed", "siblings"), [(3, 0), (11, 3)])
def test_the_scan_of_a_generated_session_equals_a_plain_read(tmp_path: Path, seed: int, siblings: int) -> None:
    generated = generate(tmp_path, GenOptions(seed=seed, entries=3000, branches=4, compactions=2, siblings=siblings))
    path = Path(generated[0].path)
    scan = scan_source(str(path))
    assert scan.valid and all(is_pi_id(entry_id) for entry_id in dict(scan.ids.items()))
    assert compact_facts(scan) == plain_scan(path) == compact_facts(in_two_halves(path))
