"""The audit's planted-disagreement corpus (``fixtures/audit/defects.toml``): each defect as data.

A defect names the one check that must report it and how many rows that check finds, and says how
to plant it in a project that a rebase went through: file operations (a journal rewritten or
written from the project's own, a file created, a mode changed), then SQL statements run on the
index through the contract §5 table names with ``PRAGMA foreign_keys=ON``, so that cascades and
FTS triggers run as the implementation's own writes would. Planted alone, a defect is reported by
exactly its check (``features/audit/defects.feature``).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import tomllib
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from conformance import schemas
from conformance.audit.journals import operations_dir
from conformance.suite import fixtures_dir

#: The corpus, relative to the suite's fixtures folder.
CORPUS_PATH: Final = Path("audit") / "defects.toml"
CORPUS_SCHEMA: Final = "fixtures/audit-defects.schema.json"
#: ``{name}`` in a path or a text stands for one of the project's facts (see :meth:`AuditProject.places`).
_PLACE: Final = re.compile(r"\{([a-z_]+)\}")


class CorpusError(Exception):
    """The corpus file is not valid against its schema, or a defect cannot be planted here."""


@dataclass(frozen=True)
class Defect:
    """One planted disagreement: its stable name, the check that reports it, and how to plant it."""

    name: str
    check: str
    count: int
    description: str
    files: tuple[Mapping[str, Any], ...]
    sql: tuple[str, ...]


@dataclass(frozen=True)
class AuditProject:
    """A rebased project: its session folder, its index, and the one journal of its rebase."""

    sessions: Path
    index: Path

    @property
    def journals(self) -> Path:
        return operations_dir(self.sessions)

    @property
    def journal(self) -> Path:
        found = sorted(self.journals.glob("*.json"))
        if len(found) != 1:
            raise CorpusError(f"the project needs exactly one journal in {self.journals}, it has {len(found)}")
        return found[0]

    def journal_document(self, path: Path | None = None) -> dict[str, Any]:
        document: dict[str, Any] = json.loads((path or self.journal).read_text(encoding="utf-8"))
        return document

    def places(self) -> dict[str, str]:
        """What ``{name}`` stands for in the corpus's paths and texts."""
        journal = self.journal_document()
        source = Path(journal["sourceSessionFile"])
        return {"sessions": str(self.sessions), "index": str(self.index), "journals": str(self.journals),
                "journal": str(self.journal), "source": str(source), "source_dir": str(source.parent),
                "target": journal["targetSessionFile"], "cwd": journal["projectPath"]}

    def parameters(self) -> dict[str, Any]:
        """The named parameters of the corpus's SQL (before any file operation adds its own)."""
        journal = self.journal_document()
        return {"source_session_id": journal["sourceSessionId"], "target_session_id": journal["targetSessionId"],
                "operation_id": journal["id"], "source_first_entry_key": self._first_entry_key(journal),
                "journal_text": self.journal.read_text(encoding="utf-8"), "journal_phase": journal["phase"]}

    @staticmethod
    def _first_entry_key(journal: Mapping[str, Any]) -> str:
        """``<sessionId>:<entryId>`` (contract §5.1) of the source's first entry line."""
        with open(journal["sourceSessionFile"], "rb") as stream:
            stream.readline()
            first = json.loads(stream.readline())
        return f"{journal['sourceSessionId']}:{first['id']}"


@cache
def load_corpus(path: Path | None = None) -> tuple[Defect, ...]:
    """Every defect of the corpus, checked against ``schemas/fixtures/audit-defects.schema.json``."""
    document = tomllib.loads((path or fixtures_dir() / CORPUS_PATH).read_text(encoding="utf-8"))
    problems = [schemas.describe(error) for error in schemas.errors(document, CORPUS_SCHEMA)]
    if problems:
        raise CorpusError(f"{CORPUS_PATH}: {problems[0]}")
    defects = tuple(Defect(item["name"], item["check"], item["count"], item["description"],
                           tuple(item.get("files", ())), tuple(item.get("sql", ())))
                    for item in document["defect"])
    names = [defect.name for defect in defects]
    if len(names) != len(set(names)):
        raise CorpusError(f"{CORPUS_PATH}: a defect name is used twice")
    return defects


def defect_named(name: str) -> Defect:
    for defect in load_corpus():
        if defect.name == name:
            return defect
    raise CorpusError(f"{CORPUS_PATH} has no defect named {name!r}")


def _expand(text: str, places: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group(1) not in places:
            raise CorpusError(f"{{{match.group(1)}}} is not a place the corpus knows ({', '.join(places)})")
        return places[match.group(1)]
    return _PLACE.sub(one, text)


def _js_json(document: Any) -> str:
    """A journal as the interop format writes it: compact ``JSON.stringify``, key order kept."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def _write_private(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` (created with ``mode``, kept if the file exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as stream:
        stream.write(data)


def _journal_text(document: dict[str, Any], operation: Mapping[str, Any], places: Mapping[str, str]) -> str:
    """The journal with ``set`` applied (strings expanded), then padded with spaces to ``pad_to`` bytes."""
    for key, value in operation.get("set", {}).items():
        document[key] = _expand(value, places) if isinstance(value, str) else value
    if operation.get("bump_updated_at"):
        document["updatedAt"] = int(document["updatedAt"]) + 1
    text = _js_json(document)
    pad_to = int(operation.get("pad_to", 0))
    return text + " " * max(0, pad_to - len(text.encode("utf-8")))


def _file_operation(project: AuditProject, operation: Mapping[str, Any], places: Mapping[str, str],
                    parameters: dict[str, Any]) -> None:
    kind = operation["op"]
    if kind == "write":
        path = Path(_expand(operation["path"], places))
        _write_private(path, _expand(operation.get("text", ""), places).encode("utf-8"),
                       int(operation.get("mode", "600"), 8))
    elif kind == "chmod":
        os.chmod(_expand(operation["path"], places), int(operation["mode"], 8))
    elif kind == "journal":
        text = _journal_text(project.journal_document(), operation, places)
        _write_private(project.journal, text.encode("utf-8"))
        parameters.update(journal_text=text, journal_phase=json.loads(text)["phase"])
    elif kind == "new-journal":
        document = project.journal_document()
        text = _journal_text(document, operation, places)
        _write_private(project.journals / f"{document['id']}.json", text.encode("utf-8"))
        parameters.update(new_journal_id=document["id"], new_journal_text=text, new_journal_phase=document["phase"])
    else:  # the schema allows no other
        raise CorpusError(f"unknown file operation {kind!r}")


def plant(project: AuditProject, defect: Defect) -> None:
    """Plant ``defect`` in ``project``: its file operations in order, then its SQL in one transaction."""
    places, parameters = project.places(), project.parameters()
    for operation in defect.files:
        _file_operation(project, operation, places, parameters)
    if not defect.sql:
        return
    with closing(sqlite3.connect(project.index, isolation_level=None)) as connection:
        connection.execute("PRAGMA foreign_keys=ON")
        connection.execute("PRAGMA busy_timeout=10000")
        connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in defect.sql:
                changed = connection.execute(statement, parameters).rowcount
                if changed == 0:
                    raise CorpusError(f"{defect.name}: changed no row: {statement}")
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
