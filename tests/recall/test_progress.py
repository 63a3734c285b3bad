"""The catch-up's progress reports (reference.recall.progress): what a listener is told."""

from __future__ import annotations

import json
from pathlib import Path

from reference.recall.catchup import catch_up
from reference.recall.index_schema import open_index
from reference.recall.progress import scanning, watching


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def begin(self, path: str, base: int, size: int) -> None:
        self.events.append(("begin", (path, base, size)))

    def advance(self, position: int) -> None:
        self.events.append(("advance", position))

    def end(self) -> None:
        self.events.append(("end", None))


def _session(path: Path, entries: int, pad: int = 0) -> None:
    lines = [{"type": "session", "version": 3, "id": "s-progress", "timestamp": "2026-01-01T00:00:00.000Z",
              "cwd": "/p"}]
    parent = None
    for number in range(entries):
        entry_id = f"{number:08x}"
        lines.append({"type": "message", "id": entry_id, "parentId": parent,
                      "timestamp": "2026-01-01T00:00:01.000Z",
                      "message": {"role": "user", "content": "x" * pad + f" entry {number}", "timestamp": 1}})
        parent = entry_id
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _catch_up(index: Path, session: Path) -> None:
    conn = open_index(str(index))
    try:
        catch_up(conn, str(session))
    finally:
        conn.close()


def test_no_listener_means_no_report() -> None:
    with scanning("s.jsonl", 0, 10) as report:
        report(5)  # goes nowhere, and says nothing


def test_watching_none_silences_an_outer_listener(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    _session(session, 3)
    recorder = Recorder()
    with watching(recorder), watching(None):
        _catch_up(tmp_path / "index.sqlite", session)
    assert recorder.events == []
    with watching(recorder):  # the outer listener is back after the inner block
        _catch_up(tmp_path / "index2.sqlite", session)
    assert recorder.events[0][0] == "begin"


def test_a_build_reports_the_file_from_zero_to_its_size_in_order(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    _session(session, 3000, pad=2000)  # about 6 MB: several read chunks
    recorder = Recorder()
    with watching(recorder):
        _catch_up(tmp_path / "index.sqlite", session)
    size = session.stat().st_size
    assert recorder.events[0] == ("begin", (str(session), 0, size))
    assert recorder.events[-1] == ("end", None)
    positions = [value for kind, value in recorder.events if kind == "advance"]
    assert len(positions) > 1
    assert positions == sorted(positions)
    assert all(isinstance(p, int) and 0 <= p < size for p in positions)


def test_an_append_reports_only_the_new_bytes(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    index = tmp_path / "index.sqlite"
    _session(session, 10)
    _catch_up(index, session)
    before = session.stat().st_size
    with session.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps({"type": "message", "id": "0000000a", "parentId": "00000009",
                                 "timestamp": "2026-01-01T00:00:02.000Z",
                                 "message": {"role": "user", "content": "more", "timestamp": 2}}) + "\n")
    recorder = Recorder()
    with watching(recorder):
        _catch_up(index, session)
    begins = [value for kind, value in recorder.events if kind == "begin"]
    assert begins == [(str(session), before, session.stat().st_size)]


def test_an_unchanged_file_scans_nothing(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    index = tmp_path / "index.sqlite"
    _session(session, 10)
    _catch_up(index, session)
    recorder = Recorder()
    with watching(recorder):
        _catch_up(index, session)
    assert recorder.events == []


def test_the_listener_is_gone_after_the_block(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    _session(session, 5)
    recorder = Recorder()
    with watching(recorder):
        pass
    _catch_up(tmp_path / "index.sqlite", session)
    assert recorder.events == []
