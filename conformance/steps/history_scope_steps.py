"""Steps for the SCOPE and PRIVACY history scenarios (contract §2.5, §2.7, §2.10, §2.11, §3.3 step 7).

They build on :mod:`conformance.steps.history_steps` (its project, session and tool steps) and add
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
from conformance.steps.history_steps import State, _history, _last, _lines, _open, _record

_REPEAT = re.compile(r"\{([^{}*]+)\*(\d+)\}")
#: The markers this suite writes (contract §2.10), for computing a marker-free text.
_MARKER = re.compile(r"\[/?ds4:(?:normal|internal|sensitive|local-only)\]", re.IGNORECASE)
_ELLIPSIS = "\u2026"


def _expand(text: str) -> str:
    return _REPEAT.sub(lambda m: m.group(1) * int(m.group(2)), text)


def _current_path(state: State) -> Path:
    path: Path = _history(state)["sessions"]["current"]
    return path


def _append_message(state: State, entry_id: str, text: str) -> None:
    """A user message whose parent is the file's last entry, so it becomes the default leaf."""
    path = _current_path(state)
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
    _history(state).setdefault("texts", {})[entry_id] = text


def _symlink(link: Path, target: Path) -> None:
    try:
        link.symlink_to(target)
    except (OSError, NotImplementedError) as exc:  # INTERPRETING: fail, naming the missing primitive
        raise AssertionError(f"this platform cannot create a symbolic link (needed primitive: symlink): {exc}") from None


# ------------------------------------------------------------------ given: files


@given(parsers.parse('the history project has a subfolder "{name}"'))
def given_project_subfolder(scenario_state: State, name: str) -> None:
    (Path(_history(scenario_state)["cwd"]) / name).mkdir(parents=True, exist_ok=True)


@given(parsers.parse('the history session "{name}" in the sessions subfolder "{folder}" with these lines:'))
def given_nested_session(scenario_state: State, name: str, folder: str, docstring: str) -> None:
    history = _history(scenario_state)
    path = Path(history["folder"]) / folder / f"{name}.jsonl"
    _record(scenario_state, name, path, _lines(docstring, history["cwd"]))


@given(parsers.parse('a symbolic link "{name}.jsonl" in the sessions folder to a session with these lines:'))
def given_linked_session(workdir: Path, scenario_state: State, name: str, docstring: str) -> None:
    history = _history(scenario_state)
    target = workdir / "elsewhere" / f"{name}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(_lines(docstring, history["cwd"]))
    link = Path(history["folder"]) / f"{name}.jsonl"
    _symlink(link, target)
    history["sessions"][name] = link


@given(parsers.parse('the sessions folder has a folder named "{name}"'))
def given_sessions_subfolder(scenario_state: State, name: str) -> None:
    (Path(_history(scenario_state)["folder"]) / name).mkdir(parents=True, exist_ok=True)


@given(parsers.parse('the sessions folder has a file "{name}" holding "{content}"'))
def given_raw_sibling(scenario_state: State, name: str, content: str) -> None:
    history = _history(scenario_state)
    _record(scenario_state, name.removesuffix(".jsonl"), Path(history["folder"]) / name,
            (content + "\n").encode("utf-8"))


@given("the current history session gets these entries:")
def given_entries(scenario_state: State, docstring: str) -> None:
    history = _history(scenario_state)
    with _current_path(scenario_state).open("ab") as handle:
        handle.write(_lines(docstring, history["cwd"]))


@given(parsers.parse('the current history session gets a user message "{entry_id}" with this text:'))
def given_message(scenario_state: State, entry_id: str, docstring: str) -> None:
    _append_message(scenario_state, entry_id, _expand(docstring))


@given(parsers.parse('the current history session gets a user message "{entry_id}" of {count:d} lines that each say "{text}"'))
def given_many_lines(scenario_state: State, entry_id: str, count: int, text: str) -> None:
    _append_message(scenario_state, entry_id, "\n".join([text] * count))


# ------------------------------------------------------------------ when: host facts


@given("the history host opens the current session with no model provider")
@when("the history host opens the current session with no model provider")
def when_open_no_provider(adapter: Adapter, scenario_state: State) -> None:
    _open(adapter, scenario_state, provider=None)


@when("the hits are remembered")
def when_hits_remembered(scenario_state: State) -> None:
    _history(scenario_state)["remembered"] = _hit_summary(_last(scenario_state))


# ------------------------------------------------------------------ then


def _hit_summary(result: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return sorted((h["sessionId"], h["entryId"], h["relation"], h["classification"]) for h in result.get("hits", []))


def _hit(state: State, entry_id: str) -> dict[str, Any]:
    hits: list[dict[str, Any]] = _last(state).get("hits", [])
    found = [h for h in hits if h["entryId"] == entry_id]
    assert len(found) == 1, f"expected one hit {entry_id!r}, got {[h['entryId'] for h in hits]}"
    return found[0]


def _public_id(raw: str, how: str) -> str:
    if how == "as is":
        return raw
    assert how == "opaque", f"unknown way to show an id: {how!r}"
    return "opaque_" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:24]


@then(parsers.parse('the effective scope is "{scope}"'))
def then_effective_scope(scenario_state: State, scope: str) -> None:
    assert _last(scenario_state).get("effectiveScope") == scope, _last(scenario_state)


@then(parsers.parse('the hit "{entry_id}" has relation "{relation}"'))
def then_hit_relation(scenario_state: State, entry_id: str, relation: str) -> None:
    hit = _hit(scenario_state, entry_id)
    assert hit["relation"] == relation, hit


@then(parsers.parse('the hits, in any order, are "{ids}"'))
def then_hits_any_order(scenario_state: State, ids: str) -> None:
    got = sorted(h["entryId"] for h in _last(scenario_state)["hits"])
    assert got == sorted(ids.split()), _last(scenario_state)


@then(parsers.parse("the recall found {count:d} hits"))
def then_hit_count(scenario_state: State, count: int) -> None:
    hits = _last(scenario_state)["hits"]
    assert len(hits) == count, [(h["sessionId"], h["entryId"]) for h in hits]


@then("the hits are the remembered ones")
def then_same_hits(scenario_state: State) -> None:
    assert _hit_summary(_last(scenario_state)) == _history(scenario_state)["remembered"], _last(scenario_state)


@then(parsers.parse('every hit from the session "{name}" has relation "{relation}"'))
def then_session_relation(scenario_state: State, name: str, relation: str) -> None:
    path: Path = _history(scenario_state)["sessions"][name]
    session_id = json.loads(path.read_bytes().split(b"\n", 1)[0])["id"]
    hits = [h for h in _last(scenario_state)["hits"] if h["sessionId"] == session_id]
    assert hits and all(h["relation"] == relation for h in hits), _last(scenario_state)


@then(parsers.parse('no result contains "{text}"'))
def then_no_result_contains(scenario_state: State, text: str) -> None:
    results = _history(scenario_state)["results"]
    for result in results:
        assert text not in json.dumps(result, ensure_ascii=False), result
        assert text not in json.dumps(result), result


@then(parsers.parse('the first hit\'s excerpt contains "{text}"'))
def then_excerpt_contains(scenario_state: State, text: str) -> None:
    hit = _last(scenario_state)["hits"][0]
    assert text in hit["excerpt"], hit


@then(parsers.parse('the first hit\'s excerpt does not contain "{text}"'))
def then_excerpt_lacks(scenario_state: State, text: str) -> None:
    hit = _last(scenario_state)["hits"][0]
    assert text not in hit["excerpt"], hit


@then(parsers.parse('the first hit\'s excerpt is "{text}"'))
def then_excerpt_is(scenario_state: State, text: str) -> None:
    hit = _last(scenario_state)["hits"][0]
    assert hit["excerpt"] == text, hit


@then(parsers.parse('the first hit\'s excerpt is units {start:d} to {end:d} of the marker-free text of "{entry_id}", '
                    "between ellipses"))
def then_excerpt_window(scenario_state: State, start: int, end: int, entry_id: str) -> None:
    text = _MARKER.sub("", _history(scenario_state)["texts"][entry_id])
    assert text.isascii()  # units are characters here
    hit = _last(scenario_state)["hits"][0]
    assert hit["excerpt"] == _ELLIPSIS + text[start:end] + _ELLIPSIS, hit["excerpt"][:80]
    assert hit["truncated"] is True, hit


@then(parsers.parse('the read text does not contain "{text}"'))
def then_read_lacks(scenario_state: State, text: str) -> None:
    result = _last(scenario_state)
    assert result["status"] in ("complete", "partial") and text not in result["text"], result


@then(parsers.parse('the read classification is "{level}"'))
def then_read_classification(scenario_state: State, level: str) -> None:
    result = _last(scenario_state)
    assert result["source"]["classification"] == level, result


@then(parsers.parse('the first hit\'s {field} is "{raw}" shown {how}'))
def then_hit_public_id(scenario_state: State, field: str, raw: str, how: str) -> None:
    key = {"entry id": "entryId", "session id": "sessionId"}[field]
    hit = _last(scenario_state)["hits"][0]
    assert hit[key] == _public_id(raw, how), hit


@then(parsers.parse('the read source\'s {field} is "{raw}" shown {how}'))
def then_read_public_id(scenario_state: State, field: str, raw: str, how: str) -> None:
    key = {"entry id": "entryId", "session id": "sessionId"}[field]
    source = _last(scenario_state)["source"]
    assert source[key] == _public_id(raw, how), source


@then("every hit's project id is the hash of the canonical project path")
def then_project_id(scenario_state: State) -> None:
    canonical = str(Path(_history(scenario_state)["cwd"]).resolve())
    if sys.platform == "win32":
        canonical = canonical.lower()
    expected = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:20]
    hits = _last(scenario_state)["hits"]
    assert hits and all(h["projectId"] == expected for h in hits), (expected, hits)
