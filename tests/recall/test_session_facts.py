"""The session facts from the index (header id, default leaf, provider at the leaf from the index's
model facts and seal, ``indexed_session_facts`` and ``provider_in_index`` of
``reference.recall.model_facts``) equal the exact path's (``parsed_session_facts``:
the whole parse and Pi's context settings), and the warm path answers whenever the projection
can prove them; a one-shot search and status print the same envelopes either way.
"""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.fixturegen.generator import generate
from reference.fixturegen.options import GenOptions
from reference.pi.exact.session import load_session
from reference.pi.leaf import DEFAULT_LEAF
from reference.recall import history_state
from reference.recall import model_facts as facts_module
from reference.recall.catchup import catch_up
from reference.recall.index_schema import open_index
from reference.recall.model_facts import (
    default_leaf_id,
    indexed_session_facts,
    provider_in_index,
    sealed_default_leaf,
)

CWD = "/home/user/projects/warm"
SID = "s-warm"


def _ts(n: int) -> str:
    return f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


def _line(value: Any) -> bytes:
    return (value if isinstance(value, bytes) else json.dumps(value).encode()) + b"\n"


KINDS = ("user", "assistant", "assistant-no-provider", "assistant-odd-provider", "model_change",
         "model_change-odd", "thinking", "custom", "compaction", "branch_summary", "unbuildable",
         "message-null", "message-odd")


def _entry(kind: str, entry_id: str, parent: str | None, n: int, rng: random.Random, ids: list[str]) -> Any:
    base = {"id": entry_id, "parentId": parent, "timestamp": _ts(n)}
    provider = rng.choice(("anthropic", "openai", "google"))
    if kind == "user":
        return {"type": "message", **base, "message": {"role": "user", "content": f"hi {n}", "timestamp": n}}
    if kind.startswith("assistant"):
        message: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": f"ok {n}"}],
                                   "model": "m", "timestamp": n}
        if kind == "assistant":
            message["provider"] = provider
        elif kind == "assistant-odd-provider":
            message["provider"] = 7
        return {"type": "message", **base, "message": message}
    if kind.startswith("model_change"):
        return {"type": "model_change", **base, "provider": provider if kind == "model_change" else None,
                "modelId": "m"}
    if kind == "thinking":
        return {"type": "thinking_level_change", **base, "thinkingLevel": "high"}
    if kind == "custom":
        return {"type": "custom", **base, "customType": "x", "data": {}}
    if kind == "compaction":
        kept = rng.choice(ids) if ids else entry_id
        return {"type": "compaction", **base, "summary": "s", "firstKeptEntryId": kept, "tokensBefore": 1}
    if kind == "branch_summary":
        return {"type": "branch_summary", **base, "fromId": parent or entry_id, "summary": "b"}
    if kind == "unbuildable":
        return {"type": "message", **base}
    if kind == "message-null":
        return {"type": "message", **base, "message": None}
    return {"type": "message", **base, "message": "text"}


#: What a session may hold beyond branches: parents that are missing, empty or later in the
#: file (cycles), repeated ids, blank and malformed lines, message entries without a message.
ODDITIES = ("links", "repeats", "lines", "unbuildable")


def write_session(path: Path, rng: random.Random, count: int, odd: tuple[str, ...] = ()) -> list[str]:
    """A session with branches and the ``odd`` shapes of :data:`ODDITIES`; its ids in file order."""
    kinds = KINDS if "unbuildable" in odd else KINDS[:10]
    ids: list[str] = []
    lines = [_line({"type": "session", "version": 3, "id": SID, "timestamp": _ts(0), "cwd": CWD})]
    for n in range(count):
        entry_id = f"e{n:03d}"
        if "repeats" in odd and ids and rng.random() < 0.08:
            entry_id = rng.choice(ids)  # a repeated id: the later line is the entry
        roll = rng.random()
        parent: str | None = ids[-1] if ids and roll < 0.7 else rng.choice(ids) if ids and roll < 0.85 else None
        if "links" in odd and rng.random() < 0.25:
            parent = rng.choice(["gone", "", f"e{rng.randrange(count):03d}"])  # missing, empty, maybe later
        lines.append(_line(_entry(rng.choice(kinds), entry_id, parent, n + 1, rng, ids)))
        if "lines" in odd and rng.random() < 0.03:
            lines.append(rng.choice([b"\n", b"{not json\n"]))
        ids.append(entry_id)
    path.write_bytes(b"".join(lines))
    return ids


def _index(tmp_path: Path, session: Path) -> Path:
    index = tmp_path / "index.sqlite"
    conn = open_index(index)
    try:
        catch_up(conn, str(session))
    finally:
        conn.close()
    return index


def _leaves(ids: list[str]) -> list[Any]:
    return [DEFAULT_LEAF, None, "", "gone", 5, *dict.fromkeys(ids)]


def _check(session: Path, index: Path, ids: list[str]) -> int:
    """Every leaf's facts from the index equal the full path's, both ways the index is asked (on
    its own, and on the connection of a catch-up that has just run, as a recall asks it); how
    many the index answered."""
    answered = 0
    conn = open_index(index)
    try:
        state = catch_up(conn, str(session))  # up to date already: the cursor check alone
        for leaf in _leaves(ids):
            warm = indexed_session_facts(str(session), leaf, str(index))
            full = facts_module.parsed_session_facts(str(session), leaf)
            if warm is not None:
                answered += 1
                assert warm == full, (leaf, warm, full)
            proved, provider = provider_in_index(conn, state, leaf)
            assert proved == (warm is not None), (leaf, proved, warm)
            if proved:
                assert provider == full[1], (leaf, provider, full)
            assert facts_module.session_facts(str(session), leaf, str(index)) == full
    finally:
        conn.close()
    return answered


@examples(deep=80, ci=25, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 40), st.sets(st.sampled_from(ODDITIES)))
def test_warm_facts_equal_the_full_path(tmp_path_factory: pytest.TempPathFactory, rng: random.Random,
                                         count: int, odd: set[str]) -> None:
    tmp_path = tmp_path_factory.mktemp("warm")
    session = tmp_path / "session.jsonl"
    ids = write_session(session, rng, count, tuple(sorted(odd)))
    index = _index(tmp_path, session)
    answered = _check(session, index, ids)
    if odd <= {"links"}:  # missing parents and cycles are walked; only "" is left to the full path
        assert answered == len(_leaves(ids)) - 1


def test_cycles_and_missing_parents_are_walked(tmp_path: Path) -> None:
    """A parent cycle without a model fact, one with a fact, and a walk that ends at a missing parent."""
    rng = random.Random(2)
    header = {"type": "session", "version": 3, "id": SID, "timestamp": _ts(0), "cwd": CWD}
    shapes = [("a1", "a2", "user"), ("a2", "a1", "user"), ("b1", "b2", "assistant"), ("b2", "b1", "user"),
              ("c0", None, "model_change"), ("c1", "gone", "user"), ("c2", "c1", "user"), ("d1", "", "user")]
    values = [_entry(kind, entry_id, parent, n + 1, rng, []) for n, (entry_id, parent, kind) in enumerate(shapes)]
    session = tmp_path / "session.jsonl"
    session.write_bytes(b"".join(_line(v) for v in [header, *values]))
    index = _index(tmp_path, session)
    assert _check(session, index, [s[0] for s in shapes]) == len(shapes) + 4


@pytest.mark.parametrize(("kinds", "provider"), [
    (["user", "model_change", "user"], "p1"),
    (["user", "assistant", "user"], "p1"),
    (["user", "thinking", "custom"], None),
    (["model_change", "assistant", "user"], "p1"),
    (["assistant", "model_change-odd", "user"], None),
    (["model_change", "assistant-odd-provider"], None),
])
def test_the_last_model_fact_on_the_path_wins(tmp_path: Path, kinds: list[str], provider: str | None) -> None:
    session = tmp_path / "session.jsonl"
    rng = random.Random(1)
    values = [_entry(kind, f"e{n}", f"e{n - 1}" if n else None, n + 1, rng, []) for n, kind in enumerate(kinds)]
    for value in values:  # one provider name, so the expected answer is fixed
        for holder in (value, value.get("message")):
            if isinstance(holder, dict) and isinstance(holder.get("provider"), str):
                holder["provider"] = "p1"
    header = {"type": "session", "version": 3, "id": SID, "timestamp": _ts(0), "cwd": CWD}
    session.write_bytes(b"".join(_line(v) for v in [header, *values]))
    index = _index(tmp_path, session)
    assert indexed_session_facts(str(session), DEFAULT_LEAF, str(index)) == (SID, provider)
    assert facts_module.parsed_session_facts(str(session), DEFAULT_LEAF) == (SID, provider)


def _generated(tmp_path: Path, **options: Any) -> Path:
    (generated,) = generate(tmp_path / "gen", GenOptions(seed=options.pop("seed", 7), sessions=1, **options))
    return generated.path


@pytest.mark.parametrize("options", [
    {"entries": 120, "compactions": 2, "branches": 3},
    {"entries": 60, "siblings": 3, "crlf": True},
    {"entries": 60, "malformed": 2, "blank": 2},
    {"entries": 40, "torn_tail": True},
])
def test_generated_sessions(tmp_path: Path, options: dict[str, Any]) -> None:
    session = _generated(tmp_path, **options)
    ids = [record.id for record in load_session(session).entries if isinstance(record.id, str)]
    index = _index(tmp_path, session)
    answered = _check(session, index, ids)
    if not (options.get("malformed") or options.get("torn_tail")):
        assert answered == len(_leaves(ids)) - 1


def test_sealed_default_leaf_is_the_index_default_leaf(tmp_path: Path) -> None:
    session = _generated(tmp_path, entries=80, branches=2)
    index = _index(tmp_path, session)
    conn = sqlite3.connect(index)
    sid = load_session(session).session_id
    assert sealed_default_leaf(conn, sid) == (default_leaf_id(conn, sid),)
    conn.close()


def test_an_index_without_facts_is_backfilled_and_appends_extend_the_seal(tmp_path: Path) -> None:
    session = tmp_path / "session.jsonl"
    ids = write_session(session, random.Random(3), 30)
    index = _index(tmp_path, session)
    conn = open_index(index)
    conn.execute("DELETE FROM recall_rebase_session_seals")  # as an index from before the facts
    conn.execute("DELETE FROM recall_rebase_model_facts")
    assert indexed_session_facts(str(session), DEFAULT_LEAF, str(index)) is None
    state = catch_up(conn, str(session))
    assert not state.rebuilt and state.appended == 0  # a backfill, not a rebuild
    assert _check(session, index, ids) == len(_leaves(ids)) - 1
    with session.open("ab") as stream:
        stream.write(_line(_entry("model_change", "z1", ids[-1], 99, random.Random(0), ids)))
        stream.write(_line(_entry("user", "z2", "z1", 100, random.Random(0), ids)))
    assert indexed_session_facts(str(session), DEFAULT_LEAF, str(index)) is None  # not caught up yet
    assert catch_up(conn, str(session)).appended == 2
    assert _check(session, index, [*ids, "z1", "z2"]) == len(_leaves(ids)) + 1
    conn.close()


@pytest.mark.parametrize("edit", [
    "DELETE FROM entries WHERE entry_id = 'e005'",
    "UPDATE entries SET parent_id = NULL WHERE entry_id = 'e010'",
    "DELETE FROM recall_rebase_model_facts WHERE entry_key = (SELECT min(entry_key) FROM recall_rebase_model_facts)",
    "DELETE FROM entry_source_locations WHERE entry_key = 's-warm:e003'",
])
def test_a_hand_edit_of_the_index_drops_the_seal(tmp_path: Path, edit: str) -> None:
    session = tmp_path / "session.jsonl"
    write_session(session, random.Random(5), 20)
    index = _index(tmp_path, session)
    conn = sqlite3.connect(index)
    conn.execute(edit)
    conn.commit()
    conn.close()
    assert indexed_session_facts(str(session), DEFAULT_LEAF, str(index)) is None


def test_a_changed_file_is_not_warm(tmp_path: Path) -> None:
    session = tmp_path / "session.jsonl"
    write_session(session, random.Random(6), 20)
    index = _index(tmp_path, session)
    data = session.read_bytes()
    session.write_bytes(data.replace(b'"p', b'"q', 1) if b'"p' in data else data + b"\n")
    assert indexed_session_facts(str(session), DEFAULT_LEAF, str(index)) is None
    assert indexed_session_facts(str(session), DEFAULT_LEAF, str(tmp_path / "none.sqlite")) is None
    assert not (tmp_path / "none.sqlite").exists()


@pytest.mark.parametrize("change", ["tail", "header", "rewritten", "moved", "stamp-lost"])
def test_a_file_changed_behind_its_size_and_mtime_is_not_warm(tmp_path: Path, change: str) -> None:
    """Same size and mtime, but other bytes, another file or another path: the catch-up's cursor
    check (the stamp, the path, the hashes) refuses it, and so must the index's answer."""
    session = tmp_path / "session.jsonl"
    write_session(session, random.Random(7), 20)
    index = _index(tmp_path, session)
    assert indexed_session_facts(str(session), DEFAULT_LEAF, str(index)) is not None
    before = session.stat()
    data = session.read_bytes()
    first = data.index(b"\n")
    if change == "tail":
        data = data[:-3] + (b"x" if data[-3:-2] != b"x" else b"y") + data[-2:]
    elif change == "header":
        data = data[: first - 3] + (b"x" if data[first - 3 : first - 2] != b"x" else b"y") + data[first - 2 :]
    if change == "moved":
        session = session.rename(tmp_path / "moved.jsonl")
    elif change == "stamp-lost":
        with sqlite3.connect(index) as conn:
            conn.execute("DELETE FROM recall_rebase_file_stamps")
    else:
        session.write_bytes(data)
    os.utime(session, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert session.stat().st_size == before.st_size
    assert indexed_session_facts(str(session), DEFAULT_LEAF, str(index)) is None


# --------------------------------------------------------------------------- one-shot envelopes

_REF = re.compile(rb"hist_[0-9a-f]{32}")


def _one_shot(capsys: pytest.CaptureFixture[str], argv: list[str]) -> bytes:
    from reference.cli.main import main

    main(argv)
    return _REF.sub(b"hist_REF", capsys.readouterr().out.encode())




def _project_session(tmp_path: Path, seed: int, entries: int, *, in_project: bool = True) -> tuple[Path, Path]:
    """A project folder and a session of ``entries`` entries whose header cwd is that folder (or not)."""
    project = tmp_path / "project"
    project.mkdir()
    session = tmp_path / "session.jsonl"
    write_session(session, random.Random(seed), entries)
    if in_project:
        session.write_bytes(session.read_bytes().replace(CWD.encode(), str(project).encode(), 1))
    return project, session


def _enter(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, project: Path) -> None:
    """A user's one-shot: an empty home, run from the project folder."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(project)


def _parse_for_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact path: the index proves no fact, so the provider comes from parsing the session."""
    monkeypatch.setattr(facts_module, "indexed_session_facts", lambda *a: None)
    monkeypatch.setattr(history_state, "provider_in_index", lambda *a: (False, None))


def _not_parsed(*_args: Any) -> Any:
    pytest.fail("the session was parsed")


@pytest.mark.parametrize("query", ["ok", "hi 3", "`e001`"])
def test_one_shot_envelopes_are_those_of_the_full_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    project, session = _project_session(tmp_path, 9, 60)
    _enter(monkeypatch, tmp_path, project)
    index = str(tmp_path / "index.sqlite")
    common = ["--session", str(session), "--index", index, "--json"]
    for argv in (["history", "search", query, *common], ["history", "status", *common],
                 ["history", "search", query, "--leaf", "e030", *common]):
        _one_shot(capsys, argv)  # builds the index on the first run
        monkeypatch.setattr(facts_module, "parsed_session_facts", _not_parsed)
        warm = _one_shot(capsys, argv)  # the warm path answered: the full path was not taken
        monkeypatch.undo()
        _enter(monkeypatch, tmp_path, project)
        _parse_for_the_provider(monkeypatch)
        full = _one_shot(capsys, argv)
        monkeypatch.undo()
        _enter(monkeypatch, tmp_path, project)
        assert warm == full


def test_the_host_opens_a_warm_session_without_parsing_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reference.recall.host import HistoryHostState, HistoryOpening

    session = tmp_path / "session.jsonl"
    write_session(session, random.Random(11), 40)
    index = _index(tmp_path, session)
    expected = facts_module.parsed_session_facts(str(session), DEFAULT_LEAF)
    monkeypatch.setattr(facts_module, "inspect_report", lambda *a, **k: pytest.fail("the session was parsed"))
    opened = HistoryHostState().open(HistoryOpening.from_params({"home": str(tmp_path / "home"), "cwd": CWD,
                                                                 "sessionFile": str(session), "indexPath": str(index)}))
    assert (opened.host.session_id, opened.host.provider) == expected


def test_a_session_whose_id_extends_another_keeps_its_facts(tmp_path: Path) -> None:
    """Keys ``"<id>:…"`` of session ``s-warm`` and of session ``s-warm:x`` share a range: the
    entry ``x:e001`` of the first has the key of the entry ``e001`` of the second."""
    rng = random.Random(12)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    header = {"type": "session", "version": 3, "id": SID, "timestamp": _ts(0), "cwd": CWD}
    users = [_entry("user", f"e{n:03d}", f"e{n - 1:03d}" if n else None, n + 1, rng, []) for n in range(3)]
    second.write_bytes(b"".join(_line(v) for v in [{**header, "id": f"{SID}:x"}, *users]))
    first.write_bytes(b"".join(_line(v) for v in [header, _entry("model_change", "x:e001", None, 1, rng, [])]))
    index = tmp_path / "index.sqlite"
    conn = open_index(index)
    catch_up(conn, str(second))
    catch_up(conn, str(first))  # its one entry's key is the second session's: skipped
    conn.execute("DELETE FROM recall_rebase_session_seals WHERE session_id = ?", (SID,))
    catch_up(conn, str(first))  # no backfill over the other session's keys
    conn.close()
    assert _check(second, index, ["e000", "e001", "e002"]) == 7
    _check(first, index, ["x:e001"])


def test_the_interactive_host_reads_its_index_option_warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``recall-rebase host --index PATH``: the warm facts come from that index, not the default one."""
    import io

    from reference.cli.interactive import run_host
    from reference.recall.host import HistoryOpening

    session = tmp_path / "session.jsonl"
    write_session(session, random.Random(13), 40)
    index = _index(tmp_path, session)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(facts_module, "inspect_report", lambda *a, **k: pytest.fail("the session was parsed"))
    out = io.StringIO()
    code = run_host(stdio=False, stdin=io.StringIO("/context history status\n/quit\n"), stdout=out,
                    start=HistoryOpening(home=str(tmp_path / "home"), cwd=CWD, env=dict(os.environ), argv=(),
                                         session_file=str(session), index_path=str(index)))
    assert code == 0
    assert "indexedEntries" in out.getvalue() or "indexed" in out.getvalue()


def test_a_first_search_builds_the_index_before_it_needs_the_provider(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """With no index yet, a one-shot search catches up first and takes the provider from the fresh
    projection: no parse of the whole session, and the envelope of the full path."""
    project, session = _project_session(tmp_path, 21, 60)
    _enter(monkeypatch, tmp_path, project)
    argv = ["history", "search", "ok", "--session", str(session), "--json"]
    monkeypatch.setattr(facts_module, "parsed_session_facts", _not_parsed)
    first = _one_shot(capsys, [*argv, "--index", str(tmp_path / "first.sqlite")])
    monkeypatch.undo()
    _enter(monkeypatch, tmp_path, project)
    _parse_for_the_provider(monkeypatch)  # as before: the provider parsed
    full = _one_shot(capsys, [*argv, "--index", str(tmp_path / "full.sqlite")])
    assert first == full


def test_a_first_search_of_another_project_still_refuses_as_before(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The early catch-up meets the scope mismatch and leaves it to the recall: the same envelope."""
    project, session = _project_session(tmp_path, 22, 20, in_project=False)  # its header cwd is another
    _enter(monkeypatch, tmp_path, project)
    argv = ["history", "search", "ok", "--session", str(session), "--json"]
    early = _one_shot(capsys, [*argv, "--index", str(tmp_path / "a.sqlite")])
    _parse_for_the_provider(monkeypatch)  # the provider parsed, never read from the index
    plain = _one_shot(capsys, [*argv, "--index", str(tmp_path / "b.sqlite")])
    assert early == plain
