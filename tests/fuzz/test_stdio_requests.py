"""Fuzz category ``stdio_requests`` (issue 12), the ``--stdio`` server under Hypothesis: arbitrary JSON values and raw byte lines as
requests and as ``params`` never give a traceback (nor an ``errored`` answer), every line gets
exactly one answer, and the server still serves the good request that follows.

Sized by tests/fuzz/budget.py (``ci`` bounded; ``fuzz``, ``tox -e fuzz``, 1,000 per test).
The operations that write or spawn (``config.set``, ``config.unset``, ``rebase.*``) get arbitrary
params too, in a scratch working directory, with the host facts pointed into it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.stdio_lines import GOOD, GOOD_ANSWER, START, answers, serve_text

from conformance.request_checks import operation_names
from fuzz.budget import fuzz_settings
from fuzz.tally import count_case

OPERATIONS = sorted(operation_names())
PARAM_NAMES = ["path", "leaf", "id", "text", "maxUnits", "cwd", "home", "env", "argv", "value", "global",
               "sessionFile", "provider", "indexPath", "restart", "arguments", "aborted", "nowMs", "ms", "mode",
               "operationId", "layer", "point", "payload", "messages", "signalAborted", "targetSessionIds"]

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
params = st.dictionaries(st.sampled_from(PARAM_NAMES) | st.text(max_size=8), json_values, max_size=6)
raw_lines = st.binary(max_size=200).map(lambda data: data.replace(b"\n", b" "))

FUZZ = fuzz_settings("stdio_requests")


def _served(lines: list[str]) -> list[dict[str, Any]]:
    """Every line answered once, then the good request; nothing broke."""
    count_case("stdio_requests")
    output = serve_text("".join(line + "\n" for line in [START, *lines, GOOD]))
    found = answers(output)
    expected = 2 + sum(1 for line in lines if line.strip())
    assert len(found) == expected or any(a.get("ok") == {} for a in found), found  # a stop ends the run early
    if len(found) == expected:
        assert found[-1] == GOOD_ANSWER
    return found


@pytest.fixture(autouse=True)
def _scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))


@FUZZ
@given(st.lists(json_values, max_size=3))
def test_arbitrary_json_values_as_requests(values: list[Any]) -> None:
    _served([json.dumps(value) for value in values])


@FUZZ
@given(st.lists(raw_lines, max_size=3))
def test_arbitrary_byte_lines_as_requests(lines: list[bytes]) -> None:
    """Decoded as the host decodes its stdin (UTF-8, undecodable bytes as lone surrogates)."""
    _served([line.decode("utf-8", "surrogateescape").replace("\r", " ") for line in lines])


@FUZZ
@given(st.sampled_from(OPERATIONS), json_values | params)
def test_arbitrary_params_for_every_operation(op: str, value: Any) -> None:
    found = _served([json.dumps({"seq": 2, "cmd": "request", "op": op, "params": value})])
    assert set(found[1]) in ({"seq", "ok"}, {"seq", "error"})


@FUZZ
@given(st.sampled_from(OPERATIONS), params, st.binary(min_size=1, max_size=40))
def test_raw_bytes_inside_params(op: str, value: dict[str, Any], junk: bytes) -> None:
    line = json.dumps({"seq": 2, "cmd": "request", "op": op, "params": value})
    cut = len(line) // 2
    text = junk.replace(b"\n", b" ").replace(b"\r", b" ").decode("utf-8", "surrogateescape")
    _served([line[:cut] + text + line[cut:]])
