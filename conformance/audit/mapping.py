"""A mapping: how one implementation's projection tables give the audit's views (a TOML data file).

The audit reads a projection only through a mapping, so a port whose projection keeps the
contract §5 tables is audited by writing its own file; the reference's ships as
``mappings/reference.toml``.  A file that is not valid TOML or not valid against
``schemas/audit/mapping.schema.json`` is refused with one line naming the file and the fault.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from conformance import named_inputs, schemas
from conformance.audit.views import MAPPED_VIEWS, AuditView
from conformance.commandline import OneLineError

MAPPING_SCHEMA: Final = "audit/mapping.schema.json"
REFERENCE_MAPPING: Final = "reference.toml"
#: The code of a mapping the audit cannot use (``schemas/codes/v1``, ``commandLine``).
AUDIT_MAPPING: Final = "audit-mapping"


class MappingError(OneLineError, ValueError):
    """A mapping file the audit cannot use; the message is one line for the auditor."""

    code = AUDIT_MAPPING


@dataclass(frozen=True)
class ProjectionMapping:
    """Which implementation, and the SQLite SELECT that gives each mapped view."""

    implementation: str
    views: Mapping[AuditView, str]
    source: str
    #: Statements run on a private copy of the index that fail when it is corrupt (FTS5's integrity-check).
    integrity: tuple[str, ...] = ()
    #: Where the implementation keeps its index, relative to Pi's agent dir (the default of ``--index``).
    default_index: str | None = None


def load_mapping(path: Path) -> ProjectionMapping:
    """Read and validate a mapping file."""
    try:
        text = named_inputs.read_text(path)  # a folder, a FIFO or a device is refused, never waited on
    except (OSError, UnicodeDecodeError) as exc:
        raise MappingError(f"{path}: cannot read the mapping: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_mapping(text, str(path))


def reference_mapping() -> ProjectionMapping:
    """The mapping of the reference implementation's index, as the package ships it."""
    shipped = resources.files("conformance.audit") / "mappings" / REFERENCE_MAPPING
    return parse_mapping(shipped.read_text(encoding="utf-8"), f"conformance/audit/mappings/{REFERENCE_MAPPING}")


def parse_mapping(text: str, source: str) -> ProjectionMapping:
    """A mapping from its TOML text; ``source`` names it in errors."""
    try:
        document: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MappingError(f"{source}: not valid TOML: {exc}") from None
    problems = schemas.errors(document, MAPPING_SCHEMA)
    if problems:
        raise MappingError(f"{source}: not a valid audit mapping: {schemas.describe(problems[0])}")
    views = {view: str(document["views"][view.value]) for view in MAPPED_VIEWS}
    integrity = tuple(str(statement) for statement in document.get("integrity", {}).get("statements", ()))
    default_index = document.get("default_index")
    return ProjectionMapping(str(document["implementation"]), views, source, integrity,
                             str(default_index) if default_index is not None else None)
