"""The ``Spec:`` line of every feature links to the normative text it follows.

Features cite ``docs/spec/`` (shipped beside them in the wheel, at the same relative place) and
the project's ``docs/`` pages with relative Markdown links; ``conformance check`` resolves each
link to a file and, where it names one, to a heading anchor, so a renamed section breaks the check
instead of silently orphaning the citation. Anchors are GitHub's heading slugs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

SPEC_LINE: Final = re.compile(r"^\s*Spec:\s*(?P<text>.*)$", re.MULTILINE)
LINK: Final = re.compile(r"\[(?P<label>[^\]]+)\]\((?P<target>[^)\s]+)\)")
HEADING: Final = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*#*\s*$", re.MULTILINE)
FENCE: Final = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def heading_slug(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors_of(document: Path) -> frozenset[str]:
    """Every heading anchor of a Markdown file (repeated headings get GitHub's ``-1``, ``-2``)."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    body = FENCE.sub("", document.read_text(encoding="utf-8"))
    for match in HEADING.finditer(body):
        slug = heading_slug(match.group("title"))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(found)


@dataclass(frozen=True)
class SpecProblem:
    """One ``Spec:`` line that does not lead to its text."""

    feature: Path
    line: int
    problem: str


def spec_problems(feature: Path) -> Iterator[SpecProblem]:
    """Problems of one feature file: no ``Spec:`` line, no link in it, or a link that does not resolve."""
    text = feature.read_text(encoding="utf-8")
    lines = list(SPEC_LINE.finditer(text))
    if not lines:
        yield SpecProblem(feature, 0, "no 'Spec:' line")
        return
    for match in lines:
        number = text.count("\n", 0, match.start()) + 1
        links = list(LINK.finditer(match.group("text")))
        if not links:
            yield SpecProblem(feature, number, "the 'Spec:' line has no link")
        for link in links:
            problem = _unresolved(feature, link.group("target"))
            if problem:
                yield SpecProblem(feature, number, f"{link.group(0)}: {problem}")


def _unresolved(feature: Path, target: str) -> str | None:
    if "://" in target:
        return "links must be relative"
    path_part, _, anchor = target.partition("#")
    document = (feature.parent / path_part).resolve()
    if not document.is_file():
        return f"no file {path_part}"
    if anchor and anchor not in anchors_of(document):
        return f"no heading #{anchor} in {document.name}"
    return None
