"""The read tool's line window (``history.line_window``, ``history.read_envelope``) gives what
splitting the whole text and adding lines one by one gives, without splitting a 4 MiB text."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit.profiles import examples

from reference.primitives.errors import ContractViolation
from reference.recall import envelope as env
from reference.recall.read_window import line_window, read_envelope
from reference.recall.refs import SourceRef

TEXTS = st.lists(st.sampled_from(["a", "bc", "\n", "\r\n", "\r", "\u00e9", "\U0001f600", '"', " ", "\\"]),
                 max_size=40).map("".join)
REF = SourceRef(ref="r", session_id="s", session_file="f", project_path="/p", entry_id="e", content_hash="h",
                issuing_session_id="s", expires=0, scope="current-session", kind="message", role="user",
                timestamp=1, relation="ancestor", classification="normal", public_project_id="p",
                public_session_id="s", public_entry_id="e")


@examples(deep=200, ci=200)
@given(TEXTS, st.integers(1, 30), st.integers(1, 12))
def test_line_window_equals_the_whole_split(text: str, start: int, count: int) -> None:
    lines = re.split(r"\r?\n", text)
    total, window = line_window(text, start, count)
    assert total == len(lines)
    if start <= total:
        assert window == lines[start - 1 : start - 1 + count]


# The envelope as it was built before: every line split, then added one at a time.

def _plain_envelope(ref: SourceRef, classification: str, text: str, start_line: int, max_lines: int,
                   budget: int) -> dict[str, Any]:
    lines = re.split(r"\r?\n", text)
    if start_line > len(lines):
        raise ContractViolation("range-out-of-bounds", f"the text has {len(lines)} lines")
    result: dict[str, Any] = {
        "schema": env.SCHEMA,
        "quotedData": True,
        "status": "complete",
        "coverage": "complete",
        "warnings": [],
        "source": env.source_fields(ref, classification),
        "text": "",
        "startLine": start_line,
        "truncated": False,
    }
    last = min(len(lines), start_line - 1 + max_lines)
    included = 0
    for number in range(start_line, last + 1):
        previous = result["text"]
        result["text"] = previous + ("\n" if included else "") + lines[number - 1]
        result["truncated"] = number < len(lines)
        result["nextLine"] = number + 1
        if env.cost(result) > budget:
            result["text"] = previous
            break
        included += 1
    if included == 0:
        raise ContractViolation("line-exceeds-output-budget", "a single line does not fit the output budget")
    next_line = start_line + included
    if next_line <= len(lines):
        result["truncated"] = True
        result["nextLine"] = next_line
        result["status"] = "partial"
        result["warnings"] = ["more-lines"]
    else:
        result["truncated"] = False
        result.pop("nextLine", None)
    # The object was built with truncated, nextLine added afterwards: upstream's key order as it is.
    return result


def _read_json(*args: Any) -> dict[str, Any]:
    return read_envelope(*args).as_json()


def _outcome(build: Any, *args: Any) -> Any:
    """The result with its key order (dict equality ignores it), or the refusal's code."""
    try:
        result = build(*args)
        return list(result), result
    except ContractViolation as exc:
        return exc.code


@examples(deep=300, ci=300)
@given(TEXTS, st.integers(1, 8), st.integers(1, 10), st.integers(150, 400))
def test_read_envelope_takes_the_lines_that_fit_one_by_one(text: str, start: int, max_lines: int,
                                                           budget: int) -> None:
    args = (REF, "normal", text, start, max_lines, budget)
    assert _outcome(_read_json, *args) == _outcome(_plain_envelope, *args)


@pytest.mark.parametrize("budget", [150, 175, 200, 400])
def test_read_envelope_on_many_lines(budget: int) -> None:
    text = "\n".join(f"line {number} " + "x" * (number % 7) for number in range(500))
    for start in (1, 2, 250, 500):
        args = (REF, "normal", text, start, 200, budget)
        assert _outcome(_read_json, *args) == _outcome(_plain_envelope, *args)
