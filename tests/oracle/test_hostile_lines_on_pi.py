"""Lines Python's decoders choke on, read as Pi 0.84.3 reads them (issue 12).

V8's ``JSON.parse`` is iterative and holds an integer literal of any length as a double, so Pi
keeps a line nested 990 or 100,000 levels deep, and one with a 5,000-digit integer, as an entry.
The reference must read each such file exactly as Pi does (leaf, path, context bytes), through
every leaf, and never raise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testkit import pi_oracle as _pi

pytestmark = pytest.mark.oracle

T = "2025-06-01T12:00:0{}.000Z"


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _lines(extra: list[str]) -> bytes:
    base = [
        _j({"type": "session", "version": 3, "id": "deep-0001", "timestamp": T.format(0), "cwd": "/home/user/deep"}),
        _j({"type": "message", "id": "a1", "parentId": None, "timestamp": T.format(1),
            "message": {"role": "user", "content": "hello", "timestamp": 1748779200000}}),
    ]
    return "".join(line + "\n" for line in [*base, *extra]).encode("utf-8")


def _nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def _custom(id_: str, parent: str, data: str) -> str:
    return (f'{{"type":"custom","customType":"x","id":"{id_}","parentId":"{parent}",'
            f'"timestamp":"{T.format(2)}","data":{data}}}')


def _user_with(id_: str, parent: str, extra: str) -> str:
    return (f'{{"type":"message","id":"{id_}","parentId":"{parent}","timestamp":"{T.format(3)}",'
            f'"message":{{"role":"user","content":"after","timestamp":1748779200001,"extra":{extra}}}}}')


CASES = {
    "deep-990-custom": [_custom("b1", "a1", _nested(990))],
    "deep-990-message": [_user_with("b1", "a1", _nested(990))],
    "deep-990-object-keys": [_custom("b1", "a1", '{"k":' * 990 + "1" + "}" * 990)],
    "deep-100000-custom": [_custom("b1", "a1", _nested(100_000)), _user_with("b2", "b1", "0")],
    "bigint-5000-custom": [_custom("b1", "a1", "9" * 5000)],
    "bigint-5000-message": [_user_with("b1", "a1", "-" + "9" * 5000), _user_with("b2", "b1", "1" + "0" * 4400)],
}


def test_deep_and_huge_number_lines_read_as_pi_reads_them(tmp_path: Path) -> None:
    files = []
    for name, extra in CASES.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(_lines(extra))
        files.append(str(path))
    answers = _pi.ask_pi([{"file": f, "leaves": "all"} for f in files])
    assert all("leaf" in answer for answer in answers), [a.get("error") for a in answers if "leaf" not in a]
    # Pi keeps every hostile line as an entry: its leaf is the last line.
    defaults = {Path(a["file"]).stem: a["defaultLeafId"] for a in answers if a["leaf"] == {"default": True}}
    assert defaults == {name: f"b{len(extra)}" for name, extra in CASES.items()}
    comparison = _pi.compare(answers)
    assert comparison.pairs >= 4 * len(CASES)
    if comparison.differences:
        pytest.fail(comparison.render(), pytrace=False)
