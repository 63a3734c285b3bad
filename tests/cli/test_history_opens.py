"""A one-shot ``history search`` walks without back-and-forth (issue 25, item 5).

On an up-to-date index, one search connects to the index database once (after the claim's read of
its header, docs/index.md I14: the index file is opened twice), runs the catch-up once
and opens the session file at most :data:`SESSION_OPENS` times: once for the command line's
checks (the path, a legacy header, the header id, all on one descriptor) and once for the recall
(the catch-up proves the cursor on the descriptor every hit is then read from by ``pread``); the
bound holds whatever the number of hits.  Counted in-process: the audit events ``sqlite3.connect`` and ``open``
(``sys.addaudithook``; a hook cannot be removed, so it counts only while ``_COUNTING`` is set),
and calls of ``catch_up`` by a profile hook.  ``bench/oneshot_opens.py`` prints the same counts
and strace's count of the open calls.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from testkit.history_service import write_session

from reference.cli.main import main
from reference.recall import catchup

_COUNTING: dict[str, Any] = {}
#: The command line's checks and the header id on one descriptor; the catch-up and every hit on another.
SESSION_OPENS = 2


def _audit(event: str, args: tuple[Any, ...]) -> None:
    counts: Counter[str] | None = _COUNTING.get("counts")
    if counts is None or not args:
        return
    if event == "sqlite3.connect" and str(args[0]).split("?")[0].endswith(_COUNTING["index"]):
        counts["index"] += 1
    elif event == "open" and isinstance(args[0], (str, bytes, os.PathLike)) \
            and os.fsdecode(args[0]) == _COUNTING["index"]:
        counts["index_file"] += 1  # opened by Python: the claim's read of the header (I14)
    elif event == "open" and isinstance(args[0], (str, bytes, os.PathLike)) \
            and os.fsdecode(args[0]) == _COUNTING["session"]:
        counts["session"] += 1


sys.addaudithook(_audit)


def _search(session: Path, index: Path, cwd: str, query: str, capsys: pytest.CaptureFixture[str]) -> tuple[
        dict[str, Any], Counter[str]]:
    counts: Counter[str] = Counter()
    code = catchup.catch_up.__code__

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            counts["catch_up"] += 1

    capsys.readouterr()
    _COUNTING.update(counts=counts, index=str(index), session=str(session))
    sys.setprofile(profile)
    try:
        exit_code = main(["history", "search", query, "--session", str(session), "--index", str(index),
                          "--cwd", cwd, "--json"])
    finally:
        sys.setprofile(None)
        _COUNTING.clear()
    out, _err = capsys.readouterr()
    assert exit_code == 0
    return json.loads(out), counts


@pytest.fixture
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    session, index = tmp_path / "s.jsonl", tmp_path / "index.sqlite"
    write_session(session)
    assert main(["history", "index", "--session", str(session), "--index", str(index),
                 "--cwd", "/home/user/projects/history", "--json"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return session, index


def test_a_warm_one_shot_search_opens_the_index_once_and_the_session_once_for_all_hits(
        indexed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    session, index = indexed
    result, counts = _search(session, index, "/home/user/projects/history", "heron", capsys)
    assert len(result["hits"]) == 6  # a hit answer: every hit verified against the file
    assert counts["index"] == 1, counts
    # The index file twice: the claim's read of its header, then SQLite, which must not read a
    # file before it is known to be ours (docs/index.md, I14: "Why the index file is opened twice").
    assert (counts["index_file"], counts["index"]) == (1, 1), counts
    assert counts["session"] <= SESSION_OPENS, counts
    _wider, more = _search(session, index, "/home/user/projects/history", "note", capsys)
    assert len(_wider["hits"]) > len(result["hits"]) or _wider["hits"] != result["hits"]
    assert more["session"] == counts["session"], (more, counts)  # not one more open per hit
    assert counts["catch_up"] == 1, counts


def test_a_first_search_still_connects_once_and_catches_up_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    session, index = tmp_path / "s.jsonl", tmp_path / "index.sqlite"
    write_session(session)
    result, counts = _search(session, index, "/home/user/projects/history", "heron", capsys)
    assert len(result["hits"]) == 6
    assert counts["index"] == 1, counts
    assert counts["catch_up"] == 1, counts
