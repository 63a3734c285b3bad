"""The one ``session inspect`` against the exact oracle: the same bytes for every leaf of a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reference.cli.session_command import render_inspect
from reference.pi.exact.inspection import inspect_session
from reference.pi.exact.session import load_session
from reference.pi.leaf import DEFAULT_LEAF
from reference.pi.session_inspect import describe_model, inspect_report, inspectable_model, report_json
from reference.primitives.errors import ContractViolation
from reference.primitives.jsonbytes import js_stringify


def _answer(read: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "ok", read(*args, **kwargs)
    except ContractViolation as exc:
        return "refused", (exc.code, exc.message)


def leaves_of(path: Path, limit: int = 40) -> list[Any]:
    """Pi's default leaf, the empty leaf, odd leaves and up to ``limit`` entry ids spread over the file."""
    try:
        ids = [r.id for r in load_session(path).entries]
    except ContractViolation:
        ids = []
    step = max(1, len(ids) // limit)
    return [DEFAULT_LEAF, None, 7, "no-such-entry", *ids[::step], *ids[-3:]]


def assert_same_inspection(path: Path, *, quick: bool | None = None, leaves: list[Any] | None = None) -> None:
    """The one inspect's JSON, its values (the adapter's answer) and readable text are the exact
    path's for every leaf; ``quick``: whether the file must (True) or must not (False) be read
    through the session model."""
    session = inspectable_model(path)
    if quick is not None:
        assert (session is not None) is quick, f"model taken: {session is not None}, expected {quick}"
    for leaf in leaves if leaves is not None else leaves_of(path):
        exact = _answer(inspect_session, path, leaf)
        fast = _answer(inspect_report, path, leaf)
        assert fast[0] == exact[0], (path, leaf, fast, exact)
        if exact[0] == "refused":
            assert fast == exact
            continue
        expected = js_stringify(exact[1]) + "\n"
        assert b"".join(report_json(fast[1])).decode() == expected, (path, leaf)
        assert _answer(inspect_report, path, leaf, values=True) == exact, (path, leaf)
        summary = _answer(inspect_report, path, leaf, messages=False)
        assert summary[0] == "ok" and render_inspect(summary[1]) == render_inspect(exact[1]), (path, leaf)
        if session is not None:  # the model itself, without the fallback
            assert b"".join(report_json(describe_model(session, leaf))).decode() == expected, (path, leaf)
