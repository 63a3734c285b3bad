"""The clauses a report row checks: its scenario's ``@clause:`` tags, each with the spec's text
and a link to its anchor (issue 26, "reports carry the rule").

A row's ``clauses`` (``schemas/report/v1``) is a list of ``{"id", "text", "link"}`` in the order
of the spec, each id once; ``link`` is the clause's anchor in ``docs/spec/``, relative to
the suite root (``docs/spec/contract.md#C2.5-3``). The texts come from one reading of the spec
per run (:meth:`ClauseTexts.of_spec`), passed to whoever makes rows. An id the spec does not hold
(``conformance check`` names it) is cited with an empty text; a tag that is no clause id at all
is refused (:class:`ValueError`), as a malformed ``@timeout:`` is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgspec

from conformance.clauses import DOCUMENTS, WELL_FORMED, clauses

#: Where the spec's documents are, relative to the suite root: the links start here.
SPEC_FOLDER: Final = "docs/spec"
_DOCUMENT_OF: Final = {letter: name for name, letter in DOCUMENTS.items()}
NOT_IN_SPEC: Final = "(not in the suite's spec: conformance check names it)"


class CitedClause(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One clause a row checks: its id, the spec's text of it ("" when the spec lacks the id), and
    the link to its anchor, relative to the suite root."""

    id: str
    text: str
    link: str

    @property
    def line(self) -> str:
        """``C2.5-3: text``, the form JUnit and the summaries show."""
        return f"{self.id}: {self.text or NOT_IN_SPEC}"

    def as_json(self) -> dict[str, str]:
        return {"id": self.id, "text": self.text, "link": self.link}


def link_of(clause_id: str) -> str:
    """``docs/spec/contract.md#C2.5-3``: the document the id's letter names (``C``, ``D``, ``P``)."""
    return f"{SPEC_FOLDER}/{_DOCUMENT_OF[clause_id[0]]}#{clause_id}"


@dataclass(frozen=True)
class ClauseTexts:
    """The spec's clause texts by id, read once per run."""

    texts: Mapping[str, str]

    @classmethod
    def of_spec(cls, spec_dir: Path) -> ClauseTexts:
        """The clauses of ``spec_dir`` (``docs/spec``); none when the suite ships no spec."""
        if not spec_dir.is_dir():
            return cls({})
        return cls({clause.id: clause.text for clause in clauses(spec_dir)})

    def cite(self, ids: Iterable[str]) -> tuple[CitedClause, ...]:
        """These ids, each once, in the order the spec gives them (ids it lacks last, by id), with
        their text and link. Tags have no order of their own: pytest-bdd keeps them as a set."""
        wanted = set(ids)
        for clause_id in sorted(wanted):
            if not WELL_FORMED.fullmatch(clause_id):
                raise ValueError(f"@clause:{clause_id} is not a clause id (C6.12-3, D7-1 or P1.5-2)")
        known = [clause_id for clause_id in self.texts if clause_id in wanted]
        ordered = [*known, *sorted(wanted.difference(known))]
        return tuple(CitedClause(clause_id, self.texts.get(clause_id, ""), link_of(clause_id)) for clause_id in ordered)


def cited(row: Mapping[str, Any]) -> tuple[CitedClause, ...]:
    """A report row's clauses, typed; none for a row of a report older than contract version 4."""
    return msgspec.convert(row.get("clauses", []), tuple[CitedClause, ...])


def as_json(found: Iterable[CitedClause]) -> list[dict[str, str]]:
    """The row's ``clauses`` field."""
    return [clause.as_json() for clause in found]
