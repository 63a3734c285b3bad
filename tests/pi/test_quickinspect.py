"""The one ``session inspect`` (the session model, Pi's tree over it) gives the exact oracle's bytes.

Every file is inspected both ways at many leaves (tests/testkit/inspect_equality.py): the JSON
and the readable summary must be identical.  Real Pi sessions: tests/oracle/test_quick_inspect_on_pi.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.inspect_equality import assert_same_inspection, leaves_of
from testkit.profiles import examples

from reference.fixturegen.generator import generate
from reference.fixturegen.options import GenOptions
from reference.pi.leaf import DEFAULT_LEAF
from reference.primitives.jsonbytes import js_stringify

ROOT = Path(__file__).resolve().parents[2]
T = "2025-06-01T12:00:00.000Z"
HEADER = {"type": "session", "version": 3, "id": "s-quick", "timestamp": T, "cwd": "/w"}


def entry(entry_id: Any, parent: Any, kind: str = "message", **fields: Any) -> dict[str, Any]:
    value: dict[str, Any] = {"type": kind, "id": entry_id, "parentId": parent, "timestamp": T}
    if kind == "message" and "message" not in fields:
        fields["message"] = {"role": "user", "content": [{"type": "text", "text": f"hi {entry_id}"}], "timestamp": 1}
    value.update(fields)
    return value


def assistant(entry_id: str, parent: Any, *calls: str, **extra: Any) -> dict[str, Any]:
    content = [{"type": "toolCall", "id": c, "name": "bash", "arguments": {"command": "ls"}} for c in calls]
    message = {"role": "assistant", "content": [{"type": "text", "text": "ok"}, *content], "provider": "p",
               "model": "m", "usage": {"input": 3, "cost": {"input": 0.0003, "total": 0.0064800000000000005}},
               "stopReason": "toolUse" if calls else "stop", "timestamp": 2, **extra}
    return entry(entry_id, parent, message=message)


def result(entry_id: str, parent: Any, call: str) -> dict[str, Any]:
    return entry(entry_id, parent, message={"role": "toolResult", "toolCallId": call, "toolName": "bash",
                                            "content": [{"type": "text", "text": "out"}], "isError": False,
                                            "timestamp": 3})


def write(tmp_path: Path, *lines: Any, header: Any = None, name: str = "s.jsonl", end: bytes = b"\n") -> Path:
    path = tmp_path / name
    texts = [line if isinstance(line, bytes) else js_stringify(line).encode() for line in (header or HEADER, *lines)]
    path.write_bytes(end.join(texts) + end)
    return path


CHAIN = [entry("u1", None), assistant("a1", "u1", "c1"), result("r1", "a1", "c1"), assistant("a2", "r1", "c2")]


def odd_shapes() -> dict[str, tuple[list[Any], bool]]:
    """Name -> (lines after the header, whether the block read takes the file)."""
    big = b'{"type":"message","id":"n1","parentId":"u1","timestamp":"' + T.encode() + b'","message":{"role":"user",'
    return {
        "plain chain": (CHAIN, True),
        "duplicate ids": ([*CHAIN, entry("u1", "a2"), entry("x", "u1")], True),
        "missing parents": ([*CHAIN, entry("m1", "gone"), entry("m2", "m1"), entry("m3", "")], True),
        "self cycle": ([*CHAIN, entry("c", "c")], True),
        "two cycle and a tail": ([*CHAIN, entry("p", "q"), entry("q", "p"), entry("t", "q")], True),
        "forward parent": ([entry("f1", "f2"), entry("f2", None), *CHAIN], True),
        "leaf in a cycle": ([entry("p", "q"), entry("q", "p")], True),
        "non-ascii and escapes": ([*CHAIN, entry("na", "a2", message={
            "role": "user", "content": "é😀\u2028\x00\x1f\"\\/\t\n", "timestamp": 4})], True),
        "numbers": ([*CHAIN, *[
            big + b'"content":"x","timestamp":' + number + b"}}" for number in (
                b"9007199254740993", b"-9007199254740993", b"12345678901234567890", b"1.0", b"-0", b"1e400",
                b"1E5", b"5e-7", b"1e21", b"0.1", b"-0.0", b"100", b"1.5e300", b"123456789012345678.5")]], True),
        "index keys": ([*CHAIN, big + b'"content":"x","details":{"b":1,"1":2,"0":3},"timestamp":1}}'], True),
        "duplicate keys": ([*CHAIN, big + b'"content":"x","content":"y","timestamp":1}}',
                            b'{"type":"message","id":"d2","id":"d3","parentId":"u1","timestamp":"' + T.encode()
                            + b'","message":{"role":"user","content":"z"},"message":{"role":"user","content":"w"}}'],
                           True),
        "whitespace and escapes Pi never writes": ([*CHAIN, big + b' "content" : "\\u0041\\/\\u001F" , "timestamp":1}}  ',
                                                   big.replace(b"n1", b"n2") + b'"content":"\\ud800 lone"}}'], True),
        "lone surrogate in an id": ([*CHAIN, b'{"type":"custom","id":"\\udc00","parentId":"a2","timestamp":"x"}'], True),
        "invalid utf-8": ([*CHAIN, big + b'"content":"\xff\xfe"}}'], True),
        "null and odd messages": ([*CHAIN, entry("z1", "a2", message={"role": "user", "content": None}),
                                   entry("z2", "z1", message={"role": "assistant"}), entry("z3", "z2", message="text"),
                                   entry("z4", "z3", message=5), entry("z5", "z4", message=[1])], True),
        "a message entry without a message": ([*CHAIN, entry("e1", "a2", message=None)], True),
        "a message entry without a message off the path": ([entry("e1", None, message=None), *CHAIN], True),
        "compactions": ([*CHAIN, entry("k1", "a2", "compaction", summary="s1", firstKeptEntryId="r1", tokensBefore=9),
                         entry("u2", "k1"), entry("k2", "u2", "compaction", summary="s2", firstKeptEntryId="u2",
                                                  tokensBefore=10), assistant("a3", "k2", "c3")], True),
        "compaction keeping an unknown or odd entry": ([*CHAIN, entry("k1", "a2", "compaction", summary="s",
                                                                     firstKeptEntryId="nope"),
                                                        entry("k2", "k1", "compaction", summary="t", firstKeptEntryId=5),
                                                        entry("k3", "k2", "compaction", summary="t")], True),
        "branch summaries and custom messages": ([*CHAIN, entry("b1", "u1", "branch_summary", summary="went", fromId="a2"),
                                                  entry("b2", "b1", "branch_summary", summary="", fromId="a2"),
                                                  entry("b3", "b2", "branch_summary"),
                                                  entry("cm", "b3", "custom_message", customType="x", content="c",
                                                        display=True),
                                                  entry("cm2", "cm", "custom_message", customType="y")], True),
        "settings": ([*CHAIN, entry("t1", "a2", "thinking_level_change", thinkingLevel="high"),
                      entry("m1", "t1", "model_change", provider="q", modelId="r"),
                      entry("t2", "m1", "thinking_level_change"), entry("l1", "t2", "label", label="x")], True),
        "an empty id": ([entry("", None), entry("x", "")], True),
        "a later session header": ([*CHAIN, HEADER], False),
        "a malformed line": ([*CHAIN, b"{oops"], False),
        "a blank line": ([*CHAIN, b"   "], False),
        "a non-object line": ([*CHAIN, b"[1]"], False),
        "a falsy line": ([*CHAIN, b"null"], False),
        "a number id": ([*CHAIN, b'{"type":"custom","id":5,"parentId":"a2","timestamp":"x"}'], False),
        "a BOM on a later line": ([*CHAIN, b"\xef\xbb\xbf" + js_stringify(entry("bom", "a2")).encode()], False),
    }


@pytest.mark.parametrize("name", odd_shapes())
def test_odd_shapes_read_the_same_both_ways(tmp_path: Path, name: str) -> None:
    lines, quick = odd_shapes()[name]
    assert_same_inspection(write(tmp_path, *lines), quick=quick)


@pytest.mark.parametrize("name", ["plain chain", "duplicate ids", "numbers", "compactions"])
def test_crlf_and_a_torn_tail_read_the_same(tmp_path: Path, name: str) -> None:
    lines, _ = odd_shapes()[name]
    assert_same_inspection(write(tmp_path, *lines, end=b"\r\n"), quick=True)
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(write(tmp_path, *lines).read_bytes()[:-1])
    assert_same_inspection(torn, quick=True)
    cr_tail = tmp_path / "cr.jsonl"
    cr_tail.write_bytes(write(tmp_path, *lines, end=b"\r\n").read_bytes()[:-1])
    assert_same_inspection(cr_tail, quick=True)


@pytest.mark.parametrize("header", [
    b"\xef\xbb\xbf" + js_stringify(HEADER).encode(),
    js_stringify({**HEADER, "version": 1}).encode(),
    js_stringify({**HEADER, "version": 2}).encode(),
    js_stringify({**HEADER, "version": 9}).encode(),
    js_stringify({**HEADER, "version": "3"}).encode(),
    js_stringify({**HEADER, "cwd": 5}).encode(),
    js_stringify({**HEADER, "parentSession": "/x/y.jsonl"}).encode(),
    b'{"type":"session","id":7}',
], ids=["bom", "v1", "v2", "v9", "v-text", "cwd-number", "parent", "number-id"])
def test_odd_headers_read_the_same(tmp_path: Path, header: bytes) -> None:
    assert_same_inspection(write(tmp_path, *CHAIN, header=header))


def test_a_header_alone_reads_the_same(tmp_path: Path) -> None:
    assert_same_inspection(write(tmp_path), quick=True)
    alone = tmp_path / "alone.jsonl"
    alone.write_bytes(js_stringify(HEADER).encode())
    assert_same_inspection(alone, quick=True)


@pytest.mark.parametrize("options", [
    GenOptions(seed=1, entries=80),
    GenOptions(seed=2, entries=150, compactions=3, branches=4, siblings=3),
    GenOptions(seed=3, entries=120, compactions=0, branches=0),
    GenOptions(seed=4, entries=100, crlf=True, torn_tail=True),
    GenOptions(seed=5, entries=90, target_bytes=600_000),
    GenOptions(seed=6, entries=80, malformed=3, blank=2),
    GenOptions(seed=7, entries=60, legacy=2),
], ids=lambda o: f"seed{o.seed}")
def test_generated_sessions_read_the_same(tmp_path: Path, options: GenOptions) -> None:
    [session] = generate(tmp_path, options)
    ordinary = not (options.malformed or options.blank or options.legacy or options.torn_tail)
    assert_same_inspection(session.path, quick=ordinary)


@pytest.mark.parametrize("path", sorted(ROOT.glob("fixtures/**/*.jsonl")), ids=lambda p: p.name[:40])
def test_the_fixture_corpus_reads_the_same(path: Path) -> None:
    assert_same_inspection(path)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@examples(deep=200, ci=105)
@given(payloads=st.lists(_json_values, min_size=1, max_size=6), parents=st.lists(st.integers(-2, 8), min_size=6,
                                                                               max_size=6),
       styles=st.lists(st.sampled_from(["js", "python", "spaced", "ascii"]), min_size=6, max_size=6))
def test_random_messages_and_links_read_the_same(tmp_path_factory: pytest.TempPathFactory, payloads: list[Any],
                                                 parents: list[int], styles: list[str]) -> None:
    lines: list[bytes] = []
    for number, payload in enumerate(payloads):
        parent = None if parents[number] == -1 else "gone" if parents[number] == -2 else f"e{parents[number]}"
        value = entry(f"e{number}", parent, message={"role": "user", "content": payload, "extra": payload})
        style = styles[number]
        text = (js_stringify(value) if style == "js" else json.dumps(value, ensure_ascii=style == "ascii",
                                                                     separators=(", ", ": ") if style == "spaced"
                                                                     else (",", ":")))
        lines.append(text.encode("utf-8", "surrogatepass"))
    path = write(tmp_path_factory.mktemp("random"), *lines)
    assert_same_inspection(path, leaves=[None, "e0", *[f"e{n}" for n in range(len(payloads))]])


@pytest.mark.parametrize("child", ["forked", "fork fails", "child fails"])
def test_a_long_context_written_in_two_halves_reads_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              child: str) -> None:
    from reference.pi import context_messages, split_work

    monkeypatch.setattr(context_messages, "FORK_AT_MESSAGES", 2)
    if child == "fork fails":
        def no_fork() -> int:
            raise OSError("no fork here")
        monkeypatch.setattr(split_work.os, "fork", no_fork)
    elif child == "child fails":
        monkeypatch.setattr(split_work, "collect", lambda forked: (os.close(forked.read_end),
                                                                  os.waitpid(forked.pid, 0), None)[-1])
    [session] = generate(tmp_path, GenOptions(seed=8, entries=200, compactions=2, branches=3))
    lines, _ = odd_shapes()["numbers"]
    odd = write(tmp_path, *lines)
    for path in (session.path, odd):
        assert_same_inspection(path, quick=True, leaves=[None, *leaves_of(path, limit=6)])


@pytest.mark.parametrize("child", ["forked", "fork fails", "child fails"])
@pytest.mark.parametrize("name", ["plain chain", "duplicate ids", "forward parent", "compactions",
                                  "a later session header", "a malformed line", "lone surrogate in an id"])
def test_a_file_read_in_two_halves_reads_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: str,
                                                  name: str) -> None:
    from reference.pi import split_work
    from reference.pi.model import split_read

    monkeypatch.setattr(split_read, "READ_IN_HALVES_BYTES", 1)
    if child == "fork fails":
        def no_fork() -> int:
            raise OSError("no fork here")
        monkeypatch.setattr(split_work.os, "fork", no_fork)
    elif child == "child fails":
        monkeypatch.setattr(split_read, "collect", lambda forked: (os.close(forked.read_end),
                                                                  os.waitpid(forked.pid, 0), None)[-1])
    lines, quick = odd_shapes()[name]
    for end in (b"\n", b"\r\n"):
        path = write(tmp_path, *lines, *lines, end=end)
        assert_same_inspection(path, quick=quick, leaves=[None, *leaves_of(path, limit=8)])
        torn = tmp_path / "torn.jsonl"
        torn.write_bytes(path.read_bytes()[:-1])
        assert_same_inspection(torn, quick=quick, leaves=[None, *leaves_of(torn, limit=4)])
    [session] = generate(tmp_path / "generated", GenOptions(seed=9, entries=150, compactions=2, crlf=True))
    assert_same_inspection(session.path, quick=True, leaves=[None, *leaves_of(session.path, limit=6)])


def _odd_message_lines() -> dict[str, bytes]:
    """Message lines the run proof must not copy as they are (or must, where JavaScript writes them so)."""
    head = b'{"type":"message","id":"ID","parentId":"PARENT","timestamp":"' + T.encode() + b'","message":'
    return {
        "whitespace": head + b'{"role":"user", "content":"spaced","timestamp":1}}',
        "whitespace outside the message": head.replace(b'"type":', b' "type" :') + b'{"role":"user","content":"x"}}',
        "lone surrogate escape": head + b'{"role":"user","content":"\\ud800 lone","timestamp":1}}',
        "escaped surrogate pair": head + b'{"role":"user","content":"\\ud83d\\ude00","timestamp":1}}',
        "a float JavaScript writes otherwise": head + b'{"role":"user","content":"x","timestamp":1.0}}',
        "a tiny float JavaScript writes so": head + b'{"role":"user","content":"x","cost":0.0000045,"timestamp":1}}',
        "an exponent JavaScript writes so": head + b'{"role":"user","content":"x","cost":1.5e-7,"timestamp":1}}',
        "a big exponent": head + b'{"role":"user","content":"x","cost":1e21,"timestamp":1}}',
        "a large integer": head + b'{"role":"user","content":"x","timestamp":12345678901234567890}}',
        "duplicate keys": head + b'{"role":"user","content":"x","content":"y","timestamp":1}}',
        "duplicate messages": head + b'{"role":"user","content":"x"},"message":{"role":"user","content":"y"}}',
        "an index key": head + b'{"role":"user","content":"x","details":{"b":1,"0":2}}}',
        "content null": head + b'{"role":"assistant","content":null}}',
        "a message that is not an object": head + b'"text"}',
        "an escape JavaScript does not write": head + b'{"role":"user","content":"\\u0041\\/"}}',
    }


@pytest.mark.parametrize("position", [0, 5, 31, 32, 33, 70])
@pytest.mark.parametrize("name", _odd_message_lines())
def test_an_odd_message_among_ordinary_ones_reads_the_same(tmp_path: Path, name: str, position: int) -> None:
    """Context messages are proven canonical in runs of lines (one JSON array): one odd line at
    any place of a run, or of the next, gives the exact oracle's bytes, and so do two."""
    odd = _odd_message_lines()[name]
    lines: list[Any] = [entry("u0", None)]
    for number in range(1, 80):
        parent = f"u{number - 1}".encode()
        if number in (position + 1, 76):
            lines.append(odd.replace(b"ID", f"u{number}".encode()).replace(b"PARENT", parent))
        elif number % 2:
            lines.append(assistant(f"u{number}", parent.decode()))
        else:
            lines.append(entry(f"u{number}", parent.decode()))
    path = write(tmp_path, *lines)
    assert_same_inspection(path, quick=True, leaves=[DEFAULT_LEAF, "u3", "u40"])


def test_a_forked_copy_left_unread_ends(tmp_path: Path) -> None:
    """When the report fails after the copy began, the copy is reaped, not left writing."""
    from reference.pi.split_work import TwoHalves

    halves = TwoHalves(list(range(10)), lambda numbers: [b"x" * 100_000 for _ in numbers], split=2)
    assert halves.forked is not None
    pid = halves.forked.pid
    halves.abandon()
    assert halves.forked is None
    with pytest.raises(ChildProcessError):  # already reaped
        os.waitpid(pid, os.WNOHANG)


@pytest.mark.parametrize("window", [1, 300, 5000])
def test_lines_read_again_through_a_small_window_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               window: int) -> None:
    """The context's lines are read again through a window of the file: one that is refilled
    within a run of lines, or that is smaller than a line, gives the same bytes."""
    from reference.pi import context_messages

    monkeypatch.setattr(context_messages, "_WINDOW_BYTES", window)
    [session] = generate(tmp_path, GenOptions(seed=12, entries=120, compactions=1, branches=2))
    assert_same_inspection(session.path, quick=True, leaves=[DEFAULT_LEAF, *leaves_of(session.path, limit=4)])
    lines, _ = odd_shapes()["numbers"]
    odd = write(tmp_path, *lines)
    assert_same_inspection(odd, quick=True, leaves=[DEFAULT_LEAF])
