"""Fuzz category ``session_files`` (issue 12): generated hostile Pi session files through every
command that reads one: ``session inspect``, ``history index``, ``history search``, ``history
status`` and ``rebase --dry-run``.

A file is a valid v3 session with some of these put in: a line nested about 1,000 levels deep, an
integer literal of more than 4,300 digits, NUL bytes (escaped and raw), a BOM (at the start and
inside), lone surrogates (escaped and as bytes), CRs, a torn last line, a parent cycle, duplicate
ids, a garbage line; sometimes read through a symlink.  Invariants: no traceback, an answer
within the hang bound, one of the documented exit codes, the source's bytes unchanged.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from fuzz.budget import fuzz_settings
from fuzz.invariants import run_cli, sha
from fuzz.tally import count_case

EXIT_CODES = {0, 1, 2, 3}
HOSTILE = ("deep", "huge-int", "nul-escaped", "nul-raw", "bom-start", "bom-inside", "surrogate-escaped",
           "surrogate-bytes", "crlf", "lone-cr", "torn-tail", "cycle", "duplicate-id", "garbage")


def _entry(number: int, parent: str | None, text: str) -> dict[str, object]:
    return {"type": "message", "id": f"e{number:04d}", "parentId": parent,
            "timestamp": f"2026-01-01T00:{number // 60 % 60:02d}:{number % 60:02d}.000Z",
            "message": {"role": "user" if number % 2 else "assistant",
                        "content": [{"type": "text", "text": text}], "timestamp": 1767225600000 + number}}


def _session_bytes(cwd: str, count: int, hostile: list[str], depth: int, digits: int, at: int) -> bytes:
    lines = [json.dumps({"type": "session", "version": 3, "id": "fuzz-session",
                         "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}).encode()]
    parent = None
    for number in range(count):
        lines.append(json.dumps(_entry(number, parent, f"heron note {number}")).encode())
        parent = f"e{number:04d}"
    at = 1 + at % count
    for kind in hostile:
        line = lines[at]
        if kind == "deep":
            line = line[:-1] + b',"details":' + b"[" * depth + b"]" * depth + b"}"
        elif kind == "huge-int":
            line = line[:-1] + b',"n":' + b"7" * digits + b"}"
        elif kind == "nul-escaped":
            line = line.replace(b"heron", b"her\\u0000on", 1)
        elif kind == "nul-raw":
            line = line.replace(b"heron", b"her\x00on", 1)
        elif kind == "bom-start":
            lines[0] = b"\xef\xbb\xbf" + lines[0]
        elif kind == "bom-inside":
            line = b"\xef\xbb\xbf" + line
        elif kind == "surrogate-escaped":
            line = line.replace(b"heron", b"her\\ud800on", 1)
        elif kind == "surrogate-bytes":
            line = line.replace(b"heron", b"her\xed\xa0\x80on", 1)
        elif kind == "crlf":
            line = line + b"\r"
        elif kind == "lone-cr":
            line = line.replace(b"heron", b"her\ron", 1)
        elif kind == "cycle":  # the chain's last entry becomes this one's parent
            line = line.replace(b'"parentId":', b'"parentId":"e%04d","was":' % (count - 1), 1)
        elif kind == "duplicate-id":
            lines.append(lines[at])
        elif kind == "garbage":
            lines.insert(at, bytes(range(256))[::7])
        lines[at] = line
    data = b"\n".join(lines) + b"\n"
    if "torn-tail" in hostile:
        data = data[: len(data) - max(2, len(lines[-1]) // 2)]
    return data


@given(
    count=st.integers(min_value=1, max_value=40),
    hostile=st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=4, unique=True),
    depth=st.integers(min_value=900, max_value=1200),
    digits=st.integers(min_value=4200, max_value=6000),
    at=st.integers(min_value=0, max_value=10_000),
    through_symlink=st.booleans(),
)
@fuzz_settings("session_files")
def test_hostile_session_files(count: int, hostile: list[str], depth: int, digits: int, at: int,
                               through_symlink: bool) -> None:
    count_case("session_files")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        project = root / "project"
        project.mkdir()
        source = root / "sessions" / "2026-01-01T00-00-00-000Z_fuzz-session.jsonl"
        source.parent.mkdir()
        source.write_bytes(_session_bytes(str(project), count, hostile, depth, digits, at))
        before = sha(source)
        path = source
        if through_symlink and hasattr(os, "symlink"):
            path = root / "link.jsonl"
            path.symlink_to(source)
        index = str(root / "index.sqlite")
        common = ["--cwd", str(project), "--index", index]
        for argv in (
            ["session", "inspect", "--json", str(path)],
            ["history", "index", "--session", str(path), *common],
            ["history", "search", "--session", str(path), *common, "--approve", "--provider", "ollama", "heron"],
            ["history", "status", "--session", str(path), *common],
            ["rebase", "--session", str(path), "--dry-run", "--json", *common, "--approve"],
        ):
            code, _stdout, _stderr = run_cli(argv, home=root / "home")
            assert code in EXIT_CODES, (argv, code)
        assert sha(source) == before
