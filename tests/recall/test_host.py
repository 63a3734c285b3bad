"""The history host reads the current session once for its header id and the provider at the
leaf, with the answers of the two reads it replaces (the first line's id, ``session inspect``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference.pi.exact.inspection import inspect_session
from reference.pi.exact.reader import read_header_line
from reference.pi.leaf import DEFAULT_LEAF
from reference.primitives.errors import ContractViolation
from reference.recall.model_facts import session_facts

HEADER = {"type": "session", "version": 3, "id": "s-host", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
USER = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "Hello.", "timestamp": 1767225601000}}
MODEL = {"type": "model_change", "id": "m1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z",
         "provider": "anthropic", "modelId": "claude"}
BROKEN = {"type": "message", "id": "b1", "parentId": "m1", "timestamp": "2026-01-01T00:00:03.000Z"}


def _lines(*values: Any) -> bytes:
    return b"".join((v if isinstance(v, bytes) else json.dumps(v).encode()) + b"\n" for v in values)


FILES = {
    "plain": _lines(HEADER, USER, MODEL),
    "crlf": _lines(HEADER, USER, MODEL).replace(b"\n", b"\r\n"),
    "bom": b"\xef\xbb\xbf" + _lines(HEADER, USER, MODEL),
    "blank first line": b"\n" + _lines(HEADER, USER, MODEL),
    "no header": _lines(USER, MODEL),
    "legacy": _lines({**HEADER, "version": 1}, USER),
    "unbuildable context": _lines(HEADER, USER, MODEL, BROKEN),
    "header only, unterminated": json.dumps(HEADER).encode(),
    "not json": b"\x00\x01binary",
}


def _two_reads(path: str, leaf: Any) -> tuple[str | None, str | None]:
    """The facts as the host read them before: ``session inspect``, then the first line."""
    try:
        model = (inspect_session(path, leaf).get("settings") or {}).get("model")
        provider = model.get("provider") if isinstance(model, dict) else None
        provider = provider if isinstance(provider, str) else None
    except ContractViolation:
        provider = None
    try:
        value = read_header_line(path).get("id")
    except (OSError, ValueError):
        value = None
    return (value if isinstance(value, str) else None), provider


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("leaf", [DEFAULT_LEAF, None, "u1", "gone"])
def test_session_facts_are_those_of_the_two_reads(tmp_path: Path, name: str, leaf: Any) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(FILES[name])
    assert session_facts(str(path), leaf) == _two_reads(str(path), leaf)


def test_a_given_provider_is_kept_and_a_missing_file_has_no_id(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(FILES["plain"])
    from reference.recall.host import HistoryOpening, open_history

    def opened(session_file: str | None, provider: str | None) -> tuple[str | None, str | None]:
        service = open_history(HistoryOpening(home=str(tmp_path / "home"), cwd=str(tmp_path), env={}, argv=(),
                                              session_file=session_file, provider=provider,
                                              index_path=str(tmp_path / "index.sqlite")))
        service.settle_provider()
        return service.host.session_id, service.host.provider

    assert opened(str(path), "openai") == ("s-host", "openai")
    assert session_facts(str(tmp_path / "never.jsonl"), DEFAULT_LEAF) == (None, None)
    assert opened(str(tmp_path / "never.jsonl"), None) == (None, None)
    assert opened(None, "openai") == (None, "openai")


def test_history_open_params_are_read_once_into_a_frozen_value(tmp_path: Path) -> None:
    """``history.open`` as the adapter reads it: absent leaf is Pi's rule, an empty index path the
    default, no env or argv empty; a host that is no string is ``invalid-params`` as before."""
    import dataclasses

    from reference.recall.host import HistoryHostState, HistoryOpening

    home, cwd = str(tmp_path / "home"), str(tmp_path / "p")
    opening = HistoryOpening.from_params({"home": home, "cwd": cwd, "indexPath": "", "sessionFile": None})
    assert (opening.leaf, opening.index_path, opening.env, tuple(opening.argv), opening.restart) == (
        DEFAULT_LEAF, None, {}, (), False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opening.leaf = None  # type: ignore[misc]
    for odd in ({"home": 1, "cwd": cwd}, {"home": home}):
        with pytest.raises(ContractViolation) as refused:
            HistoryOpening.from_params(odd)
        assert refused.value.code == "invalid-params"
    index = str(tmp_path / "index.sqlite")
    state = HistoryHostState()
    service = state.open(dataclasses.replace(opening, index_path=index, provider="ollama"))
    assert (service.index_path, service.host.provider, service.host.session_id) == (index, "ollama", None)
    assert state.open(dataclasses.replace(opening, index_path=index)) is service  # refs survive
    assert state.open(dataclasses.replace(opening, index_path=index, restart=True)) is not service
