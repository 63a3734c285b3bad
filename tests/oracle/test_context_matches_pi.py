"""The reference reads sessions exactly like Pi 0.84.3: path, context entries, context bytes, settings.

Sessions come from Pi's own SessionManager (seeded generator), from the scripted tour set, and
from hand-made files with the damage real files carry (CRLF, junk lines, duplicate ids...).
For every (session, leaf) the batch oracle's answer is compared with ``inspect_session``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

pytestmark = pytest.mark.oracle

#: Fixed so failures reproduce; set PI_ORACLE_SEED to explore other session sets.
SEED = int(os.environ.get("PI_ORACLE_SEED", "20250601"))
SESSION_COUNT = 48
MIN_SESSIONS = 40
MIN_PAIRS = 2000


#: Shapes the generated set must contain, so a generator regression cannot thin out the test.
REQUIRED_FEATURES = {
    "branch", "branch_summary", "branch_summary:root", "branch_summary:empty", "resetLeaf", "label", "session_info",
    "custom", "custom_message:display=true", "custom_message:display=false", "custom_message:no-content",
    "model_change", "thinking_level_change", "compaction:on-path", "compaction:off-path", "compaction:missing",
    "compaction:undefined", "stop:stop", "stop:toolUse", "stop:length", "stop:error", "stop:aborted",
    "exchange:complete", "exchange:incomplete", "toolResult:error", "bashExecution", "bash:excludeFromContext",
    "null-content", "odd-message",
}


def _all_leaves(files: list[str]) -> list[dict[str, Any]]:
    return [{"file": f, "leaves": "all"} for f in files]


def test_generated_sessions_match_pi(tmp_path: Path, pair_stats: Any) -> None:
    manifest = _pi.generate_sessions(tmp_path / "sessions", seed=SEED, count=SESSION_COUNT)
    sessions = manifest["sessions"]
    files = [s["file"] for s in sessions]
    assert len(files) >= MIN_SESSIONS
    missing = REQUIRED_FEATURES - {f for s in sessions for f in s["features"]}
    assert not missing, f"the generated set lacks {sorted(missing)}"
    assert any(s["leafType"] == "compaction" for s in sessions), "no session ends with a compaction"
    assert any(s["maxCompactionsOnAPath"] >= 3 for s in sessions), "no path with several compactions"
    assert all(Path(f).is_file() for f in files), "Pi did not write every generated session"
    answers = _pi.ask_pi(_all_leaves(files))
    comparison = _pi.compare(answers)
    pair_stats.add(f"generated sessions (seed {SEED})", comparison)
    assert len(comparison.files) >= MIN_SESSIONS
    assert comparison.pairs >= MIN_PAIRS, f"only {comparison.pairs} (session, leaf) pairs compared"
    if comparison.differences:
        pytest.fail(comparison.render(), pytrace=False)


def test_tour_sessions_match_pi(tmp_path: Path, pair_stats: Any) -> None:
    manifest = _pi.generate_sessions(tmp_path / "tour", seed=SEED, count=0, tour=True)
    files = list(manifest["tour"]["files"].values())
    assert len(files) == 3
    answers = _pi.ask_pi(_all_leaves(files))
    comparison = _pi.compare(answers)
    pair_stats.add("tour sessions (main, child, createBranchedSession)", comparison)
    assert comparison.pairs >= 50
    if comparison.differences:
        pytest.fail(comparison.render(), pytrace=False)


# --------------------------------------------------------------------------- hand-made files

T0 = "2025-06-01T12:00:0{}.000Z"


def _j(value: Any) -> str:
    """One compact JSON line as Pi writes it (raw non-ASCII, no spaces)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _msg(id_: str, parent: str | None, message: dict[str, Any], n: int = 1) -> str:
    return _j({"type": "message", "id": id_, "parentId": parent, "timestamp": T0.format(n % 10), "message": message})


def _user(text: Any) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 1748779200000}


def _assistant(content: list[Any], stop: str = "stop") -> dict[str, Any]:
    return {
        "role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
        "model": "claude-sonnet-4-5", "usage": {"input": 10, "output": 5, "totalTokens": 15},
        "stopReason": stop, "timestamp": 1748779201000,
    }


HEADER = _j({"type": "session", "version": 3, "id": "edge-0001", "timestamp": T0.format(0), "cwd": "/home/user/edge"})
CALL = {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}
BASE = [
    HEADER,
    _j({"type": "model_change", "id": "a1000001", "parentId": None, "timestamp": T0.format(1),
        "provider": "anthropic", "modelId": "claude-sonnet-4-5"}),
    _j({"type": "thinking_level_change", "id": "a1000002", "parentId": "a1000001", "timestamp": T0.format(2),
        "thinkingLevel": "low"}),
    _msg("a1000003", "a1000002", _user("hello — ünïcödé 😀")),
    _msg("a1000004", "a1000003", _assistant([{"type": "text", "text": "reading"}, CALL], "toolUse")),
    _msg("a1000005", "a1000004", {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
                                  "content": [{"type": "text", "text": "x"}], "isError": False, "timestamp": 1}),
    _msg("a1000006", "a1000005", _assistant([{"type": "text", "text": "done"}])),
    _msg("a1000007", "a1000006", _user([{"type": "text", "text": "again"}])),
    _msg("a1000008", "a1000007", _assistant([{"type": "text", "text": "ok"}])),
]


def _text(lines: list[str], end: str = "\n") -> bytes:
    return "".join(line + end for line in lines).encode("utf-8")


def _crlf() -> bytes:
    return _text(BASE, "\r\n")


def _malformed_lines() -> bytes:
    lines = ["{not json before the header", *BASE]
    lines[4:4] = ['{"type":"message","id":"bad1",', "not json at all", '{"type":"label"} trailing junk', "{'single':1}"]
    return _text(lines)


def _blank_lines() -> bytes:
    lines = [*BASE]
    lines[3:3] = ["", "   ", "\t", " \r"]
    lines[-1:-1] = [""]
    return _text(lines) + b"\n\n  \n"


def _duplicate_ids() -> bytes:
    return _text([
        *BASE,
        # Same id as an earlier user message, hung lower on the same chain: the later one wins.
        _msg("a1000003", "a1000002", _user("duplicate of a1000003")),
        _msg("a1000009", "a1000003", _assistant([{"type": "text", "text": "after the duplicate"}])),
        # The last line re-uses the id of the old leaf.
        _msg("a1000008", "a1000009", _user("duplicate of the old leaf")),
    ])


def _missing_parent() -> bytes:
    return _text([
        *BASE,
        _msg("b1000001", "ffffffff", _user("my parent does not exist")),
        _msg("b1000002", "b1000001", _assistant([{"type": "text", "text": "orphan answer"}])),
        _j({"type": "label", "id": "b1000003", "parentId": "b1000002", "timestamp": T0.format(9),
            "targetId": "b1000001", "label": "orphan"}),
    ])


def _compaction(id_: str, parent: str, first_kept: Any, **extra: Any) -> str:
    entry: dict[str, Any] = {"type": "compaction", "id": id_, "parentId": parent, "timestamp": T0.format(5),
                             "summary": f"summary {id_}"}
    if first_kept is not None:
        entry["firstKeptEntryId"] = first_kept
    entry["tokensBefore"] = 1234
    entry.update(extra)
    return _j(entry)


def _first_kept_variants() -> bytes:
    return _text([
        *BASE,
        # side branch from a1000006
        _msg("c1000001", "a1000006", _user("side branch")),
        _msg("c1000002", "c1000001", _assistant([{"type": "text", "text": "side"}])),
        # main line: firstKeptEntryId on another branch
        _compaction("c2000001", "a1000008", "c1000001"),
        _msg("c2000002", "c2000001", _user("after off-path compaction")),
        # from a1000006: firstKeptEntryId that exists nowhere
        _compaction("c3000001", "a1000006", "deadbeef"),
        _msg("c3000002", "c3000001", _user("after missing-id compaction")),
        # from a1000005: no firstKeptEntryId at all
        _compaction("c4000001", "a1000005", None, details={"readFiles": []}, fromHook=False),
        _msg("c4000002", "c4000001", _user("after compaction without firstKeptEntryId")),
        # on-path first kept, then a second compaction keeping the first one; it ends the file
        _compaction("c5000001", "c2000002", "a1000007"),
        _msg("c5000002", "c5000001", _user("between compactions")),
        _compaction("c5000003", "c5000002", "c2000002"),
    ])


def _trailing_42() -> bytes:
    return _text([*BASE, "42"])


def _trailing_non_entries() -> bytes:
    return _text([*BASE, '{"type":"custom","customType":"no-id"}', "[]", '"x"'])


def _unterminated() -> bytes:
    return _text(BASE)[:-1]


def _unterminated_partial() -> bytes:
    return _text(BASE) + b'{"type":"message","id":"zzzzzzzz","parentId":"a1000008","timestamp":"2025-06-'


def _non_entry_lines() -> bytes:
    lines = [*BASE]
    lines[5:5] = ["null", "false", "0", "-0", '""', "[]", '"x"', '{"foo":1}', "true", "3.5",
                  _j({"type": "session", "version": 3, "id": "second-header", "timestamp": T0.format(3), "cwd": "/x"})]
    return _text(lines)


def _numbers_and_escapes() -> bytes:
    # Written by hand: number spellings and escapes that a re-serialization must normalize.
    raw_assistant = (
        '{"type":"message","id":"d1000001","parentId":"a1000008","timestamp":"2025-06-01T12:00:09.000Z",'
        '"message":{"role":"assistant","content":[{"type":"text","text":"esc \\u2028 raw \u2028 \\ud800 lone '
        '\\ud83d\\ude00 pair \\/ slash \\u0000 nul \x7f del \\u00e9 \\"q\\""},'
        '{"type":"toolCall","id":"call_9","name":"edit","arguments":{"b":1,"10":2,"2":3,"01":4,'
        '"4294967295":5,"4294967294":6,"__proto__":{"x":1},"a":1,"a":2,"-1":7,"1.5":8}}],'
        '"api":"x","provider":"p","model":"m","usage":{"one":1.0,"huge":1e400,"negzero":-0,"e2":1E2,'
        '"tenth":0.1,"big":12345678901234567890123,"tiny":5e-324,"small":1e-7,"exp":123456789012345680000,'
        '"neg":-1.5e-10,"frac":2.50,"sub":2.2250738585072014e-308},"stopReason":"stop","timestamp":1748779209000}}'
    )
    return _text([*BASE, raw_assistant])


def _context_quirks() -> bytes:
    entries = [
        {"type": "custom_message", "customType": "bad-ts", "content": "c", "display": True,
         "id": "e1000001", "parentId": "a1000008", "timestamp": "not a date"},
        {"type": "custom_message", "customType": "no-ts", "content": None, "id": "e1000002", "parentId": "e1000001"},
        {"type": "custom_message", "customType": "local-ts", "content": [{"type": "text", "text": "t"}],
         "display": False, "details": {"k": [1, None]}, "id": "e1000003", "parentId": "e1000002",
         "timestamp": "2025-06-01T12:00:00"},
        {"type": "custom_message", "customType": "date-only", "content": "d", "display": True,
         "id": "e1000004", "parentId": "e1000003", "timestamp": "2025-06-01"},
        {"type": "custom_message", "customType": "num-ts", "content": "n", "display": True,
         "id": "e1000005", "parentId": "e1000004", "timestamp": 1748779200123},
        {"type": "branch_summary", "id": "e1000006", "parentId": "e1000005", "timestamp": T0.format(6),
         "fromId": "a1000004", "summary": ""},
        {"type": "branch_summary", "id": "e1000007", "parentId": "e1000006", "timestamp": T0.format(6)},
        {"type": "branch_summary", "id": "e1000008", "parentId": "e1000007", "timestamp": T0.format(6),
         "summary": "no fromId"},
        {"type": "model_change", "id": "e1000009", "parentId": "e1000008", "timestamp": T0.format(7), "modelId": "only-id"},
        {"type": "thinking_level_change", "id": "e100000a", "parentId": "e1000009", "timestamp": T0.format(7),
         "thinkingLevel": None},
        {"type": "message", "id": "e100000b", "parentId": "e100000a", "timestamp": T0.format(8),
         "message": {"role": "user", "content": None, "timestamp": 5}},
        {"type": "message", "id": "e100000c", "parentId": "e100000b", "timestamp": T0.format(8),
         "message": {"role": "toolResult", "toolCallId": "call_x", "toolName": "read", "isError": True}},
        {"type": "message", "id": "e100000d", "parentId": "e100000c", "timestamp": T0.format(8),
         "message": {"role": "custom", "customType": "hook", "content": None, "display": True}},
        {"type": "message", "id": "e100000e", "parentId": "e100000d", "timestamp": T0.format(8),
         "message": {"content": "no role"}},
        {"type": "message", "id": "e100000f", "parentId": "e100000e", "timestamp": T0.format(8),
         "message": {"role": "assistant", "content": None, "model": 5, "stopReason": "error"}},
        {"type": "compaction", "id": "e1000010", "parentId": "e100000f", "timestamp": T0.format(9)},
        {"type": "thinking_level_change", "id": "e1000011", "parentId": "e1000010", "timestamp": T0.format(9)},
        {"type": "session_info", "id": "e1000012", "parentId": "e1000011", "timestamp": T0.format(9), "name": " n "},
    ]
    return _text([*BASE, *(_j(e) for e in entries)])


def _message_without_message() -> bytes:
    return _text([
        *BASE,
        _j({"type": "message", "id": "f1000001", "parentId": "a1000008", "timestamp": T0.format(9)}),
        _msg("f1000002", "f1000001", _user("below the broken entry")),
        _msg("f1000003", "a1000006", _user("a branch that avoids it")),
    ])


def _empty_id() -> bytes:
    return _text([
        *BASE,
        _msg("", "a1000008", _user("my id is the empty string")),
        _msg("g1000002", "", _user("my parentId is the empty string")),
        _msg("g1000003", "g1000002", _assistant([{"type": "text", "text": "end"}])),
    ])


def _numeric_id() -> bytes:
    return _text([
        *BASE,
        _j({"type": "message", "id": 7, "parentId": "a1000008", "timestamp": T0.format(9), "message": _user("id 7")}),
        _j({"type": "message", "id": "h1000002", "parentId": 7, "timestamp": T0.format(9), "message": _user("child of 7")}),
    ])


def _invalid_utf8() -> bytes:
    bad = _msg("i1000001", "a1000008", _user("bad bytes: XX and a cut sequence: YY")).encode("utf-8")
    bad = bad.replace(b"XX", b"\xff\xfe").replace(b"YY", b"\xe2\x82")
    return _text(BASE) + bad + b"\n"


def _bom() -> bytes:
    return b"\xef\xbb\xbf" + _text(BASE)


def _no_header() -> bytes:
    return _text(BASE[1:])


def _second_root_and_resets() -> bytes:
    return _text([
        *BASE,
        _msg("j1000001", None, _user("a second root")),
        _j({"type": "branch_summary", "id": "j1000002", "parentId": None, "timestamp": T0.format(9),
            "fromId": "root", "summary": "third root"}),
        _msg("j1000003", "j1000002", _user("under the third root")),
        _j({"type": "label", "id": "j1000004", "parentId": "a1000004", "timestamp": T0.format(9),
            "targetId": "a1000003", "label": "mid"}),
    ])


EDGE_FILES: dict[str, Callable[[], bytes]] = {
    "crlf": _crlf,
    "malformed-lines": _malformed_lines,
    "blank-lines": _blank_lines,
    "duplicate-ids": _duplicate_ids,
    "missing-parent": _missing_parent,
    "first-kept-variants": _first_kept_variants,
    "trailing-42": _trailing_42,
    "trailing-non-entries": _trailing_non_entries,
    "unterminated-last-line": _unterminated,
    "unterminated-partial-line": _unterminated_partial,
    "non-entry-lines": _non_entry_lines,
    "numbers-and-escapes": _numbers_and_escapes,
    "context-quirks": _context_quirks,
    "message-without-message": _message_without_message,
    "empty-id": _empty_id,
    "numeric-id": _numeric_id,
    "invalid-utf8": _invalid_utf8,
    "bom": _bom,
    "no-header": _no_header,
    "second-root-and-resets": _second_root_and_resets,
}


class _EdgeBatch:
    """All hand-made files answered by one oracle process, on first use (inside a test body)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._answers: dict[str, list[dict[str, Any]]] | None = None

    def answers(self, name: str) -> list[dict[str, Any]]:
        if self._answers is None:
            paths = {}
            for edge, build in EDGE_FILES.items():
                path = self.root / f"{edge}.jsonl"
                path.write_bytes(build())
                paths[str(path)] = edge
            grouped: dict[str, list[dict[str, Any]]] = {edge: [] for edge in EDGE_FILES}
            for answer in _pi.ask_pi(_all_leaves(list(paths))):
                grouped[paths[answer["file"]]].append(answer)
            self._answers = grouped
        return self._answers[name]


@pytest.fixture(scope="module")
def edge_batch(tmp_path_factory: pytest.TempPathFactory) -> _EdgeBatch:
    return _EdgeBatch(tmp_path_factory.mktemp("edge-files"))


@pytest.mark.parametrize("name", list(EDGE_FILES))
def test_edge_file_matches_pi(name: str, edge_batch: _EdgeBatch, pair_stats: Any) -> None:
    answers = edge_batch.answers(name)
    assert answers, f"the oracle gave no answer for {name}"
    comparison = _pi.compare(answers)
    pair_stats.add("hand-made edge files", comparison)
    if comparison.differences:
        pytest.fail(comparison.render(), pytrace=False)
