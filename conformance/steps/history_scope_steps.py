"""Steps for the SCOPE and PRIVACY history scenarios (contract §2.5, §2.7, §2.10, §2.11, §3.3 step 7).

They build on the history host and tool steps (project, sessions, tools) and add
what scope and privacy need: sibling session files that are links, folders or nested deeper,
messages built from repeated text, configuration changes between two host openings, and checks
on relations, classifications, excerpts and public ids.  Like every step module they reach the
implementation only through the adapter.

A message text given to "gets a user message" may repeat a piece with ``{piece*N}`` (for example
``{x*2000}``); the text is kept so that a Then step can compute the expected excerpt itself.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.steps.common import symlink
from conformance.steps.history_calls import open_history, session_lines
from conformance.world import HistoryWorld

_REPEAT = re.compile(r"\{([^{}*]+)\*(\d+)\}")
#: The markers this suite writes (contract §2.10), for computing a marker-free text.
_MARKER = re.compile(r"\[/?ds4:(?:normal|internal|sensitive|local-only)\]", re.IGNORECASE)
_ELLIPSIS = "\u2026"


def _expand(text: str) -> str:
    return _REPEAT.sub(lambda m: m.group(1) * int(m.group(2)), text)


def _append_message(history: HistoryWorld, entry_id: str, text: str) -> None:
    """A user message whose parent is the file's last entry, so it becomes the default leaf."""
    path = history.current
    lines = [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    parent = next((line.get("id") for line in reversed(lines) if line.get("type") != "session"), None)
    second = len(lines)
    entry = {
        "type": "message", "id": entry_id, "parentId": parent,
        "timestamp": f"2026-01-01T00:{second // 60:02d}:{second % 60:02d}.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1767225600000 + second * 1000},
    }
    with path.open("ab") as handle:
        handle.write((json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    history.texts[entry_id] = text


# ------------------------------------------------------------------ given: files


@given(parsers.parse('the history project has a subfolder "{name}"'))
def given_project_subfolder(history: HistoryWorld, name: str) -> None:
    (history.project.cwd / name).mkdir(parents=True, exist_ok=True)


@given(parsers.parse('the history session "{name}" in the sessions subfolder "{folder}" with these lines:'))
def given_nested_session(history: HistoryWorld, name: str, folder: str, docstring: str) -> None:
    path = history.project.folder / folder / f"{name}.jsonl"
    history.record(name, path, session_lines(docstring, history.project.cwd))


@given(parsers.parse('a symbolic link "{name}.jsonl" in the sessions folder to a session with these lines:'))
def given_linked_session(workdir: Path, history: HistoryWorld, name: str, docstring: str) -> None:
    target = workdir / "elsewhere" / f"{name}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(session_lines(docstring, history.project.cwd))
    link = history.project.folder / f"{name}.jsonl"
    symlink(link, target)
    history.sessions[name] = link


@given(parsers.parse('the sessions folder has a folder named "{name}"'))
def given_sessions_subfolder(history: HistoryWorld, name: str) -> None:
    (history.project.folder / name).mkdir(parents=True, exist_ok=True)


@given(parsers.parse('the sessions folder has a file "{name}" holding "{content}"'))
def given_raw_sibling(history: HistoryWorld, name: str, content: str) -> None:
    history.record(name.removesuffix(".jsonl"), history.project.folder / name,
            (content + "\n").encode("utf-8"))


@given("the current history session gets these entries:")
def given_entries(history: HistoryWorld, docstring: str) -> None:
    with history.current.open("ab") as handle:
        handle.write(session_lines(docstring, history.project.cwd))


@given(parsers.parse('the current history session gets a user message "{entry_id}" with this text:'))
def given_message(history: HistoryWorld, entry_id: str, docstring: str) -> None:
    _append_message(history, entry_id, _expand(docstring))


@given(parsers.parse('the current history session gets a user message "{entry_id}" of {count:d} lines that each say "{text}"'))
def given_many_lines(history: HistoryWorld, entry_id: str, count: int, text: str) -> None:
    _append_message(history, entry_id, "\n".join([text] * count))


# ------------------------------------------------------------------ when: host facts


@given("the history host opens the current session with no model provider")
@when("the history host opens the current session with no model provider")
def when_open_no_provider(adapter: Adapter, history: HistoryWorld) -> None:
    open_history(adapter, history, provider=None)


@when("the hits are remembered")
def when_hits_remembered(history: HistoryWorld) -> None:
    history.remembered_hits = _hit_summary(history.last)


# ------------------------------------------------------------------ then


def _hit_summary(result: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return sorted((h["sessionId"], h["entryId"], h["relation"], h["classification"]) for h in result.get("hits", []))


def _hit(history: HistoryWorld, entry_id: str) -> dict[str, Any]:
    hits: list[dict[str, Any]] = history.last.get("hits", [])
    found = [h for h in hits if h["entryId"] == entry_id]
    assert len(found) == 1, f"expected one hit {entry_id!r}, got {[h['entryId'] for h in hits]}"
    return found[0]


def _public_id(raw: str, how: str) -> str:
    if how == "as is":
        return raw
    assert how == "opaque", f"unknown way to show an id: {how!r}"
    return "opaque_" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:24]


@then(parsers.parse('the effective scope is "{scope}"'))
def then_effective_scope(history: HistoryWorld, scope: str) -> None:
    assert history.last.get("effectiveScope") == scope, history.last


@then(parsers.parse('the hit "{entry_id}" has relation "{relation}"'))
def then_hit_relation(history: HistoryWorld, entry_id: str, relation: str) -> None:
    hit = _hit(history, entry_id)
    assert hit["relation"] == relation, hit


@then(parsers.parse('the hits, in any order, are "{ids}"'))
def then_hits_any_order(history: HistoryWorld, ids: str) -> None:
    got = sorted(h["entryId"] for h in history.last["hits"])
    assert got == sorted(ids.split()), history.last


@then(parsers.parse("the recall found {count:d} hits"))
def then_hit_count(history: HistoryWorld, count: int) -> None:
    hits = history.last["hits"]
    assert len(hits) == count, [(h["sessionId"], h["entryId"]) for h in hits]


@then("the hits are the remembered ones")
def then_same_hits(history: HistoryWorld) -> None:
    assert _hit_summary(history.last) == history.remembered_hits, history.last


@then(parsers.parse('every hit from the session "{name}" has relation "{relation}"'))
def then_session_relation(history: HistoryWorld, name: str, relation: str) -> None:
    path: Path = history.sessions[name]
    session_id = json.loads(path.read_bytes().split(b"\n", 1)[0])["id"]
    hits = [h for h in history.last["hits"] if h["sessionId"] == session_id]
    assert hits and all(h["relation"] == relation for h in hits), history.last


@then(parsers.parse('no result contains "{text}"'))
def then_no_result_contains(history: HistoryWorld, text: str) -> None:
    results = history.results
    for result in results:
        assert text not in json.dumps(result, ensure_ascii=False), result
        assert text not in json.dumps(result), result


@then(parsers.parse('the first hit\'s excerpt contains "{text}"'))
def then_excerpt_contains(history: HistoryWorld, text: str) -> None:
    hit = history.last["hits"][0]
    assert text in hit["excerpt"], hit


@then(parsers.parse('the first hit\'s excerpt does not contain "{text}"'))
def then_excerpt_lacks(history: HistoryWorld, text: str) -> None:
    hit = history.last["hits"][0]
    assert text not in hit["excerpt"], hit


@then(parsers.parse('the first hit\'s excerpt is "{text}"'))
def then_excerpt_is(history: HistoryWorld, text: str) -> None:
    hit = history.last["hits"][0]
    assert hit["excerpt"] == text, hit


@then(parsers.parse('the first hit\'s excerpt is units {start:d} to {end:d} of the marker-free text of "{entry_id}", '
                    "between ellipses"))
def then_excerpt_window(history: HistoryWorld, start: int, end: int, entry_id: str) -> None:
    text = _MARKER.sub("", history.texts[entry_id])
    assert text.isascii()  # units are characters here
    hit = history.last["hits"][0]
    assert hit["excerpt"] == _ELLIPSIS + text[start:end] + _ELLIPSIS, hit["excerpt"][:80]
    assert hit["truncated"] is True, hit


@then(parsers.parse('the read text does not contain "{text}"'))
def then_read_lacks(history: HistoryWorld, text: str) -> None:
    result = history.last
    assert result["status"] in ("complete", "partial") and text not in result["text"], result


@then(parsers.parse('the read classification is "{level}"'))
def then_read_classification(history: HistoryWorld, level: str) -> None:
    result = history.last
    assert result["source"]["classification"] == level, result


@then(parsers.parse('the first hit\'s {field} is "{raw}" shown {how}'))
def then_hit_public_id(history: HistoryWorld, field: str, raw: str, how: str) -> None:
    key = {"entry id": "entryId", "session id": "sessionId"}[field]
    hit = history.last["hits"][0]
    assert hit[key] == _public_id(raw, how), hit


@then(parsers.parse('the read source\'s {field} is "{raw}" shown {how}'))
def then_read_public_id(history: HistoryWorld, field: str, raw: str, how: str) -> None:
    key = {"entry id": "entryId", "session id": "sessionId"}[field]
    source = history.last["source"]
    assert source[key] == _public_id(raw, how), source


@then("every hit's project id is the hash of the canonical project path")
def then_project_id(history: HistoryWorld) -> None:
    canonical = str(history.project.cwd.resolve())
    if sys.platform == "win32":
        canonical = canonical.lower()
    expected = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:20]
    hits = history.last["hits"]
    assert hits and all(h["projectId"] == expected for h in hits), (expected, hits)
