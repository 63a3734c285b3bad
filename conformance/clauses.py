"""The normative clauses of ``docs/spec/``: each has a stable id, marked in the text (issue 26).

A clause is one unit of a spec section (a list item, a table row or a paragraph): every unit of
a section that states rules is one, but a citation of upstream files and a short lead-in to a
list (whose items are the clauses). Its id is marked where it starts, as an anchor GitHub
renders and a visible label::

    - <a id="C6.12-3"></a><sup>C6.12-3</sup> The lock is taken before …

The id names the document (``C`` contract.md, ``D`` decisions.md, ``P`` pi-session-model.md), the
section (``6.12``; ``D7`` is the decision itself) and a number within it. Ids are never reused:
:data:`RETIRED` lists the ones that left the text, and a clause whose meaning changes gets a new
id. The machine-readable index, ``docs/spec/clauses.json`` (``schemas/clauses/v1``), is generated
from the text by ``python tools/clauses.py index`` and checked against it.

Sections that are not rules are not marked, each with its reason in :data:`NOT_NORMATIVE`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from conformance.speclinks import HEADING

#: The documents of the spec that hold clauses, and the letter their ids start with.
DOCUMENTS: Final = {"contract.md": "C", "decisions.md": "D", "pi-session-model.md": "P"}

CLAUSE_ID: Final = r"(?:[CP](?:0|[1-9][0-9]*)(?:\.[0-9]+)*|D[1-9][0-9]*)-[1-9][0-9]*"
#: A clause id alone (use ``fullmatch``), as a tag, a mutant entry or ``unobservable.toml`` gives it.
WELL_FORMED: Final = re.compile(CLAUSE_ID)
#: The scenario tag that cites a clause, without its ``@``: ``@clause:C6.12-3``.
CLAUSE_TAG: Final = "clause:"
MARK: Final = re.compile(rf'<a id="(?P<id>{CLAUSE_ID})"></a><sup>(?P=id)</sup> ')
ANY_ANCHOR: Final = re.compile(r'<a id="(?P<id>[^"]*)"></a>')

#: Sections whose units are not rules, with the reason (a heading's number, or its title's start).
NOT_NORMATIVE: Final = {
    ("contract.md", "0.1"): "provenance: which upstream snapshots were read",
    ("contract.md", "7"): "upstream tests quoted as evidence; the rules they show are stated in §1-§6",
    ("contract.md", "8.2"): "where the upstream differs from its plan: history, not a rule",
    ("contract.md", "Appendix"): "the list of upstream files read",
    ("pi-session-model.md", "TL;DR"): "a summary of rules stated in §1-§6",
    ("pi-session-model.md", "4.7"): "downstream of the session model, for reference only",
    ("pi-session-model.md", "7"): "the oracle and generator scripts: tools, not rules of Pi",
}

#: Ids that have left the text: never given again.
RETIRED: Final[frozenset[str]] = frozenset({
    "C0.3-17", "C4-8",  # "Sources for §0/§4: `…`": citations the first citation rule missed
    # lead-ins in bold ("**Ranges:**"), which the first lead-in rule missed: their items are the clauses
    "C2.5-6", "C2.5-10", "C2.10-28", "C3.3-7", "C3.3-14", "C3.3-29", "C3.4-16", "C6.6-17", "C6.11-9",
    # citations of upstream files the first citation rule missed (a bare file name, `dist/`, "From …")
    "C2.12-16", "C5.4-8", "C5.4-9", "P6-1",
    # bold titles of the list after them
    "C6.15-11", "C8.3-10", "C8.3-15", "C8.3-40", "P6-2", "P6-7", "P6-12", "P6-16", "P6-21",
    "P4.3-7",  # "a compaction leaf gives just [compaction]": Pi keeps the kept entries too (seen on Pi 0.84.3; CONTEXT-005)
})

#: A unit that only cites upstream files (``src/…``, ``tests/…``): where a rule was read, not a rule.
_CITED: Final = (r"(?:(?:and\s+)?`(?:(?:src|tests|packages|docs|dist)/[^`]*|[^`\s]+\.(?:ts|mjs|js|md))`"
                 r"(?:\s*\([^)]*\))?[,;.]?\s*)")
CITATION: Final = re.compile(rf"(?:Sources for §[0-9.]+:|From)\s*{_CITED}*|{_CITED}+")
#: A unit that is only a bold title ("**SessionManager (static)**") names the list after it.
BOLD_TITLE: Final = re.compile(r"\*\*[^*]+\*\*")
#: A short lead-in that ends with a colon introduces the list after it, whose items are the clauses.
LEAD_IN_CHARS: Final = 80
#: What makes a lead-in a rule of its own ("Checks, in order:", "**Symbols**: at most 20, drawn
#: from:"): a number, an order, a bound, a scope word or a code (issue 26: "normative means a rule,
#: a number, a code, a phase or an order").
RULE_WORDS: Final = re.compile(
    r"[0-9]|\b(?:order|only|at most|at least|never|must|before|after|silently|no|none|all|first|last|once|"
    r"except|unless|whatever|either|exactly)\b|`[a-z]+(?:-[a-z]+)+`", re.IGNORECASE)
SECTION_NUMBER: Final = re.compile(r"^(?P<number>D?[0-9]+(?:\.[0-9]+)*)\.?\s")
ITEM: Final = re.compile(r"^(?P<indent>\s*)(?:[-*]|[0-9]+\.)\s+")
TABLE_RULE: Final = re.compile(r"^\|[\s:|-]+\|\s*$")


@dataclass(frozen=True)
class Unit:
    """One list item, table row or paragraph of a section: where its text starts (0-based line and
    column, after the item's bullet or the row's first ``|``) and its text, lines joined."""

    document: str
    section: str  # "6.12", "D7", "4"; or the title of an unnumbered top section ("Appendix", "TL;DR")
    heading: str
    line: int
    column: int
    text: str

    @property
    def mark(self) -> str | None:
        found = MARK.match(self.text)
        return found.group("id") if found else None

    @property
    def normative(self) -> bool:
        """Every unit of a section that holds rules is a clause, except a citation of upstream
        files and a short lead-in to a list that states no rule itself (the list's items are the
        clauses)."""
        text = MARK.sub("", self.text, count=1).strip()
        plain = text.replace("**", "")  # "**Ranges:**" is a lead-in too
        lead_in = (plain.endswith(":") or BOLD_TITLE.fullmatch(text) is not None) and len(plain) <= LEAD_IN_CHARS \
            and RULE_WORDS.search(plain) is None
        return not_normative_reason(self.document, self.section) is None and not lead_in and \
            CITATION.fullmatch(text) is None


@dataclass(frozen=True)
class Clause:
    """A marked clause: its id, where it stands and its text (the mark taken off)."""

    id: str
    document: str
    section: str
    heading: str
    line: int  # 1-based
    text: str

    def as_json(self) -> dict[str, str | int]:
        return asdict(self)


def not_normative_reason(document: str, section: str) -> str | None:
    """Why a section holds no clauses (its own number, or the top section it is in), else None."""
    parts = section.split(".")
    for depth in range(len(parts), 0, -1):
        reason = NOT_NORMATIVE.get((document, ".".join(parts[:depth])))
        if reason is not None:
            return reason
    return None


def _section_of(title: str, top: str | None) -> str | None:
    """A heading's section: its number (``6.12``, ``D7``), else the numbered section it sits in
    (an unnumbered ``### Evidence`` under ``## 2.``), else its own first word (``Appendix``)."""
    found = SECTION_NUMBER.match(title)
    if found:
        return found.group("number")
    return top if top is not None else title.split(":")[0].split(" ")[0]


def units(document: str, text: str) -> Iterator[Unit]:
    """Every unit of the document's sections, in order (code blocks and headings are not units;
    a table's header row is not one either). The text before the first ``##`` heading is not a section."""
    lines = text.splitlines()
    section: str | None = None
    top: str | None = None
    heading = ""
    fenced = False
    current: list[str] = []
    start = (0, 0)
    header_row = False

    def flush() -> Iterator[Unit]:
        if current and section is not None:
            yield Unit(document, section, heading, start[0], start[1], " ".join(part.strip() for part in current))
        current.clear()

    for number, line in enumerate(lines):
        if line.startswith("```"):
            yield from flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        found = HEADING.match(line)
        if found:
            yield from flush()
            level = len(line) - len(line.lstrip("#"))
            if level == 1:
                section, top = None, None
                continue
            title = found.group("title")
            numbered = SECTION_NUMBER.match(title)
            if level == 2:
                top = numbered.group("number") if numbered else None
            section = _section_of(title, top if level > 2 else None)
            heading = title
            continue
        stripped = line.strip()
        if not stripped or stripped == "---":
            yield from flush()
            header_row = False
            continue
        if stripped.startswith("|"):
            yield from flush()
            if TABLE_RULE.match(stripped):
                continue
            if not header_row and number + 1 < len(lines) and TABLE_RULE.match(lines[number + 1].strip()):
                header_row = True  # the header row names the columns: not a rule
                continue
            column = line.index("|") + 1
            column += len(line[column:]) - len(line[column:].lstrip(" "))
            start = (number, column)
            current.append(line[column:].rstrip())
            yield from flush()
            continue
        item = ITEM.match(line)
        if item:
            yield from flush()
            start = (number, item.end())
            current.append(line[item.end():])
            continue
        if not current:
            start = (number, len(line) - len(line.lstrip(" ")))
        current.append(stripped)
    yield from flush()


def spec_units(spec_dir: Path) -> list[Unit]:
    """The units of every document of the spec, in document order."""
    found: list[Unit] = []
    for name in DOCUMENTS:
        found.extend(units(name, (spec_dir / name).read_text(encoding="utf-8")))
    return found


def clause_id_prefix(document: str, section: str) -> str:
    """``C6.12`` for contract.md §6.12, ``D7`` for decision D7, ``P1.5`` for pi-session-model.md §1.5."""
    letter = DOCUMENTS[document]
    return section if letter == "D" else f"{letter}{section}"


def clauses(spec_dir: Path) -> list[Clause]:
    """Every marked clause of the spec, in document order."""
    return [Clause(mark, unit.document, unit.section, unit.heading, unit.line + 1, MARK.sub("", unit.text, count=1))
            for unit in spec_units(spec_dir) if (mark := unit.mark) is not None]


def problems(spec_dir: Path) -> list[str]:
    """What the spec's marks break: a normative unit without an id, an id marked twice, an id
    whose section is not the one it stands in, a mark in a section that holds no rules, a retired
    id given again, an anchor that is not a clause mark."""
    found: list[str] = []
    seen: dict[str, Unit] = {}
    for unit in spec_units(spec_dir):
        where = f"docs/spec/{unit.document}:{unit.line + 1}"
        mark = unit.mark
        for anchor in ANY_ANCHOR.finditer(unit.text):
            if anchor.start() != 0 or mark is None:
                found.append(f"{where}: an anchor that is not a clause mark at the unit's start: {anchor.group(0)}")
        if mark is None:
            if unit.normative:
                found.append(f"{where}: a normative unit without a clause id: {unit.text[:80]}")
            continue
        if not_normative_reason(unit.document, unit.section) is not None:
            found.append(f"{where}: {mark} marks a unit of a section that holds no rules")
        if not mark.startswith(clause_id_prefix(unit.document, unit.section) + "-"):
            found.append(f"{where}: {mark} stands in §{unit.section} of {unit.document}")
        if mark in seen:
            found.append(f"{where}: {mark} is marked twice (first at line {seen[mark].line + 1})")
        if mark in RETIRED:
            found.append(f"{where}: {mark} is retired and never given again")
        seen[mark] = unit
    return found


def index_document(spec_dir: Path) -> dict[str, object]:
    """The clause index (``schemas/clauses/v1/clause-index.schema.json``)."""
    listed = clauses(spec_dir)
    return {"version": 1, "total": len(listed), "clauses": [clause.as_json() for clause in listed]}
