"""The read result's line window (contract §3.3 steps 8-10, §3.4): the lines from ``startLine``
that fit the output budget, with ``nextLine`` and ``truncated`` when more follow.

A read shows at most a few hundred lines of a text of up to 4 MiB: the window is cut without
splitting the whole text, and the lines that fit are found by bisection.
"""

from __future__ import annotations

import re

from reference.primitives.codes import Code
from reference.primitives.errors import ContractViolation
from reference.recall import envelope as env
from reference.recall.envelope import ReadResult
from reference.recall.refs import SourceRef


def line_window(text: str, start_line: int, count: int) -> tuple[int, list[str]]:
    """How many lines ``re.split(r"\r?\n", text)`` gives, and ``count`` of them from the 1-based
    ``start_line`` on: a read shows at most a few hundred lines of a text of up to 4 MiB."""
    total = text.count("\n") + 1
    if start_line > total:
        return total, []
    begin = 0
    for _ in range(start_line - 1):
        begin = text.index("\n", begin) + 1
    end = begin
    for _ in range(count):
        end = text.find("\n", end) + 1
        if end == 0:
            end = len(text)
            break
    return total, re.split(r"\r?\n", text[begin:end])[:count]


def read_envelope(ref: SourceRef, classification: str, text: str, start_line: int, max_lines: int,
                  budget: int) -> ReadResult:
    """The read result for the window of ``text`` from ``start_line`` within ``budget`` tokens."""
    total, lines = line_window(text, start_line, max_lines)
    if start_line > total:
        raise ContractViolation(Code.RANGE_OUT_OF_BOUNDS, f"the text has {total} lines")
    last = min(total, start_line - 1 + max_lines)
    source = env.source_fields(ref, classification)
    included = _lines_that_fit(source, lines, start_line, total, last - start_line + 1, budget)
    if included == 0:
        raise ContractViolation(Code.LINE_EXCEEDS_OUTPUT_BUDGET, "a single line does not fit the output budget")
    next_line = start_line + included
    return ReadResult(ref, classification, "\n".join(lines[:included]), start_line,
                      next_line if next_line <= total else None)


def _lines_that_fit(source: env.JsonObject, lines: list[str], start_line: int, total: int, most: int,
                    budget: int) -> int:
    """How many of the window's first ``most`` lines the envelope holds within the budget.

    The budget is measured as the TypeScript implementation measures it: on the envelope while it
    is built (still ``complete``, no warning, ``nextLine`` always there).  The serialized
    envelope grows with every line added, so the lines that fit, added one by one until the first
    that does not, are found by bisection (8 costs instead of 200).
    """

    def fits(count: int) -> bool:
        """Whether the envelope with the first ``count`` lines of the window stays in the budget."""
        number = start_line + count - 1
        measured = {"schema": env.SCHEMA, "quotedData": True, "status": "complete", "coverage": "complete",
                    "warnings": [], "source": source, "text": "\n".join(lines[:count]), "startLine": start_line,
                    "truncated": number < total, "nextLine": number + 1}
        return env.cost(measured) <= budget

    included, above = 0, most
    while included < above:
        middle = (included + above + 1) // 2
        if fits(middle):
            included = middle
        else:
            above = middle - 1
    return included
